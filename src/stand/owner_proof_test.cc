#include "stand/owner_proof.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "stand/process.h"
#include "stand/run_root.h"

namespace memstand {
namespace {

TEST(OwnerProofTest, OnlyAProcessHoldingTheTokenFileIsProvenOurs) {
  char tmpl[] = "/tmp/owner_proof_test-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  auto token = NewOwnerToken();
  ASSERT_TRUE(token.ok());
  EXPECT_EQ(token->size(), 32u);
  EXPECT_NE(*token, *NewOwnerToken());
  std::string path = dir + "/" + kOwnerTokenFile;
  ASSERT_TRUE(WritePrivateFile(path, *token).ok());
  SpawnOptions holding{{"sleep", "30"}, "", ""};
  holding.hold_open = path;
  auto ours = Process::Spawn(holding);
  auto stranger = Process::Spawn(SpawnOptions{{"sleep", "30"}, "", ""});
  ASSERT_TRUE(ours.ok() && stranger.ok());
  ProcessIdentity ours_id = *ReadProcessIdentity((*ours)->pid());
  ProcessIdentity stranger_id = *ReadProcessIdentity((*stranger)->pid());
  EXPECT_EQ(ours_id.uid, static_cast<int64_t>(getuid()));
  EXPECT_EQ(ours_id.pgid, (*ours)->pid());

  EXPECT_EQ(CheckOwner(ours_id, path, *token).verdict, Ownership::kOurs);
  OwnerCheck c = CheckOwner(stranger_id, path, *token);
  EXPECT_EQ(c.verdict, Ownership::kUnproven);
  EXPECT_EQ(c.why, "it does not hold the topology's token file " + path +
                       " open: memstand did not start it");
  EXPECT_EQ(CheckOwner(ours_id, path, "ffff").verdict, Ownership::kUnproven);  // another token
  EXPECT_EQ(CheckOwner(ours_id, path, "").why,
            "the state file holds no ownership token (an older memstand wrote it)");
  ProcessIdentity other_uid = ours_id;
  other_uid.uid += 1;
  EXPECT_EQ(CheckOwner(other_uid, path, *token).verdict, Ownership::kUnproven);
  ProcessIdentity init = ours_id;
  init.pid = 1;
  EXPECT_EQ(CheckOwner(init, path, *token).why, "pid 1: memstand never signals pid 0 or 1");
  ProcessIdentity reused = ours_id;
  reused.start_ticks += 1;
  EXPECT_EQ(CheckOwner(reused, path, *token).verdict, Ownership::kOther);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace memstand

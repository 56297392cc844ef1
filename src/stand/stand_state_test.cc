// StopRecordedTopology (`memstand down`) against real processes.
#include "stand/stand_state.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>

#include <gtest/gtest.h>

#include "stand/process.h"
#include "stand/run_root.h"

namespace memstand {
namespace {

namespace fs = std::filesystem;

// A memstand killed between spawning a node and recording it leaves a server that holds
// the topology's token file but is in no record: `down` finds it by the token, proves
// it ours like a recorded node, and stops it.
TEST(StopRecordedTopologyTest, AProcessHoldingTheTokenButMissingFromTheRecordIsStopped) {
  char tmpl[] = "/tmp/stand_state_test-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string root = tmpl;
  TopologyRecord r;
  r.name = "half";
  r.kind = "redis";
  r.status = "starting";
  r.dir = root + "/half";
  r.token = "00112233445566778899aabbccddeeff";
  r.memstand_pid = 0;
  ASSERT_TRUE(EnsurePrivateDir(r.dir, "run folder").ok());
  ASSERT_TRUE(WritePrivateFile(r.dir + "/" + kOwnerTokenFile, r.token).ok());
  SpawnOptions o{{"sleep", "1000"}, r.dir, ""};
  o.hold_open = r.dir + "/" + kOwnerTokenFile;
  auto orphan = Process::Spawn(o);
  ASSERT_TRUE(orphan.ok()) << orphan.status().message();
  SpawnOptions other_o{{"sleep", "1000"}, r.dir, ""};  // in the folder, without the token
  auto other = Process::Spawn(other_o);
  ASSERT_TRUE(other.ok()) << other.status().message();
  for (int i = 0; i < 500; ++i) {  // until exec has set up its command line (5 s at most)
    auto id = ReadProcessIdentity((*orphan)->pid());
    if (id.ok() && !id->cmdline.empty() && id->cmdline[0] == "sleep") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::vector<std::string> messages;
  Status s = StopRecordedTopology(r, &messages);
  EXPECT_TRUE(s.ok()) << s.message();
  const std::string want = "unrecorded (sleep, pid " + std::to_string((*orphan)->pid()) + "): stopped";
  EXPECT_NE(std::find(messages.begin(), messages.end(), want), messages.end())
      << (messages.empty() ? "no message" : messages[0]);
  EXPECT_EQ(messages.size(), 1u);
  EXPECT_FALSE((*orphan)->Alive());
  EXPECT_TRUE((*other)->Alive());  // not proven ours: never signalled
  EXPECT_FALSE(fs::exists(r.dir));
  fs::remove_all(root);
}

}  // namespace
}  // namespace memstand

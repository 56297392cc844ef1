// `memstand scenario run compute-locality` on the real binary against the real
// Tarantool, Redis and PostgreSQL it stands up itself (--reps small): objects per path, the same
// ids on every path, both byte counts, the raw samples in the evidence folder, and a
// missing server's rows.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "e2e/e2e_util.h"
#include "stand/process.h"

namespace memstand::e2e {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The element of `list` (systems or paths) named `name`.
const json& Named(const json& list, const std::string& name) {
  for (const json& e : list) {
    if (e["name"] == name) return e;
  }
  static const json kNone;
  ADD_FAILURE() << "nothing named " << name;
  return kNone;
}

const json& System(const json& doc, const std::string& name) { return Named(doc["systems"], name); }
const json& Path(const json& system, const std::string& name) { return Named(system["paths"], name); }

TEST(ComputeLocalityE2E, EveryPathReturnsTheSameTopAndBothByteCountsAgree) {
  const std::string dir = TempDir();
  const std::string evidence = dir + "/evidence";
  // --reps 2: two timed calls per path per pass are enough to count samples per pass and
  // per file; each call of a naive path reads a whole category (33,276 records), so the
  // calls were half of the test's time at --reps 5 (the loads of 200,000 records the rest).
  Outcome out = RunMemstand({"scenario", "run", "compute-locality", "--reps", "2", "--json", dir + "/cl.json",
                             "--evidence", evidence, "-q"}, 240);
  ASSERT_EQ(out.exit_code, 0) << out.output;
  EXPECT_NE(out.output.find("bytes in "), std::string::npos) << out.output;
  json doc = ReadJson(dir + "/cl.json");
  EXPECT_EQ(doc["scenario"], "compute-locality");
  EXPECT_EQ(doc["category_records"], 33276);
  const json ref = doc["reference_ids"];
  ASSERT_EQ(ref.size(), 10u);
  int64_t paths = 0;
  for (const char* name : {"tarantool", "redis", "postgresql"}) {
    const json& s = System(doc, name);
    ASSERT_FALSE(s.contains("failure")) << s.dump();
    EXPECT_EQ(Path(s, "naive")["objects"], 33276) << name;
    EXPECT_EQ(Path(s, "local")["objects"], 10) << name;
    EXPECT_EQ(Path(s, "naive-short")["objects"], 33276) << name;
    for (const json& p : s["paths"]) {
      ++paths;
      SCOPED_TRACE(std::string(name) + " " + p["name"].get<std::string>());
      EXPECT_FALSE(p.contains("failure")) << p.dump();
      EXPECT_EQ(p["ids"], ref);
      EXPECT_EQ(p["samples"], 4);  // 2 per pass, two passes
      // Both counts present and equal: TCP payload is what memstand read and wrote.
      EXPECT_GT(p["bytes_in"].get<int64_t>(), 0);
      EXPECT_GT(p["bytes_out"].get<int64_t>(), 0);
      EXPECT_EQ(p["bytes_in"], p["kernel_bytes_received"]);
      EXPECT_EQ(p["bytes_out"], p["kernel_bytes_acked"]);
      EXPECT_TRUE(p["counts_agree_every_call"].get<bool>());
    }
    // The naive path's bytes are those of the whole category.
    EXPECT_GT(Path(s, "naive")["bytes_in"].get<int64_t>(), 1000 * Path(s, "local")["bytes_in"].get<int64_t>());
  }
  EXPECT_EQ(Path(System(doc, "tarantool"), "local-scan")["objects"], 10);
  EXPECT_EQ(Path(System(doc, "redis"), "local")["round_trips"], 2);
  EXPECT_EQ(Path(System(doc, "postgresql"), "local")["round_trips"], 1);
  // PostgreSQL's paths once more through libpq: the same rows, and the kernel's bytes of
  // libpq's socket equal to those of memstand's (the same simple Query message, the same
  // reply), so memstand's reader and count are checked against PostgreSQL's own client.
  for (const json& p : System(doc, "postgresql")["paths"]) {
    SCOPED_TRACE(p["name"].get<std::string>());
    ASSERT_TRUE(p.contains("reference")) << p.dump();
    const json& r = p["reference"];
    EXPECT_EQ(r["library"].get<std::string>().rfind("libpq ", 0), 0u) << r.dump();
    EXPECT_EQ(r["ids"], ref);
    EXPECT_EQ(r["objects"], p["objects"]);
    EXPECT_EQ(r["kernel_bytes_received"], p["kernel_bytes_received"]);
    EXPECT_EQ(r["kernel_bytes_acked"], p["kernel_bytes_acked"]);
  }
  EXPECT_FALSE(Path(System(doc, "redis"), "naive").contains("reference"));
  EXPECT_NE(out.output.find("the same requests through libpq"), std::string::npos) << out.output;
  for (const json& i : doc["invariants"]) EXPECT_TRUE(i["ok"].get<bool>()) << i.dump();
  // One per path, and two per PostgreSQL path through libpq (its ids, its objects).
  EXPECT_EQ(doc["invariants"].size(), static_cast<size_t>(paths + 2 * 4));
  // Every raw sample in the evidence: a header and one line per timed call.
  EXPECT_EQ(CountLines(evidence + "/samples.csv"), 1 + paths * 4);
  EXPECT_TRUE(fs::exists(evidence + "/servers/tarantool.conf"));
}

TEST(ComputeLocalityE2E, AMissingServerIsARowSayingSo) {
  const std::string bin = TempDir();
  auto path = FindExecutable("redis-server");
  ASSERT_TRUE(path.ok());
  fs::create_symlink(*path, bin + "/redis-server");
  const std::string no_pg = TempDir();  // a PostgreSQL folder without initdb or postgres
  const std::string saved = std::getenv("PATH");
  setenv("PATH", bin.c_str(), 1);
  setenv("MEMSTAND_PG_BINDIR", no_pg.c_str(), 1);
  Outcome out = RunMemstand({"scenario", "run", "compute-locality", "--reps", "1", "--no-swap-order", "--top", "30",
                             "-q"}, 120);
  setenv("PATH", saved.c_str(), 1);
  unsetenv("MEMSTAND_PG_BINDIR");
  EXPECT_EQ(out.exit_code, 3) << out.output;
  EXPECT_NE(out.output.find("not run: tarantool is not installed (apt-get install tarantool)"), std::string::npos)
      << out.output;
  EXPECT_NE(out.output.find("postgresql — not run: postgres is not in MEMSTAND_PG_BINDIR=" + no_pg), std::string::npos)
      << out.output;
  // Rows 30 and 31 of the top tie on views: the score's id tie-break gives the dataset's order.
  EXPECT_NE(out.output.find("run 1 redis local ids == the dataset's ids, in order: 30 == 30"), std::string::npos)
      << out.output;
}

// Rows 30 and 31 of the top of 'tools' tie on views (seed 1): PostgreSQL's ORDER BY
// views DESC, id; the Lua walk, which meets equal views in id-descending order, reads on
// through the tie at its last row and sorts; the scan sorts, the client sorts; all in the
// dataset's order. (Checked: a walk that stops at its 30th row fails this.)
TEST(ComputeLocalityE2E, TiesOnViewsGoByIdOnEveryTarantoolAndPostgresPath) {
  const std::string dir = TempDir();
  Outcome out = RunMemstand({"scenario", "run", "compute-locality", "--only", "tarantool,postgresql", "--top", "30", "--reps",
                             "1", "--no-swap-order", "--json", dir + "/cl.json", "-q"}, 120);
  ASSERT_EQ(out.exit_code, 0) << out.output;
  json doc = ReadJson(dir + "/cl.json");
  // 5 Tarantool paths and 4 PostgreSQL paths; each PostgreSQL path also via libpq: its
  // ids and its objects.
  ASSERT_EQ(doc["invariants"].size(), 9u + 2u * 4u);
  int ids = 0;
  for (const json& i : doc["invariants"]) {
    EXPECT_TRUE(i["ok"].get<bool>()) << i.dump();
    if (i["name"].get<std::string>().find("objects") != std::string::npos) continue;
    EXPECT_EQ(i["rhs_value"], 30) << i.dump();
    ++ids;
  }
  EXPECT_EQ(ids, 9 + 4);
}

}  // namespace
}  // namespace memstand::e2e

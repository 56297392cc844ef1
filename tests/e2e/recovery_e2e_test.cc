// `memstand scenario run recovery` against a real redis-server and a real tarantool, at
// small sizes: each persistence mode killed and restarted; AOF always and Tarantool's
// wal_mode fsync keep every acknowledged write, no persistence keeps none of the fill.
#include <string>

#include <gtest/gtest.h>

#include "e2e/e2e_util.h"

namespace memstand::e2e {
namespace {

// One size: what is asserted holds for each cell alone, and a size list's cells are
// walked by the Tarantool test below.
TEST(RecoveryE2E, EachModeIsKilledRestartedAndMeasured) {
  const std::string dir = TempDir();
  Outcome out = RunMemstand({"scenario", "run", "recovery", "--only", "none,rdb,aof-everysec,aof-always", "--memory",
                             "8MiB", "--kill-at", "1.5s", "--after", "2s", "--rate", "300", "--json",
                             dir + "/r.json", "--evidence", dir + "/ev", "-q"},
                            240);
  ASSERT_EQ(out.exit_code, 0) << out.output;
  const auto doc = ReadJson(dir + "/r.json");
  ASSERT_EQ(doc["cells"].size(), 4u) << out.output;
  for (const auto& c : doc["cells"]) {
    const std::string name = c["configuration"].get<std::string>() + " " + std::to_string(c["memory"].get<uint64_t>());
    EXPECT_TRUE(c["failure"].is_null()) << name << "\n" << out.output;
    EXPECT_GT(c["used_memory"].get<int64_t>(), 0) << name;
    ASSERT_TRUE(c["load_seconds"].is_number()) << name;
    EXPECT_GT(c["load_seconds"].get<double>(), 0) << name;
    EXPECT_TRUE(c["seconds_per_gb"].is_number()) << name;
    EXPECT_GE(c["accept_s"].get<double>(), c["restart_s"].get<double>()) << name;
    EXPECT_GE(c["first_write_s"].get<double>(), c["kill_s"].get<double>()) << name;
    const int64_t fill = c["fill_keys"].get<int64_t>();
    EXPECT_GT(fill, 1000) << name;
    if (c["configuration"] == "none") {
      EXPECT_EQ(c["fill_present"], 0) << name;      // nothing came back
      EXPECT_GT(c["lost"].get<uint64_t>(), 0u) << name;  // the load's writes before the kill
    } else {
      EXPECT_EQ(c["fill_present"], fill) << name;   // the fill is in the snapshot or the AOF
    }
    if (c["configuration"] == "aof-always") {
      EXPECT_EQ(c["lost"], 0) << name;
    }
  }
  EXPECT_TRUE(doc["anomalies"].empty());
  EXPECT_NE(out.output.find("Results: back after a kill"), std::string::npos);
}

// Tarantool memtx, snapshot + WAL, wal_mode write and fsync: each comes back with the
// fill (in the snapshot) and the load's writes (in the WAL); the times are there and in
// the order a restart goes through; fsync loses nothing acknowledged.
TEST(RecoveryE2E, TarantoolWithEachWalModeIsKilledRestartedAndMeasured) {
  const std::string dir = TempDir();
  Outcome out = RunMemstand({"scenario", "run", "recovery", "--only", "tarantool-wal-write,tarantool-wal-fsync",
                             "--memory", "8MiB,24MiB", "--kill-at", "1.5s", "--after", "2s", "--rate", "300", "--json",
                             dir + "/r.json", "--evidence", dir + "/ev", "-q"},
                            240);
  ASSERT_EQ(out.exit_code, 0) << out.output;
  const auto doc = ReadJson(dir + "/r.json");
  ASSERT_EQ(doc["cells"].size(), 4u) << out.output;
  for (const auto& c : doc["cells"]) {
    const std::string name = c["configuration"].get<std::string>() + " " + std::to_string(c["memory"].get<uint64_t>());
    EXPECT_TRUE(c["failure"].is_null()) << name << "\n" << out.output;
    EXPECT_EQ(c["system"], "tarantool") << name;
    EXPECT_GT(c["used_memory"].get<int64_t>(), 0) << name;
    EXPECT_GT(c["snap_bytes"].get<int64_t>(), 0) << name;
    EXPECT_GT(c["xlog_bytes"].get<int64_t>(), 0) << name;
    for (const char* t : {"kill_s", "restart_s", "accept_s", "loaded_s", "first_write_s", "first_read_s",
                          "load_seconds", "seconds_per_gb"}) {
      ASSERT_TRUE(c[t].is_number()) << name << " " << t;
    }
    // A restart's order: killed, started again, a connection accepted, loading done.
    EXPECT_GT(c["restart_s"].get<double>(), c["kill_s"].get<double>()) << name;
    EXPECT_GE(c["accept_s"].get<double>(), c["restart_s"].get<double>()) << name;
    EXPECT_GE(c["loaded_s"].get<double>(), c["accept_s"].get<double>()) << name;
    // An acknowledged operation after the kill came from the new process.
    EXPECT_GT(c["first_write_s"].get<double>(), c["restart_s"].get<double>()) << name;
    EXPECT_GT(c["first_read_s"].get<double>(), c["restart_s"].get<double>()) << name;
    EXPECT_GT(c["writes_ok"].get<uint64_t>(), 0u) << name;
    const int64_t fill = c["fill_keys"].get<int64_t>();
    EXPECT_GT(fill, 1000) << name;
    EXPECT_EQ(c["fill_present"], fill) << name;  // the fill is in the snapshot
    EXPECT_EQ(c["unexpected"], 0) << name;
    ASSERT_EQ(c["checks"].size(), 1u) << name;
    // The check read every key back (a could-not-run fails the run: exit 1).
    EXPECT_NE(c["checks"][0]["verdict"], "could not run") << name << "\n" << out.output;
    if (c["configuration"] == "tarantool-wal-fsync") {
      EXPECT_EQ(c["lost"], 0) << name;
      EXPECT_EQ(c["checks"][0]["verdict"], "pass") << name << "\n" << out.output;
    }
  }
  EXPECT_TRUE(doc["anomalies"].empty());
  EXPECT_NE(out.output.find("tarantool-wal-fsync"), std::string::npos) << out.output;
}

}  // namespace
}  // namespace memstand::e2e

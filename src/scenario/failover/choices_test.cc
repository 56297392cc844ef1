// failover's, recovery's and partition's rows of the choice map from crafted results:
// each figure the range over the runs' cells with its N, never run 1's alone.
#include <gtest/gtest.h>

#include "report/choice_map.h"
#include "report_util.h"
#include "scenario/failover/failover.h"
#include "scenario/partition/partition.h"
#include "scenario/recovery/recovery.h"

namespace memstand {
namespace {

using nlohmann::json;
using testutil::ChoiceRowOf;

TEST(ChoiceMapTest, FailoverRowsAreRangesOverTheRunsKillCells) {
  json d = {{"scenario", "failover"}, {"cells", json::array()}};
  for (int run : {1, 2, 3}) {
    d["cells"].push_back({{"run", run}, {"configuration", "etcd"}, {"fault", "kill"}, {"outage_s", 1.0 + run},
                          {"lost", 0}, {"not_linearizable", run == 2 ? 1 : 0}});
  }
  // Another fault's cell is not the kill's.
  d["cells"].push_back({{"run", 1}, {"configuration", "etcd"}, {"fault", "pause"}, {"outage_s", 50.0}});
  const auto rows = ChoiceMap({{"fo.json", d}}, FailoverChoiceRows(), {});
  const ChoiceRow& etcd = ChoiceRowOf(rows, "etcd, 3 members (Raft)");
  EXPECT_EQ(etcd.support, "measured here");
  EXPECT_EQ(etcd.pay, "writes out for 2.00 3.00 4.00 s (min median max, N=3) after the kill; 0 0 0 (min median max, "
                      "N=3) acknowledged write(s) lost, 0 0 1 (min median max, N=3) read(s) not linearizable, per run");
  EXPECT_EQ(ChoiceRowOf(rows, "Redis Cluster, a replica per master (asynchronous)").support, "not measured here");
}

TEST(ChoiceMapTest, RecoveryRowsAreRangesPerSizeOverTheRuns) {
  json d = {{"scenario", "recovery"}, {"cells", json::array()}};
  for (int run : {1, 2}) {
    for (uint64_t mib : {32, 128}) {
      d["cells"].push_back({{"run", run}, {"configuration", "rdb"}, {"memory", mib << 20},
                            {"seconds_per_gb", double(mib) / 32 + run}, {"lost", run == 2 && mib == 128 ? 3 : 0}});
    }
  }
  const auto rows = ChoiceMap({{"rc.json", d}}, RecoveryChoiceRows(), {});
  EXPECT_EQ(ChoiceRowOf(rows, "Redis with RDB snapshots").pay,
            "2.00 2.50 3.00 s/GB (min median max, N=2) at 32 MiB, 5.00 5.50 6.00 s/GB (min median max, N=2) at 128 "
            "MiB; 0 0 3 (min median max, N=4) key(s) with acknowledged writes lost in the kill, per cell");
}

TEST(ChoiceMapTest, PartitionRowsAreRangesOverTheRuns) {
  json d = {{"scenario", "partition"}, {"cells", json::array()}};
  for (int run : {1, 2, 3}) {
    d["cells"].push_back({{"run", run}, {"side", "with-primary"}, {"min_replicas_to_write", 0}, {"failure", nullptr},
                          {"lost", uint64_t(10 * run)}, {"old_primary_writes_ok", uint64_t(100 * run)}});
  }
  const auto rows = ChoiceMap({{"pa.json", d}}, PartitionChoiceRows(), {});
  EXPECT_EQ(ChoiceRowOf(rows, "Redis primary + 2 replicas + 3 Sentinels (asynchronous)").pay,
            "10 20 30 (min median max, N=3) acknowledged write(s) lost in a partition that left the clients with "
            "the old primary (100 200 300 (min median max, N=3) acknowledged by it from the cut on), per run");
  EXPECT_EQ(ChoiceRowOf(rows, "the same with min-replicas-to-write 1").support, "not measured here");
}

}  // namespace
}  // namespace memstand

// mvcc-quota's rows of the choice map from a crafted result: each figure the range over
// the complete runs with its N, and the quota the runs had, not a constant.
#include <gtest/gtest.h>

#include "report/choice_map.h"
#include "report_util.h"
#include "scenario/mvcc_quota/mvcc_quota.h"

namespace memstand {
namespace {

using nlohmann::json;
using testutil::ChoiceRowOf;

constexpr char kEtcd128[] = "etcd with a quota of 128 MiB (the scenario's --quota; etcd's own default is 2 GiB)";

json Run(bool ok, int first_failed, int64_t at_failure, int64_t delta, double ratio) {
  return {{"ok", ok},
          {"etcd", {{"first_failed_write", first_failed}, {"error", "mvcc: database space exceeded"},
                    {"db_size_at_failure", at_failure}, {"db_size_after_recovery", 6914048}}},
          {"redis", {{"attempted", 50000}, {"successful", 50000}, {"errors", 0}, {"used_memory_delta", delta}}},
          {"ratio", ratio}};
}

json Result() {
  return {{"scenario", "mvcc-quota"},
          {"profile", {{"keys", 5000}, {"quota_bytes", 128 << 20}}},
          {"runs_detail", {Run(true, 48556, 134000000, 6835136, 9.82), Run(true, 48100, 134100000, 6800000, 9.9),
                           Run(true, 49000, 134200000, 6900000, 9.7),
                           Run(false, 1, 1, 1, 1.0)}}};  // a failed run: not in the ranges
}

TEST(ChoiceMapTest, MvccRowsAreRangesOverTheCompleteRunsAtTheQuotaTheyRan) {
  const auto rows = ChoiceMap({{"mq.json", Result()}}, MvccQuotaChoiceRows(), {});
  const ChoiceRow& etcd = ChoiceRowOf(rows, kEtcd128);
  EXPECT_EQ(etcd.support, "measured here");
  EXPECT_NE(etcd.pay.find("writes fail from write 48100 48556 49000 (min median max, N=3) ('mvcc: database space "
                          "exceeded') in 3 of 3 runs"),
            std::string::npos)
      << etcd.pay;
  EXPECT_NE(etcd.pay.find("against the 128 MiB quota"), std::string::npos) << etcd.pay;
  EXPECT_EQ(etcd.source, "mvcc-quota: etcd at 128 MiB: first failed write 48100 48556 49000 (min median max, N=3) "
                         "(mq.json)");
  const ChoiceRow& redis = ChoiceRowOf(rows, "Redis");
  EXPECT_NE(redis.pay.find("used memory + 6800000 6835136 6900000 B (min median max, N=3)"), std::string::npos)
      << redis.pay;
  EXPECT_NE(redis.pay.find("grew 9.7x 9.8x 9.9x (min median max, N=3) as much"), std::string::npos) << redis.pay;
}

TEST(ChoiceMapTest, MvccEtcdRowNamesTheQuotaOnlyFromAResult) {
  const auto none = ChoiceMap({}, MvccQuotaChoiceRows(), {});
  EXPECT_EQ(none.at(0).system, "etcd at the quota of the scenario's --quota (etcd's own default: 2 GiB)");
  EXPECT_EQ(none.at(0).support, "not measured here");
  json doc = Result();
  doc["profile"]["quota_bytes"] = int64_t{2} << 30;
  EXPECT_EQ(ChoiceMap({{"mq.json", doc}}, MvccQuotaChoiceRows(), {}).at(0).system,
            "etcd with a quota of 2 GiB (the scenario's --quota; etcd's own default is 2 GiB)");
  // No complete run: not measured, and the system is the one without a quota.
  for (json& r : doc["runs_detail"]) r["ok"] = false;
  const auto failed = ChoiceMap({{"mq.json", doc}}, MvccQuotaChoiceRows(), {});
  EXPECT_EQ(failed.at(0).support, "not measured here");
  EXPECT_EQ(failed.at(0).system, none.at(0).system);
}

// A result of before runs_detail: its top level is one run's figures, N=1.
TEST(ChoiceMapTest, MvccRowsOfATopLevelOnlyResultAreOneRun) {
  const json mq = {{"scenario", "mvcc-quota"},
                   {"profile", {{"keys", 5000}, {"quota_bytes", 67108864}}},
                   {"etcd", {{"first_failed_write", 48556}, {"error", "mvcc: database space exceeded"},
                             {"db_size_at_failure", 67133440}, {"db_size_after_recovery", 6914048}}},
                   {"redis", {{"attempted", 50000}, {"successful", 50000}, {"errors", 0}, {"used_memory_delta", 6835136}}},
                   {"ratio", 9.82}};
  const auto rows = ChoiceMap({{"mq.json", mq}}, MvccQuotaChoiceRows(), {});
  const ChoiceRow& etcd = rows.at(0);
  EXPECT_EQ(etcd.system, "etcd with a quota of 64 MiB (the scenario's --quota; etcd's own default is 2 GiB)");
  EXPECT_NE(etcd.pay.find("writes fail from write 48556 (N=1)"), std::string::npos)
      << etcd.pay;
  EXPECT_NE(ChoiceRowOf(rows, "Redis").pay.find("grew 9.8x (N=1) as much"),
            std::string::npos)
      << ChoiceRowOf(rows, "Redis").pay;
}

// The intended profile's row: etcd as designed, its figures over the complete runs that
// ran it, the retention from the result; not measured when no run has it.
TEST(ChoiceMapTest, MvccIntendedRowIsTheRangeOverTheRunsThatRanIt) {
  constexpr char kIntended[] = "etcd as designed: small metadata written rarely, auto-compaction every 2s";
  auto run = [](bool ok, int64_t peak, bool compacted) {
    return json{{"ok", ok},
                {"intended", {{"failed", 0}, {"db_size_peak", peak}, {"peak_share_of_quota", double(peak) / (64 << 20)},
                              {"compacted", compacted}}}};
  };
  json doc = {{"scenario", "mvcc-quota"},
              {"profiles", {"intended"}},
              {"profile", {{"quota_bytes", 64 << 20},
                           {"intended", {{"keys", 100}, {"writes", 1000}, {"value_size", 256}, {"rate_per_s", 100},
                                         {"auto_compaction_retention", "2s"}}}}},
              {"runs_detail", {run(true, 1048576, true), run(true, 2097152, false), run(false, 9, true)}}};
  const auto rows = ChoiceMap({{"mq.json", doc}}, MvccQuotaChoiceRows(), {});
  const ChoiceRow& row = ChoiceRowOf(rows, kIntended);
  EXPECT_EQ(row.support, "measured here");
  EXPECT_EQ(row.task, "configuration, leader election, service discovery");
  EXPECT_NE(row.pay.find("1000 writes of 256 B over 100 keys at 100/s: 0 0 0 (min median max, N=2) failed"), std::string::npos)
      << row.pay;
  EXPECT_NE(row.pay.find("a database of at most 1048576 1572864 2097152 B (min median max, N=2)"), std::string::npos) << row.pay;
  EXPECT_NE(row.pay.find("(1.56 2.34 3.12 % (min median max, N=2) of the 64 MiB quota), compaction seen in 1 of 2 runs"),
            std::string::npos)
      << row.pay;
  // The misuse's rows are not measured by this result (it ran the intended profile only).
  EXPECT_EQ(rows.at(0).support, "not measured here");
  for (json& r : doc["runs_detail"]) r.erase("intended");
  const auto none = ChoiceMap({{"mq.json", doc}}, MvccQuotaChoiceRows(), {});
  EXPECT_EQ(none.back().support, "not measured here");
  EXPECT_EQ(none.back().system, "etcd as designed: small metadata written rarely, auto-compaction on");
}

}  // namespace
}  // namespace memstand

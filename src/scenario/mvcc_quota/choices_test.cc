// mvcc-quota's rows of the choice map from a crafted result.
#include <gtest/gtest.h>

#include "report/choice_map.h"
#include "report_util.h"
#include "scenario/mvcc_quota/mvcc_quota.h"

namespace memstand {
namespace {

using nlohmann::json;
using testutil::ChoiceRowOf;

TEST(ChoiceMapTest, MvccRows) {
  const json mq = {{"scenario", "mvcc-quota"},
                   {"profile", {{"keys", 5000}, {"quota_bytes", 67108864}}},
                   {"etcd", {{"first_failed_write", 48556}, {"error", "mvcc: database space exceeded"},
                             {"db_size_at_failure", 67133440}, {"db_size_after_recovery", 6914048}}},
                   {"redis", {{"attempted", 50000}, {"successful", 50000}, {"errors", 0}, {"used_memory_delta", 6835136}}},
                   {"ratio", 9.82}};
  const auto rows = ChoiceMap({{"mq.json", mq}}, MvccQuotaChoiceRows(), {});
  const ChoiceRow& etcd = ChoiceRowOf(rows, "etcd at its default 64 MiB quota");
  EXPECT_EQ(etcd.support, "measured here");
  EXPECT_NE(etcd.pay.find("writes fail from write 48556"), std::string::npos) << etcd.pay;
  EXPECT_NE(ChoiceRowOf(rows, "Redis").pay.find("grew 9.8x as much"), std::string::npos)
      << ChoiceRowOf(rows, "Redis").pay;
}

}  // namespace
}  // namespace memstand

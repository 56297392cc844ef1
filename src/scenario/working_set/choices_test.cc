// working-set's rows of the choice map from a crafted result: worded by the outcome
// measured, naming the scenario, the figure and the file.
#include <gtest/gtest.h>

#include "report/choice_map.h"
#include "report_util.h"
#include "scenario_contract_util.h"
#include "scenario/working_set/working_set.h"

namespace memstand {
namespace {

using nlohmann::json;
using testutil::ChoiceRowOf;
using testutil::WorkingSetChoiceResult;

TEST(ChoiceMapTest, MeasuredRowsNameTheirScenarioFigureAndFile) {
  const auto rows = ChoiceMap({{"ws.json", WorkingSetChoiceResult()}}, WorkingSetChoiceRows(), {});
  const ChoiceRow& lru = ChoiceRowOf(rows, "Redis, maxmemory-policy allkeys-lru");
  EXPECT_EQ(lru.support, "measured here");
  EXPECT_EQ(lru.pay, "168900 of 200000 records evicted, 31100 kept (run 1 of 1)");
  EXPECT_EQ(lru.source, "working-set: redis-allkeys-lru evicts, first eviction with write 31742 (ws.json)");
  const ChoiceRow& noev = ChoiceRowOf(rows, "Redis, maxmemory-policy noeviction");
  EXPECT_NE(noev.pay.find("writes refused from write 31408 on ('OOM command not allowed')"), std::string::npos)
      << noev.pay;
  EXPECT_EQ(ChoiceRowOf(rows, "memcached -m 8").faster,
            "keeps every record: the data lives on disk, memory holds a part");
}

}  // namespace
}  // namespace memstand

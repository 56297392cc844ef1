// stretched-cache's JSON contract (json.h), without servers: a report filled from a
// fabricated run of blocks (d) and (e), its JSON read back by its charts (each with
// data) and its choice-map rows (each measured here).
#include <gtest/gtest.h>

#include "scenario/stretched_cache/figures.h"
#include "scenario/stretched_cache/report.h"
#include "scenario/stretched_cache/stretched_cache.h"
#include "scenario_contract_util.h"

namespace memstand {
namespace {

Series FabricatedSeries(const std::string& block, const std::string& condition, ClientMode mode,
                        const std::string& path, int64_t one_way_ns, const std::string& relay_mode) {
  Series s;
  s.block = block;
  s.condition = condition;
  s.mode = mode;
  s.path = path;
  s.one_way_ns = one_way_ns;
  s.relay_mode = relay_mode;
  for (int i = 1; i <= 3; ++i) {
    OpSample o;
    o.index = o.position = i;
    o.ns = 2 * one_way_ns + 100'000 * i;
    o.wait = mode == ClientMode::kGet ? -1 : 1;
    s.samples.push_back(o);
  }
  return s;
}

TEST(StretchedCacheContractTest, ItsJsonFeedsEveryChartAndEveryChoiceRow) {
  StretchedCacheOptions o;
  o.distances_ns = {5'000'000, 20'000'000};
  StretchedRun run;
  for (int64_t d : o.distances_ns) {
    for (ClientMode m : {ClientMode::kSequential, ClientMode::kPipelined}) {
      for (const char* relay : {"pipelined", "serializing"}) {
        run.series.push_back(FabricatedSeries("d", DistanceText(d) + " " + relay, m, "direct", d, relay));
      }
    }
    for (const char* relay : {"pipelined", "serializing"}) {
      for (const char* path : {"direct", "relay"}) {
        run.series.push_back(FabricatedSeries("e", DistanceText(d), ClientMode::kGet, path, d, relay));
      }
    }
  }
  ScenarioReport report;
  report.scenario = "stretched-cache";
  report.runs_made = 1;
  FillStretchedReport(o, {run}, false, &report);
  const ReportInput in = testutil::ContractInput(report, false);
  // One chart: every (relay mode, client) against distance, the round trip, the calibration GET
  // through each relay mode.
  testutil::ExpectEveryChartHasData(StretchedCacheCharts, in, 1);
  testutil::ExpectEveryRowMeasured(in, StretchedCacheChoiceRows());
}

}  // namespace
}  // namespace memstand

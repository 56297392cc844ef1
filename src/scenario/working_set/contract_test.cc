// working-set's JSON contract (json.h), without servers: a report filled from fabricated
// runs of the default configurations (one evicting, one rejecting, one keeping all, ...),
// its JSON read back by its charts (each with data) and its choice-map rows (each
// measured here).
#include <gtest/gtest.h>

#include "scenario/working_set/report.h"
#include "scenario/working_set/working_set.h"
#include "scenario_contract_util.h"

namespace memstand {
namespace {

constexpr int64_t kRecords = 30, kPortion = 10;

// A run of `kRecords` writes whose first event (an eviction or a rejection) is write 14.
WorkingSetConfigRun FabricatedRun(const std::string& outcome) {
  WorkingSetConfigRun r;
  r.ran = true;
  r.attempted = kRecords;
  const bool evicts = outcome == "evicts", rejects = outcome == "rejects";
  r.rejected = rejects ? kRecords - 13 : 0;
  r.successful = kRecords - r.rejected;
  r.final.evicted = evicts ? kRecords - 13 : 0;
  r.final.present = r.successful - r.final.evicted;
  r.final.memory = 8 << 20;
  r.final.raw["vinyl_disk_data"] = 4096;
  if (rejects) {
    r.first_rejected_write = 14;
    r.first_error = "OOM command not allowed";
    r.rejection_in = PortionOf(14, kPortion, kRecords);
  }
  if (evicts) {
    r.eviction_in = PortionOf(14, kPortion, kRecords);
    r.exact_eviction = 14;
    r.exact_note = "the repeat's first eviction came with write 14";
  }
  for (int64_t written = kPortion; written <= kRecords; written += kPortion) {
    WorkingSetPortion p;
    p.written = written;
    p.rejected = rejects ? std::max<int64_t>(0, written - 13) : 0;
    p.successful = written - p.rejected;
    p.counters.evicted = evicts ? std::max<int64_t>(0, written - 13) : 0;
    p.counters.present = p.successful - p.counters.evicted;
    r.portions.push_back(p);
  }
  r.outcome = WorkingSetOutcome(r.final.evicted, r.rejected);
  r.invariants = WorkingSetInvariants(r.attempted, r.successful, r.rejected, r.final.evicted, r.final.present);
  return r;
}

TEST(WorkingSetContractTest, ItsJsonFeedsEveryChartAndEveryChoiceRow) {
  WorkingSetOptions o;
  o.records = kRecords;
  o.portion = kPortion;
  o.configs = DefaultWorkingSetConfigs();
  std::vector<WorkingSetConfiguration> states;
  for (const ServerConfig& c : o.configs) {
    WorkingSetConfiguration st;
    st.config = c;
    st.description = "fabricated";
    const bool rejects = c.name == "redis-noeviction" || c.name == "tarantool-memtx";
    st.runs.push_back(FabricatedRun(c.engine == "vinyl" ? "keeps all" : rejects ? "rejects" : "evicts"));
    states.push_back(st);
  }
  ScenarioReport report;
  report.scenario = "working-set";
  report.runs_requested = report.runs_made = 1;
  FillWorkingSetReport(o, 1, states, false, &report);
  ASSERT_EQ(report.verdict, ScenarioVerdict::kOk) << ::testing::PrintToString(report.verdict_lines);
  const ReportInput in = testutil::ContractInput(report, false);
  // One chart per configuration: present, evicted and rejected after each portion.
  testutil::ExpectEveryChartHasData(WorkingSetCharts, in, 5);
  testutil::ExpectEveryRowMeasured(in, WorkingSetChoiceRows());
}

}  // namespace
}  // namespace memstand

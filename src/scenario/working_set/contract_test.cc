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
    p.seconds = 0.001 * double(written);  // 10 writes in 10, 20, 30 ms: 1000, 500, 333 a second
    r.portions.push_back(p);
  }
  r.outcome = WorkingSetOutcome(r.final.evicted, r.rejected);
  r.invariants = WorkingSetInvariants(r.attempted, r.successful, r.rejected, r.final.evicted, r.final.present);
  return r;
}

// --reads zipf: 10 reads, 6 hits and 4 misses as the replies and the server counted them;
// vinyl's split 7 from memory, 3 from disk.
WorkingSetReads FabricatedReads(bool vinyl) {
  WorkingSetReads r;
  r.distribution = ReadDistribution::kZipf;
  r.rate = 2000;
  r.high = kRecords;
  r.reads = 10;
  r.hits = 6;
  r.misses = 4;
  r.server_hits = 6;
  r.server_misses = 4;
  r.hit_ns.RecordN(100'000, 6);
  r.miss_ns.RecordN(40'000, 4);
  r.vinyl = vinyl;
  if (vinyl) {
    r.memory_ns.RecordN(30'000, 7);
    r.disk_ns.RecordN(500'000, 3);
    r.server = {{"cache_lookup", 10}, {"cache_get", 7}, {"disk_lookup", 3}};
  }
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
    st.runs.back().reads = FabricatedReads(c.engine == "vinyl");
    states.push_back(st);
  }
  o.reads.distribution = ReadDistribution::kZipf;
  ScenarioReport report;
  report.scenario = "working-set";
  report.runs_requested = report.runs_made = 1;
  FillWorkingSetReport(o, 1, states, false, &report);
  ASSERT_EQ(report.verdict, ScenarioVerdict::kOk) << ::testing::PrintToString(report.verdict_lines);
  const ReportInput in = testutil::ContractInput(report, false);
  // One chart per configuration: present, evicted and rejected after each portion; one of
  // every configuration's writes a second per portion; with --reads, one of the hit ratios
  // and one of the read latencies.
  testutil::ExpectEveryChartHasData(WorkingSetCharts, in, 8);
  testutil::ExpectEveryRowMeasured(in, WorkingSetChoiceRows());
}

// --writers 1,16: each setting a configuration of its own; each portion's writes a second
// in the JSON and the failure point's block with the portion before the first event.
TEST(WorkingSetContractTest, EachPortionHasItsThroughputAndEachSettingItsFailurePoint) {
  WorkingSetOptions o;
  o.records = kRecords;
  o.portion = kPortion;
  o.writers = {1, 16};
  o.configs = {DefaultWorkingSetConfigs()[1]};  // redis-noeviction
  std::vector<WorkingSetConfiguration> states;
  for (int w : o.writers) {
    WorkingSetConfiguration st;
    st.config = o.configs[0];
    st.config.name += "-w" + std::to_string(w);
    st.writers = w;
    st.description = "fabricated";
    st.runs.push_back(FabricatedRun("rejects"));
    states.push_back(st);
  }
  ScenarioReport report;
  report.scenario = "working-set";
  report.runs_requested = report.runs_made = 1;
  FillWorkingSetReport(o, 1, states, false, &report);
  const nlohmann::json& configs = report.json["configurations"];
  ASSERT_EQ(configs.size(), 2u);
  EXPECT_EQ(configs[1]["writers"], 16);
  const nlohmann::json& portions = configs[0]["runs"][0]["portions"];
  ASSERT_EQ(portions.size(), 3u);
  EXPECT_DOUBLE_EQ(portions[0]["writes_per_s"].get<double>(), 10 / 0.010);
  EXPECT_DOUBLE_EQ(portions[1]["writes_per_s"].get<double>(), 10 / 0.020);
  EXPECT_DOUBLE_EQ(portions[1]["seconds"].get<double>(), 0.020);
  // One writer: the first rejected write is exact; sixteen: the replies' order, no exact point.
  EXPECT_EQ(configs[0]["runs"][0]["exact_point"], 14);
  EXPECT_TRUE(configs[1]["runs"][0]["exact_point"].is_null());
  std::string block;
  for (const auto& [title, body] : report.blocks) {
    if (title.starts_with("Failure point per setting")) block = body;
  }
  // The first event is in (10; 20]: the portion before it ran at 1000/s, its own at 500/s;
  // the whole load 30 writes in 60 ms.
  EXPECT_NE(block.find("redis-noeviction-w1"), std::string::npos) << block;
  EXPECT_NE(block.find("redis-noeviction-w16"), std::string::npos) << block;
  EXPECT_NE(block.find("(10; 20]           1000            500            500"), std::string::npos) << block;
}

}  // namespace
}  // namespace memstand

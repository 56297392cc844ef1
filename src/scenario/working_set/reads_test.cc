// working-set's reads without servers: --reads and its companions (a bad value is
// refused naming its flag), the zipf key order, the reads' invariants, and their report
// pieces (the block, the JSON, the CSV row) from fabricated reads.
#include "scenario/working_set/reads.h"

#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <numeric>

#include "scenario/working_set/report.h"
#include "scenario/working_set/working_set.h"

namespace memstand {
namespace {

// The error of working-set's flags given `args` ("" when they are accepted).
std::string FlagError(std::vector<std::string> args) {
  CLI::App app;
  ScenarioPrepare prepare = SetupWorkingSet(&app);
  args.insert(args.begin(), "working-set");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  app.parse(static_cast<int>(argv.size()), argv.data());
  auto run = prepare();
  if (run.ok()) return "";
  EXPECT_EQ(run.status().code(), Status::Code::kInvalidArgument);
  return run.status().message();
}

TEST(WorkingSetReadsFlagsTest, AcceptsTheThreeDistributionsAndTheirRateAndCount) {
  EXPECT_EQ(FlagError({}), "");
  EXPECT_EQ(FlagError({"--reads", "uniform"}), "");
  EXPECT_EQ(FlagError({"--reads", "zipf", "--read-rate", "500", "--read-count", "100"}), "");
  EXPECT_EQ(FlagError({"--reads", "gaussian"}), "");
  EXPECT_EQ(*ParseReadDistribution("zipf"), ReadDistribution::kZipf);
  EXPECT_STREQ(ReadDistributionName(ReadDistribution::kGaussian), "gaussian");
}

TEST(WorkingSetReadsFlagsTest, ABadValueIsRefusedNamingItsFlag) {
  EXPECT_EQ(FlagError({"--reads", "pareto"}),
            "--reads must be uniform, zipf or gaussian, got 'pareto'");
  EXPECT_EQ(FlagError({"--reads", "Zipf"}),
            "--reads must be uniform, zipf or gaussian, got 'Zipf'");
  EXPECT_EQ(FlagError({"--reads", "none"}),
            "--reads must be uniform, zipf or gaussian, got 'none'");
  EXPECT_EQ(FlagError({"--reads", "zipf", "--read-rate", "0"}),
            "--read-rate must be 1..100000 reads a second, got 0");
  EXPECT_EQ(FlagError({"--reads", "zipf", "--read-rate", "1e9"}),
            "--read-rate must be 1..100000 reads a second, got 1000000000");
  EXPECT_EQ(FlagError({"--reads", "zipf", "--read-rate", "nan"}),
            "--read-rate must be 1..100000 reads a second, got nan");
  EXPECT_EQ(FlagError({"--reads", "zipf", "--read-count", "0"}),
            "--read-count must be 1..10000000, got 0");
  EXPECT_EQ(FlagError({"--reads", "zipf", "--read-count", "-3"}),
            "--read-count must be 1..10000000, got -3");
  EXPECT_EQ(FlagError({"--reads", "zipf", "--read-count", "10000001"}),
            "--read-count must be 1..10000000, got 10000001");
  // The companions alone would be ignored silently: refused.
  EXPECT_EQ(FlagError({"--read-rate", "100"}),
            "--read-rate: only with --reads uniform|zipf|gaussian");
  EXPECT_EQ(FlagError({"--read-count", "100"}),
            "--read-count: only with --reads uniform|zipf|gaussian");
}

TEST(WorkingSetReadsKeysTest, ZipfScattersItsRanksOverTheIdsByAPermutationOfTheSeed) {
  std::vector<uint32_t> order = ReadKeyOrder(ReadDistribution::kZipf, 1000, 7);
  ASSERT_EQ(order.size(), 1000u);
  EXPECT_EQ(order,
            ReadKeyOrder(ReadDistribution::kZipf, 1000, 7));  // the same seed, the same order
  EXPECT_NE(order, ReadKeyOrder(ReadDistribution::kZipf, 1000, 8));
  EXPECT_NE(order[0], 1u);  // rank 1 (the hottest) is not the first record written
  std::sort(order.begin(), order.end());
  std::vector<uint32_t> ids(1000);
  std::iota(ids.begin(), ids.end(), 1u);
  EXPECT_EQ(order, ids);                                                    // every id once
  EXPECT_TRUE(ReadKeyOrder(ReadDistribution::kUniform, 1000, 7).empty());   // the identity
  EXPECT_TRUE(ReadKeyOrder(ReadDistribution::kGaussian, 1000, 7).empty());  // around the middle id
}

// 10 reads: 7 hits (100..700 µs) and 3 misses (50 µs each); vinyl: 6 from memory, 4 from disk.
WorkingSetReads Fabricated(bool vinyl) {
  WorkingSetReads r;
  r.distribution = ReadDistribution::kZipf;
  r.rate = 2000;
  r.high = 30;
  r.reads = 10;
  r.hits = 7;
  r.misses = 3;
  r.seconds = 0.005;
  for (int i = 1; i <= 7; ++i) r.hit_ns.Record(i * 100'000);
  for (int i = 0; i < 3; ++i) r.miss_ns.Record(50'000);
  r.vinyl = vinyl;
  if (vinyl) {
    r.server_source = "box.space.products.index[0]:stat(): get.rows (hits) of lookup (reads)";
    r.server = {{"lookup", 10},   {"get", 7},         {"cache_lookup", 10},
                {"cache_get", 6}, {"disk_lookup", 5}, {"select", 10}};
    for (int i = 0; i < 6; ++i) r.memory_ns.Record(20'000);
    for (int i = 0; i < 4; ++i) r.disk_ns.Record(900'000);
    r.cache_hits = 6;
    r.pages_read = 4;
  } else {
    r.server_source = "INFO stats keyspace_hits / keyspace_misses";
    r.server = {{"keyspace_hits", 7}, {"keyspace_misses", 3}};
  }
  r.server_hits = 7;
  r.server_misses = 3;
  return r;
}

bool ReadInvariantsOk(const std::vector<Invariant>& v) {
  return std::all_of(v.begin(), v.end(), [](const Invariant& i) { return i.ok(); });
}

TEST(WorkingSetReadsInvariantsTest, HoldWhenTheCountsAgreeAndBreakWhenTheServerDisagrees) {
  EXPECT_EQ(WorkingSetReadInvariants(Fabricated(false)).size(), 4u);
  EXPECT_TRUE(ReadInvariantsOk(WorkingSetReadInvariants(Fabricated(false))));
  EXPECT_EQ(WorkingSetReadInvariants(Fabricated(true)).size(), 5u);  // memory N + disk N == reads
  EXPECT_TRUE(ReadInvariantsOk(WorkingSetReadInvariants(Fabricated(true))));
  WorkingSetReads off = Fabricated(false);
  off.server_hits = 8;
  EXPECT_FALSE(ReadInvariantsOk(WorkingSetReadInvariants(off)));
  // memtx: no hit counter; its SELECT requests must be the reads.
  WorkingSetReads memtx = Fabricated(false);
  memtx.server_hits.reset();
  memtx.server_misses.reset();
  memtx.server = {{"select", 10}};
  auto inv = WorkingSetReadInvariants(memtx);
  ASSERT_EQ(inv.size(), 3u);
  EXPECT_EQ(inv[2].name, "server SELECT requests == reads");
  EXPECT_TRUE(ReadInvariantsOk(inv));
  memtx.server["select"] = 11;
  EXPECT_FALSE(ReadInvariantsOk(WorkingSetReadInvariants(memtx)));
}

ScenarioReport ReportOf(const std::vector<WorkingSetReads>& reads) {
  WorkingSetOptions o;
  o.records = 30;
  o.portion = 10;
  o.reads.distribution = ReadDistribution::kZipf;
  std::vector<WorkingSetConfiguration> states;
  const std::vector<ServerConfig> defaults = DefaultWorkingSetConfigs();
  for (size_t i = 0; i < reads.size(); ++i) {
    WorkingSetConfiguration st;
    st.config = reads[i].vinyl ? defaults[4] : defaults[0];
    WorkingSetConfigRun r;
    r.ran = true;
    r.attempted = r.successful = r.final.present = 30;
    r.outcome = "keeps all";
    r.reads = reads[i];
    r.invariants = WorkingSetReadInvariants(reads[i]);
    st.runs.push_back(r);
    states.push_back(st);
  }
  ScenarioReport report;
  report.scenario = "working-set";
  report.runs_requested = report.runs_made = 1;
  FillWorkingSetReport(o, 1, states, false, &report);
  return report;
}

std::string Block(const ScenarioReport& report, const std::string& prefix) {
  for (const auto& [title, body] : report.blocks) {
    if (title.starts_with(prefix)) return body;
  }
  return "";
}

TEST(WorkingSetReadsReportTest, TheBlockPrintsBothHitRatiosTheLatenciesWithTheirNAndVinylsTiers) {
  const ScenarioReport report = ReportOf({Fabricated(false), Fabricated(true)});
  const std::string block = Block(report, "Reads after the load");
  EXPECT_NE(
      block.find(
          "redis-allkeys-lru: 10 zipf reads of ids 1..30 in 0.01 s (2000/s for 2000/s asked; 0 "
          "sent "
          "more than a gap late)\n"
          "        hit ratio 0.7000 from the replies (7 hits, 3 misses); server (INFO stats "
          "keyspace_hits / keyspace_misses): hit ratio 0.7000 (7 hits, 3 misses): agree\n"
          "        latency of hits: p50 400.1 µs, p99 700.0 µs (N=7); of misses: p50 50.0 µs, p99 "
          "50.0 µs (N=3)\n"),
      std::string::npos)
      << block;
  EXPECT_NE(
      block.find(
          "from memory (tuple cache, in-memory level, or absent by the bloom filters) p50 20.0 µs, "
          "p99 20.0 µs (N=6); from disk (searched the runs) p50 900.0 µs, p99 900.0 µs (N=4)"),
      std::string::npos)
      << block;
  EXPECT_NE(block.find("tuple cache hits 6 of 10 reads; pages read from run files 4"),
            std::string::npos)
      << block;
  EXPECT_NE(
      block.find("the server: disk lookups 5, tuple cache hit ratio 0.6000 (6 of 10 lookups)"),
      std::string::npos)
      << block;
  EXPECT_NE(Block(report, "Invariants")
                .find("tarantool-vinyl run 1: memory N + disk N == reads: 10 == 10"),
            std::string::npos);
}

TEST(WorkingSetReadsReportTest, AMismatchIsMarkedInTheBlockAndTheJson) {
  WorkingSetReads off = Fabricated(false);
  off.server_hits = 6;
  off.server_misses = 4;
  const ScenarioReport report = ReportOf({off});
  EXPECT_NE(
      Block(report, "Reads after the load").find("hit ratio 0.6000 (6 hits, 4 misses): MISMATCH"),
      std::string::npos);
  const nlohmann::json& reads = report.json["configurations"][0]["runs"][0]["reads"];
  EXPECT_EQ(reads["agree"], false);
  EXPECT_EQ(report.verdict, ScenarioVerdict::kFailed);  // a broken invariant fails the run
}

TEST(WorkingSetReadsReportTest, TheJsonHasEachFigureAndTheCsvARowPerRun) {
  const ScenarioReport report = ReportOf({Fabricated(false), Fabricated(true)});
  EXPECT_EQ(report.json["reads"]["distribution"], "zipf");
  EXPECT_EQ(report.json["reads"]["count"], 20000);
  const nlohmann::json& redis = report.json["configurations"][0]["runs"][0]["reads"];
  EXPECT_EQ(redis["reads"], 10);
  EXPECT_EQ(redis["hits"], 7);
  EXPECT_EQ(redis["misses"], 3);
  EXPECT_DOUBLE_EQ(redis["hit_ratio"].get<double>(), 0.7);
  EXPECT_EQ(redis["server"]["hits"], 7);
  EXPECT_DOUBLE_EQ(redis["server"]["hit_ratio"].get<double>(), 0.7);
  EXPECT_EQ(redis["agree"], true);
  EXPECT_EQ(redis["latency"]["hit"]["n"], 7);
  EXPECT_EQ(redis["latency"]["miss"]["n"], 3);
  EXPECT_NEAR(redis["latency"]["miss"]["p50_us"].get<double>(), 50.0, 0.1);
  EXPECT_TRUE(redis["vinyl"].is_null());
  const nlohmann::json& vinyl = report.json["configurations"][1]["runs"][0]["reads"]["vinyl"];
  EXPECT_EQ(vinyl["memory"]["n"], 6);
  EXPECT_EQ(vinyl["disk"]["n"], 4);
  EXPECT_DOUBLE_EQ(vinyl["disk_share"].get<double>(), 0.4);
  EXPECT_DOUBLE_EQ(vinyl["cache_hit_ratio"].get<double>(), 0.6);
  EXPECT_EQ(vinyl["server_disk_lookups"], 5);
  const Table* table = nullptr;
  for (const Table& t : report.tables) {
    if (t.name == "reads") table = &t;
  }
  ASSERT_NE(table, nullptr);
  ASSERT_EQ(table->rows.size(), 2u);
  const std::vector<std::string>& row = table->rows[1];
  ASSERT_EQ(row.size(), table->columns.size());
  EXPECT_EQ(row[0], "tarantool-vinyl");
  EXPECT_EQ(row[3], "10");        // reads
  EXPECT_EQ(row[6], "0.700000");  // hit_ratio
  EXPECT_EQ(row[9], "agree");
  EXPECT_EQ(row[16], "6");            // memory_n
  EXPECT_EQ(row[19], "4");            // disk_n
  EXPECT_EQ(table->rows[0][16], "");  // no tiers outside vinyl
}

TEST(WorkingSetReadsReportTest, WithoutReadsNothingIsAdded) {
  WorkingSetOptions o;
  o.records = 30;
  o.portion = 10;
  ScenarioReport report;
  report.scenario = "working-set";
  report.runs_requested = report.runs_made = 1;
  FillWorkingSetReport(o, 1, {}, false, &report);
  EXPECT_TRUE(report.json["reads"].is_null());
  EXPECT_EQ(Block(report, "Reads after the load"), "");
  EXPECT_EQ(report.tables.size(), 3u);
}

}  // namespace
}  // namespace memstand

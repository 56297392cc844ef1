// compute-locality's JSON and evidence contract (json.h), without servers: a report
// filled from fabricated runs of every path of the three systems, its JSON and its
// evidence CSVs read back by its charts (each with data) and its choice-map rows (each
// measured here).
#include <gtest/gtest.h>

#include "scenario/compute_locality/compute_locality.h"
#include "scenario/compute_locality/report.h"
#include "scenario/compute_locality/run.h"
#include "scenario_contract_util.h"

namespace memstand {
namespace {

// A path returning `objects` records of `bytes_per_object` each, its calls taking about
// `ns`, every one with the reference's ids.
PathRun FabricatedPath(const std::string& system, const std::string& name, int64_t objects,
                       uint64_t bytes_per_object, int64_t ns, const std::vector<uint32_t>& ids) {
  PathRun pr;
  pr.path.system = system;
  pr.path.name = name;
  pr.first.objects = objects;
  pr.first.ids = ids;
  pr.first_bytes.objects = objects;
  pr.first_bytes.app = {static_cast<uint64_t>(objects) * bytes_per_object, 60};
  pr.first_bytes.kernel = {pr.first_bytes.app.read, pr.first_bytes.app.written};
  for (int pass = 1; pass <= 2; ++pass) {
    for (int rep = 1; rep <= 3; ++rep) {
      PathSample s = pr.first_bytes;
      s.pass = pass;
      s.rep = rep;
      s.position = 1;
      s.ns = ns + 1000 * rep;
      pr.samples.push_back(s);
    }
  }
  return pr;
}

SystemRun FabricatedSystem(const std::string& name, const std::vector<std::string>& paths,
                           const std::vector<uint32_t>& ids) {
  SystemRun sr;
  sr.name = name;
  sr.description = "fabricated";
  for (const std::string& p : paths) {
    const bool naive = p.rfind("naive", 0) == 0;
    sr.paths.push_back(FabricatedPath(name, p, naive ? 33276 : 10, p.find("short") != std::string::npos ? 40 : 200,
                                      naive ? 5'000'000 : 100'000, ids));
  }
  return sr;
}

TEST(ComputeLocalityContractTest, ItsJsonAndEvidenceFeedEveryChartAndEveryChoiceRow) {
  ComputeLocalityOptions o;
  const std::vector<uint32_t> ref = {11, 7, 3, 19, 5, 2, 13, 17, 23, 29};
  const std::vector<std::vector<SystemRun>> runs = {
      {FabricatedSystem("tarantool", {"naive", "local", "naive-short", "local-full", "local-scan"}, ref),
       FabricatedSystem("redis", {"naive", "local", "naive-short", "local-short"}, ref),
       FabricatedSystem("postgresql", {"naive", "local", "naive-short", "local-short"}, ref)}};
  ScenarioReport report;
  report.scenario = "compute-locality";
  report.runs_requested = report.runs_made = 1;
  FillComputeLocalityReport(o, ScenarioContext{}, ref, runs, &report);
  ASSERT_EQ(report.verdict, ScenarioVerdict::kOk) << ::testing::PrintToString(report.verdict_lines);
  // An evidence folder: per system, the ratios of each comparison and every timed call.
  const ReportInput in = testutil::ContractInput(report, true);
  testutil::ExpectEveryChartHasData(ComputeLocalityCharts, in, 6);
  testutil::ExpectEveryRowMeasured(in, ComputeLocalityChoiceRows());
}

}  // namespace
}  // namespace memstand

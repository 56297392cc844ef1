// Output formats of the real binary against a real redis-server: --json-format memtier
// and --samples.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "e2e/e2e_util.h"

namespace memstand::e2e {
namespace {

std::vector<std::string> ReadLines(const std::string& path) {
  std::ifstream f(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(f, line);) lines.push_back(line);
  return lines;
}

struct CsvSample {
  int64_t time_ns;
  std::string command;
  int64_t latency_ns;
};

// The data lines of a --samples file (the header checked and dropped).
std::vector<CsvSample> ReadSamples(const std::string& path) {
  std::vector<std::string> lines = ReadLines(path);
  EXPECT_FALSE(lines.empty());
  if (lines.empty()) return {};
  EXPECT_EQ(lines[0], "time_ns,command,latency_ns");
  std::vector<CsvSample> samples;
  for (size_t i = 1; i < lines.size(); ++i) {
    size_t a = lines[i].find(',');
    size_t b = lines[i].rfind(',');
    EXPECT_TRUE(a != std::string::npos && b > a) << lines[i];
    if (a == std::string::npos || b <= a) continue;
    samples.push_back({std::stoll(lines[i].substr(0, a)), lines[i].substr(a + 1, b - a - 1),
                       std::stoll(lines[i].substr(b + 1))});
  }
  return samples;
}

TEST(FormatsE2E, MemtierJsonTotalsOpsPerSec) {
  std::string json = TempDir() + "/memtier.json";
  Outcome out = RunMemstand({"run", "-n", "3000", "--json", json, "--json-format", "memtier"});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  auto j = ReadJson(json);
  ASSERT_TRUE(j.contains("ALL STATS")) << j.dump(2);
  const auto& totals = j["ALL STATS"]["Totals"];
  ASSERT_TRUE(totals["Ops/sec"].is_number_float());
  EXPECT_GT(totals["Ops/sec"].get<double>(), 0);
  EXPECT_EQ(totals["Count"], 3000);
  EXPECT_EQ(j["ALL STATS"]["Sets"]["Count"].get<int64_t>() +
                j["ALL STATS"]["Gets"]["Count"].get<int64_t>(),
            3000);
  // Ops/sec is Count over the run's duration, both as memtier writes them (ms).
  double duration_s = j["ALL STATS"]["Runtime"]["Total duration"].get<double>() / 1000;
  if (duration_s >= 0.05) {  // ms rounding matters below that
    EXPECT_NEAR(totals["Ops/sec"].get<double>() * duration_s, 3000, 3000 * 0.05);
  }
  const auto& pct = totals["Percentile Latencies"];
  EXPECT_GT(pct["p50.00"].get<double>(), 0);
  EXPECT_LE(pct["p50.00"].get<double>(), pct["p99.00"].get<double>());
  EXPECT_LE(pct["p99.90"].get<double>(), totals["Max Latency"].get<double>() * 1.001);
  EXPECT_EQ(j["run information"]["Requests per client"], 60);  // 3000 over 50 connections
  EXPECT_FALSE(j.contains("schema")) << "not memstand's own layout";
}

TEST(FormatsE2E, BadJsonFormatIsAUsageError) {
  std::string json = TempDir() + "/x.json";
  Outcome bad = RunMemstand({"run", "-n", "10", "--json", json, "--json-format", "xml"});
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("--json-format"), std::string::npos) << bad.output;
  Outcome no_file = RunMemstand({"run", "-n", "10", "--json-format", "memtier"});
  EXPECT_EQ(no_file.exit_code, 2) << no_file.output;
  EXPECT_NE(no_file.output.find("--json-format"), std::string::npos) << no_file.output;
}

TEST(FormatsE2E, SamplesBeyondTheCapAreAReservoir) {
  std::string csv = TempDir() + "/samples.csv";
  Outcome out = RunMemstand({"run", "-n", "3000", "--samples", csv, "--samples-cap", "1000"});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  std::vector<CsvSample> samples = ReadSamples(csv);
  EXPECT_EQ(samples.size(), 1000u);
  EXPECT_NE(out.output.find("raw samples: 1000 of 3000"), std::string::npos) << out.output;
  EXPECT_NE(out.output.find("uniform reservoir"), std::string::npos) << out.output;
}

TEST(FormatsE2E, SamplesUnderTheCapAreEveryRequest) {
  std::string dir = TempDir();
  std::string csv = dir + "/samples.csv", json = dir + "/run.json";
  Outcome out = RunMemstand({"run", "-n", "3000", "--threads", "2", "-c", "5", "--samples", csv,
                             "--samples-cap", "5000", "--json", json});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  std::vector<CsvSample> samples = ReadSamples(csv);
  ASSERT_EQ(samples.size(), 3000u);
  EXPECT_NE(out.output.find("raw samples: 3000 of 3000"), std::string::npos) << out.output;
  EXPECT_NE(out.output.find("all of them"), std::string::npos) << out.output;
  auto j = ReadJson(json);
  // Every request is there: per command as many as the JSON counts, and the latencies
  // span exactly the histogram's range (its min and max are exact).
  std::map<std::string, int64_t> per_command;
  int64_t lo = INT64_MAX, hi = 0, last_time = -1;
  bool sorted = true;
  for (const CsvSample& s : samples) {
    ++per_command[s.command];
    lo = std::min(lo, s.latency_ns);
    hi = std::max(hi, s.latency_ns);
    if (s.time_ns < last_time) sorted = false;
    last_time = s.time_ns;
    EXPECT_GE(s.time_ns, 0);
  }
  EXPECT_TRUE(sorted);
  for (const auto& c : j["commands"]) {
    EXPECT_EQ(per_command[c["command"].get<std::string>()], c["ops"].get<int64_t>())
        << c["command"];
  }
  const auto& latency = j["totals"]["latency"];
  EXPECT_EQ(lo, std::llround(latency["min_us"].get<double>() * 1000));
  EXPECT_EQ(hi, std::llround(latency["max_us"].get<double>() * 1000));
  // Times are since the measured start: the last reply is at the measured duration.
  EXPECT_LE(last_time, std::llround(j["measured_s"].get<double>() * 1e9) + 1000);
  EXPECT_EQ(j["samples"]["written"], 3000);
  EXPECT_EQ(j["samples"]["reservoir"], false);
  EXPECT_TRUE(j["totals"].contains("modality"));
  EXPECT_TRUE(j["commands"][0]["modality"]["multimodal"].is_boolean());
}

TEST(FormatsE2E, SamplesBadInputIsAUsageError) {
  std::string dir = TempDir();
  Outcome zero =
      RunMemstand({"run", "-n", "10", "--samples", dir + "/s.csv", "--samples-cap", "0"});
  EXPECT_EQ(zero.exit_code, 2) << zero.output;
  EXPECT_NE(zero.output.find("--samples-cap"), std::string::npos) << zero.output;
  Outcome lonely_cap = RunMemstand({"run", "-n", "10", "--samples-cap", "10"});
  EXPECT_EQ(lonely_cap.exit_code, 2) << lonely_cap.output;
  EXPECT_NE(lonely_cap.output.find("--samples-cap"), std::string::npos) << lonely_cap.output;
  Outcome unwritable = RunMemstand({"run", "-n", "10", "--samples", dir + "/no/such/dir/s.csv"});
  EXPECT_EQ(unwritable.exit_code, 2) << unwritable.output;
  EXPECT_NE(unwritable.output.find("--samples"), std::string::npos) << unwritable.output;
  EXPECT_EQ(unwritable.output.find("started by memstand"), std::string::npos)
      << "the path is checked before the run";
}

}  // namespace
}  // namespace memstand::e2e

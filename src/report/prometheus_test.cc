#include "report/prometheus.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <vector>

namespace memstand {
namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The value of the sample line starting with `prefix` + " ", or "" if there is none.
std::string SampleValue(const std::string& text, const std::string& prefix) {
  for (const std::string& line : Lines(text)) {
    if (line.rfind(prefix + " ", 0) == 0) return line.substr(prefix.size() + 1);
  }
  return "";
}

std::string Bucket(const std::string& command, const std::string& le) {
  return "memstand_request_duration_seconds_bucket{command=\"" + command + "\",le=\"" + le + "\"}";
}

const char* const kLe[] = {"1e-05",  "2.5e-05", "5e-05", "0.0001", "0.00025", "0.0005", "0.001",
                           "0.0025", "0.005",   "0.01",  "0.025",  "0.05",    "0.1",    "0.25",
                           "0.5",    "1",       "2.5",   "5",      "10"};
const int64_t kLeNs[] = {10'000,        25'000,        50'000,        100'000,       250'000,
                         500'000,       1'000'000,     2'500'000,     5'000'000,     10'000'000,
                         25'000'000,    50'000'000,    100'000'000,   250'000'000,   500'000'000,
                         1'000'000'000, 2'500'000'000, 5'000'000'000, 10'000'000'000};

TEST(PrometheusTest, NoCommandsGolden) {
  MetricsSnapshot s;
  s.version = "0.3.1";
  s.send_lag_seconds = 0.25;
  s.client_cpu_seconds_total = 1.5;
  s.connections_open = 8;
  s.run_elapsed_seconds = 12;
  EXPECT_EQ(FormatPrometheus(s),
            "# HELP memstand_send_lag_seconds How far sending is behind the request schedule.\n"
            "# TYPE memstand_send_lag_seconds gauge\n"
            "memstand_send_lag_seconds 0.25\n"
            "# HELP memstand_client_cpu_seconds_total User plus system CPU time of the "
            "memstand process.\n"
            "# TYPE memstand_client_cpu_seconds_total counter\n"
            "memstand_client_cpu_seconds_total 1.5\n"
            "# HELP memstand_connections Connections open to the target.\n"
            "# TYPE memstand_connections gauge\n"
            "memstand_connections 8\n"
            "# HELP memstand_run_elapsed_seconds Time since the run started.\n"
            "# TYPE memstand_run_elapsed_seconds gauge\n"
            "memstand_run_elapsed_seconds 12\n"
            "# HELP memstand_build_info The memstand version; always 1.\n"
            "# TYPE memstand_build_info gauge\n"
            "memstand_build_info{version=\"0.3.1\"} 1\n");
}

TEST(PrometheusTest, KnownHistogramBuckets) {
  HdrHistogram h;
  h.RecordN(5'000, 3);         // index [5000, 5003]
  h.Record(10'000);            // index [10000, 10007]: straddles 1e-05, counted in 2.5e-05
  h.RecordN(20'000, 2);        // index [20000, 20015]
  h.Record(1'000'000);         // index [999936, 1000191]: straddles 0.001
  h.Record(20'000'000'000LL);  // 20 s: only in +Inf
  MetricsSnapshot s;
  s.commands["GET"].latency_ns = &h;
  std::string text = FormatPrometheus(s);

  const std::map<std::string, std::string> expected = {
      {"1e-05", "3"},  {"2.5e-05", "6"}, {"5e-05", "6"},  {"0.0001", "6"}, {"0.00025", "6"},
      {"0.0005", "6"}, {"0.001", "6"},   {"0.0025", "7"}, {"0.005", "7"},  {"0.01", "7"},
      {"0.025", "7"},  {"0.05", "7"},    {"0.1", "7"},    {"0.25", "7"},   {"0.5", "7"},
      {"1", "7"},      {"2.5", "7"},     {"5", "7"},      {"10", "7"},     {"+Inf", "8"}};
  for (const auto& [le, count] : expected) {
    EXPECT_EQ(SampleValue(text, Bucket("GET", le)), count) << "le=" << le << "\n" << text;
  }
  EXPECT_EQ(SampleValue(text, "memstand_request_duration_seconds_count{command=\"GET\"}"), "8");
  double exact_sum = (3 * 5e3 + 1e4 + 2 * 2e4 + 1e6 + 2e10) / 1e9;
  double sum = std::atof(
      SampleValue(text, "memstand_request_duration_seconds_sum{command=\"GET\"}").c_str());
  EXPECT_NEAR(sum, exact_sum, exact_sum * 1e-3);
  // 20 bucket lines, in ascending le order.
  int buckets = 0;
  for (const std::string& line : Lines(text)) {
    if (line.rfind("memstand_request_duration_seconds_bucket", 0) == 0) {
      if (buckets < 19) {
        EXPECT_NE(line.find(std::string("le=\"") + kLe[buckets] + "\""), std::string::npos) << line;
      }
      ++buckets;
    }
  }
  EXPECT_EQ(buckets, 20);
}

TEST(PrometheusTest, MaximumOnABoundaryIsCountedThere) {
  HdrHistogram h;
  h.Record(10'000);  // exact max, so its index counts as 10000 ns
  MetricsSnapshot s;
  s.commands["SET"].latency_ns = &h;
  std::string text = FormatPrometheus(s);
  EXPECT_EQ(SampleValue(text, Bucket("SET", "1e-05")), "1") << text;
}

// Cross-check against the raw values: a bucket le=b counts the values whose highest
// equivalent value (clamped to the max) is <= b; never more than the values <= b.
TEST(PrometheusTest, BucketsMatchRawValues) {
  std::mt19937_64 rng(42);
  std::lognormal_distribution<double> dist(std::log(300'000.0), 2.0);
  HdrHistogram h;
  std::vector<int64_t> values;
  for (int i = 0; i < 20'000; ++i) {
    int64_t v = std::min<int64_t>(static_cast<int64_t>(dist(rng)), 3'000'000'000'000LL);
    values.push_back(v);
    h.Record(v);
  }
  int64_t max = *std::max_element(values.begin(), values.end());
  MetricsSnapshot s;
  s.commands["GET"].latency_ns = &h;
  std::string text = FormatPrometheus(s);
  for (int b = 0; b < 19; ++b) {
    int64_t by_rule = 0, at_most = 0;
    for (int64_t v : values) {
      by_rule += std::min(h.HighestEquivalentValue(v), max) <= kLeNs[b];
      at_most += v <= kLeNs[b];
    }
    EXPECT_EQ(SampleValue(text, Bucket("GET", kLe[b])), std::to_string(by_rule)) << kLe[b];
    EXPECT_LE(by_rule, at_most);
  }
}

TEST(PrometheusTest, EachFamilyHasOneHelpOneTypeAndOneGroup) {
  HdrHistogram get_h, set_h;
  get_h.Record(1'000);
  set_h.Record(2'000'000);
  MetricsSnapshot s;
  s.version = "dev";
  s.commands["GET"] = {10, {{"timeout", 1}}, 7, 3, 100, 200, &get_h};
  s.commands["SET"] = {5, {{"OOM", 2}, {"READONLY", 1}}, 0, 0, 300, 40, &set_h};
  std::string text = FormatPrometheus(s);

  std::map<std::string, int> help, type;
  std::set<std::string> finished;  // families whose group has ended
  std::string current;
  for (const std::string& line : Lines(text)) {
    std::istringstream in(line);
    std::string first, name;
    in >> first;
    if (first == "#") {
      std::string kind;
      in >> kind >> name;
      (kind == "HELP" ? help : type)[name]++;
    } else {
      name = first.substr(0, first.find('{'));
      for (const char* suffix : {"_bucket", "_sum", "_count"}) {
        std::string sfx = suffix;
        if (name.rfind("memstand_request_duration_seconds", 0) == 0 && name.size() > sfx.size() &&
            name.compare(name.size() - sfx.size(), sfx.size(), sfx) == 0) {
          name.resize(name.size() - sfx.size());
        }
      }
    }
    if (name != current) {
      EXPECT_EQ(finished.count(name), 0u) << name << " appears in two groups";
      if (!current.empty()) finished.insert(current);
      current = name;
    }
  }
  EXPECT_EQ(help.size(), 12u) << text;
  for (const auto& [name, n] : help) EXPECT_EQ(n, 1) << name;
  EXPECT_EQ(help.size(), type.size());
  for (const auto& [name, n] : type) EXPECT_EQ(n, 1) << name;
  EXPECT_EQ(SampleValue(text, "memstand_errors_total{command=\"SET\",kind=\"OOM\"}"), "2");
  EXPECT_EQ(SampleValue(text, "memstand_hits_total{command=\"GET\"}"), "7");
  EXPECT_EQ(SampleValue(text, "memstand_bytes_received_total{command=\"SET\"}"), "40");
}

TEST(PrometheusTest, LabelValuesAreEscaped) {
  MetricsSnapshot s;
  s.version = "1.0 \"beta\"";
  s.commands["A\"B\\C\nD"].requests_total = 1;
  s.commands["A\"B\\C\nD"].errors_total["x\\y"] = 2;
  std::string text = FormatPrometheus(s);
  EXPECT_NE(text.find("memstand_requests_total{command=\"A\\\"B\\\\C\\nD\"} 1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("{command=\"A\\\"B\\\\C\\nD\",kind=\"x\\\\y\"} 2\n"), std::string::npos);
  EXPECT_NE(text.find("memstand_build_info{version=\"1.0 \\\"beta\\\"\"} 1\n"), std::string::npos);
}

TEST(PrometheusTest, FamiliesWithoutSamplesAreLeftOut) {
  MetricsSnapshot s;
  s.commands["GET"].requests_total = 3;
  std::string text = FormatPrometheus(s);
  EXPECT_EQ(text.find("memstand_errors_total"), std::string::npos);
  EXPECT_EQ(text.find("memstand_request_duration_seconds"), std::string::npos);
  EXPECT_EQ(SampleValue(text, "memstand_requests_total{command=\"GET\"}"), "3");
  EXPECT_EQ(SampleValue(text, "memstand_misses_total{command=\"GET\"}"), "0");
}

}  // namespace
}  // namespace memstand

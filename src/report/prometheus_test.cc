#include "report/prometheus.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <span>
#include <sstream>
#include <vector>

#include "proto/iproto/call_error.h"
#include "report/prometheus_text.h"

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

// The le text of a bound, as the exposition writes it.
std::string Le(int64_t bound_ns) { return PromDouble(static_cast<double>(bound_ns) / 1e9); }

// histogram_quantile(q, ...) as Prometheus computes it (promql/quantile.go
// bucketQuantile): the first bucket whose cumulative count reaches q * total, linear
// inside it (the first bucket's lower end is 0); the +Inf bucket gives the last bound.
double PromQuantile(double q, const std::string& text, const std::string& command) {
  const std::span<const int64_t> bounds = RequestLatencyBoundsNs();
  const double total =
      std::atof(SampleValue(text, "memstand_request_duration_seconds_count{command=\"" +
                                      command + "\"}").c_str());
  const double rank = q * total;
  double prev_count = 0, prev_upper = 0;
  for (int64_t b : bounds) {
    const double count = std::atof(SampleValue(text, Bucket(command, Le(b))).c_str());
    const double upper = static_cast<double>(b) / 1e9;
    if (count >= rank) {
      return prev_upper + (upper - prev_upper) * (rank - prev_count) / (count - prev_count);
    }
    prev_count = count;
    prev_upper = upper;
  }
  return prev_upper;
}

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

TEST(PrometheusTest, RequestBoundTable) {
  const std::span<const int64_t> bounds = RequestLatencyBoundsNs();
  ASSERT_EQ(bounds.size(), 249u);
  EXPECT_EQ(bounds.front(), 1'000);
  EXPECT_EQ(bounds.back(), 56'200'000'000);
  for (size_t i = 1; i < bounds.size(); ++i) {
    ASSERT_GT(bounds[i], bounds[i - 1]);
    EXPECT_LE(static_cast<double>(bounds[i]) / static_cast<double>(bounds[i - 1]), 1.079)
        << bounds[i - 1] << " -> " << bounds[i];
  }
  for (int64_t decade = 1'000; decade <= 10'000'000'000; decade *= 10) {  // 1 us .. 10 s
    EXPECT_TRUE(std::binary_search(bounds.begin(), bounds.end(), decade)) << decade;
  }
  EXPECT_EQ(Le(1'070), "1.07e-06");
  EXPECT_EQ(Le(1'000'000), "0.001");
}

TEST(PrometheusTest, KnownHistogramBuckets) {
  HdrHistogram h;
  h.RecordN(5'000, 3);          // index [5000, 5003]
  h.Record(10'000);             // index [10000, 10007]: straddles 1e-05, counted in 1.07e-05
  h.RecordN(20'000, 2);         // index [20000, 20015]
  h.Record(1'000'000);          // index [999936, 1000191]: straddles 0.001
  h.Record(100'000'000'000LL);  // 100 s: only in +Inf
  MetricsSnapshot s;
  s.commands["GET"].latency_ns = &h;
  std::string text = FormatPrometheus(s);

  const std::map<std::string, std::string> expected = {
      {"1e-06", "0"},   {"4.87e-06", "0"}, {"5.23e-06", "3"}, {"1e-05", "3"},
      {"1.07e-05", "4"}, {"1.91e-05", "4"}, {"2.05e-05", "6"}, {"0.001", "6"},
      {"0.00107", "7"}, {"56.2", "7"},     {"+Inf", "8"}};
  for (const auto& [le, count] : expected) {
    EXPECT_EQ(SampleValue(text, Bucket("GET", le)), count) << "le=" << le << "\n" << text;
  }
  EXPECT_EQ(SampleValue(text, "memstand_request_duration_seconds_count{command=\"GET\"}"), "8");
  double exact_sum = (3 * 5e3 + 1e4 + 2 * 2e4 + 1e6 + 1e11) / 1e9;
  double sum = std::atof(
      SampleValue(text, "memstand_request_duration_seconds_sum{command=\"GET\"}").c_str());
  EXPECT_NEAR(sum, exact_sum, exact_sum * 1e-3);
  // 250 bucket lines, in ascending le order.
  const std::span<const int64_t> bounds = RequestLatencyBoundsNs();
  size_t buckets = 0;
  for (const std::string& line : Lines(text)) {
    if (line.rfind("memstand_request_duration_seconds_bucket", 0) == 0) {
      const std::string le = buckets < bounds.size() ? Le(bounds[buckets]) : "+Inf";
      EXPECT_NE(line.find("le=\"" + le + "\""), std::string::npos) << line;
      ++buckets;
    }
  }
  EXPECT_EQ(buckets, bounds.size() + 1);
}

// The point of the bound table (issue #19): Prometheus's histogram_quantile over the
// exported buckets is within 10% of the HDR percentile the report prints, at p50, p90
// and p99, for a narrow loopback-like distribution, a wide lognormal and a bimodal one.
TEST(PrometheusTest, HistogramQuantileIsWithinTenPercentOfHdr) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> narrow(std::log(45'000.0), 0.3);
  std::lognormal_distribution<double> wide(std::log(300'000.0), 2.0);
  std::lognormal_distribution<double> fast(std::log(20'000.0), 0.1), slow(std::log(2e6), 0.2);
  std::uniform_real_distribution<double> coin(0, 1);
  std::map<std::string, HdrHistogram> hists;
  for (int i = 0; i < 50'000; ++i) {
    hists["NARROW"].Record(static_cast<int64_t>(narrow(rng)));
    hists["WIDE"].Record(std::min<int64_t>(static_cast<int64_t>(wide(rng)), 50'000'000'000LL));
    hists["BIMODAL"].Record(static_cast<int64_t>(coin(rng) < 0.95 ? fast(rng) : slow(rng)));
  }
  MetricsSnapshot s;
  for (const auto& [name, h] : hists) s.commands[name].latency_ns = &h;
  const std::string text = FormatPrometheus(s);
  for (const auto& [name, h] : hists) {
    for (double q : {0.5, 0.9, 0.99}) {
      const double hdr = static_cast<double>(h.ValueAtPercentile(q * 100)) / 1e9;
      const double prom = PromQuantile(q, text, name);
      EXPECT_LT(std::abs(prom - hdr) / hdr, 0.10) << name << " q=" << q << " hdr=" << hdr
                                                  << " prom=" << prom;
    }
  }
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
  for (int64_t bound : RequestLatencyBoundsNs()) {
    int64_t by_rule = 0, at_most = 0;
    for (int64_t v : values) {
      by_rule += std::min(h.HighestEquivalentValue(v), max) <= bound;
      at_most += v <= bound;
    }
    EXPECT_EQ(SampleValue(text, Bucket("GET", Le(bound))), std::to_string(by_rule)) << bound;
    EXPECT_LE(by_rule, at_most);
  }
}

TEST(PrometheusTest, EachFamilyHasOneHelpOneTypeAndOneGroup) {
  HdrHistogram get_h, set_h;
  get_h.Record(1'000);
  set_h.Record(2'000'000);
  MetricsSnapshot s;
  s.version = "dev";
  s.commands["GET"] = {10, 1, {{"timeout", 1}}, true, 7, 3, 100, 200, &get_h};
  s.commands["SET"] = {5, 3, {{"OOM", 2}, {"READONLY", 1}}, false, 0, 0, 300, 40, &set_h};
  s.commands["SET"].ok_total = 2;
  s.commands["SET"].fail_total = 3;
  s.commands["SET"].unknown_total = 4;
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
  EXPECT_EQ(help.size(), 14u) << text;
  for (const auto& [name, n] : help) EXPECT_EQ(n, 1) << name;
  EXPECT_EQ(help.size(), type.size());
  for (const auto& [name, n] : type) EXPECT_EQ(n, 1) << name;
  EXPECT_EQ(SampleValue(text, "memstand_errors_total{command=\"SET\",kind=\"OOM\"}"), "2");
  EXPECT_EQ(SampleValue(text, "memstand_hits_total{command=\"GET\"}"), "7");
  EXPECT_EQ(SampleValue(text, "memstand_hits_total{command=\"SET\"}"), "");  // not a read
  EXPECT_EQ(SampleValue(text, "memstand_operations_total{command=\"SET\",outcome=\"unknown\"}"), "4");
  EXPECT_EQ(SampleValue(text, "memstand_operations_total{command=\"SET\",outcome=\"fail\"}"), "3");
  EXPECT_EQ(SampleValue(text, "memstand_operations_total{command=\"GET\",outcome=\"fail\"}"), "0");
  EXPECT_EQ(SampleValue(text, "memstand_error_replies_total{command=\"SET\"}"), "3");
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

// A Tarantool application error's kind (proto/iproto/call_error.h) as a label value:
// "call: boom" as it is; a quote and a backslash escaped; its newline already a space.
TEST(PrometheusTest, CallErrorKindsAreLabelValues) {
  std::string kind, message;
  iproto::FormatCallError({"say \"no\" C:\\x\n", nullptr}, &kind, &message);
  EXPECT_EQ(kind, "call: say \"no\" C:\\x ");
  MetricsSnapshot s;
  s.commands["CALL"].errors_total["call: boom"] = 3;
  s.commands["CALL"].errors_total[kind] = 1;
  const std::string text = FormatPrometheus(s);
  EXPECT_EQ(SampleValue(text, "memstand_errors_total{command=\"CALL\",kind=\"call: boom\"}"), "3") << text;
  EXPECT_EQ(SampleValue(text, "memstand_errors_total{command=\"CALL\",kind=\"call: say \\\"no\\\" C:\\\\x \"}"),
            "1")
      << text;
}

TEST(PrometheusTest, FamiliesWithoutSamplesAreLeftOut) {
  MetricsSnapshot s;
  s.commands["GET"].requests_total = 3;
  s.commands["GET"].counts_hits = true;
  s.commands["SET"].requests_total = 2;
  std::string text = FormatPrometheus(s);
  EXPECT_EQ(text.find("memstand_errors_total"), std::string::npos);
  EXPECT_EQ(text.find("memstand_request_duration_seconds"), std::string::npos);
  EXPECT_EQ(SampleValue(text, "memstand_requests_total{command=\"GET\"}"), "3");
  EXPECT_EQ(SampleValue(text, "memstand_misses_total{command=\"GET\"}"), "0");
  // Hits and misses only for reads; error replies at 0 before the first error.
  EXPECT_EQ(SampleValue(text, "memstand_misses_total{command=\"SET\"}"), "");
  EXPECT_EQ(SampleValue(text, "memstand_error_replies_total{command=\"SET\"}"), "0");
  EXPECT_EQ(SampleValue(text, "memstand_error_replies_total{command=\"GET\"}"), "0");
  // No read at all: no hits or misses family.
  s.commands.erase("GET");
  text = FormatPrometheus(s);
  EXPECT_EQ(text.find("memstand_hits_total"), std::string::npos) << text;
  EXPECT_EQ(text.find("memstand_misses_total"), std::string::npos) << text;
}

}  // namespace
}  // namespace memstand

// Prometheus agrees with the report (issue #19): a real Prometheus (Debian's
// prometheus) scrapes a real `memstand run --metrics-addr --metrics-linger`, and its
// query API (promtool query instant) is compared with the run's own JSON: the final
// request counters equal the JSON's ops (the linger lets the last scrape see them), and
// histogram_quantile at p50/p90/p99 over the whole run's buckets is within 10% of the
// JSON's HDR percentiles.
#include <cmath>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "core/socket.h"
#include "e2e/e2e_util.h"
#include "stand/server_node.h"

namespace memstand::e2e {
namespace {

using nlohmann::json;

// `promtool query instant` of q: the value of its one result ("{...} => VALUE @[T]"),
// or NaN (with the output in *output) when there is none or more than one.
double QueryValue(int prom_port, const std::string& q, std::string* output) {
  const auto r = PromQuery(prom_port, q);
  *output = r.output;
  const size_t arrow = r.output.find("=> ");
  if (r.exit_code != 0 || arrow == std::string::npos ||
      r.output.find("=> ", arrow + 3) != std::string::npos) {
    return std::nan("");
  }
  return std::stod(r.output.substr(arrow + 3));
}

TEST(PrometheusE2E, QueriesAgreeWithTheRunJson) {
  auto metrics_port = PickFreePort();
  auto prom_port = PickFreePort();
  ASSERT_TRUE(metrics_port.ok() && prom_port.ok());
  const std::string dir = TempDir();
  auto prom = StartPrometheus(*metrics_port, *prom_port, dir);
  ASSERT_NE(prom, nullptr);

  // Open loop at a fixed rate (bounded volume); SET and GET (the default mix).
  const std::string json_path = dir + "/run.json";
  auto run = Running::Start({"run", "--duration", "6s", "--rate", "3000", "-c", "2", "--metrics-addr",
                             "127.0.0.1:" + std::to_string(*metrics_port), "--metrics-linger", "3s",
                             "--json", json_path});
  ASSERT_NE(run, nullptr);
  Outcome out = run->Wait(60);
  ASSERT_EQ(out.exit_code, 0) << out.output;
  EXPECT_NE(out.output.find("keeps its final totals for 3 s"), std::string::npos) << out.output;
  EXPECT_GE(out.seconds, 3.0) << "the linger kept the endpoint up";
  const json rep = ReadJson(json_path);
  ASSERT_TRUE(rep.contains("commands")) << rep.dump();

  // Cumulative series from the run's start: their last value (max_over_time, which
  // also reads past the staleness marker of the ended target) is the run's total.
  std::string output;
  for (const json& c : rep["commands"]) {
    const std::string command = c["command"];
    const std::string sel = "{command=\"" + command + "\"}";
    const double ops = c["ops"];
    ASSERT_GT(ops, 1000) << command;
    EXPECT_EQ(QueryValue(*prom_port, "max_over_time(memstand_requests_total" + sel + "[5m])", &output), ops)
        << command << ": the last scrape does not hold the final total\n"
        << output << FileTail(dir + "/prometheus.log", 10);
    EXPECT_EQ(QueryValue(*prom_port, "max_over_time(memstand_error_replies_total" + sel + "[5m])", &output), 0)
        << output;
    const double hits = QueryValue(*prom_port, "max_over_time(memstand_hits_total" + sel + "[5m])", &output);
    if (command == "GET") {
      EXPECT_EQ(hits, c["hits"].get<double>()) << output;
    } else {
      EXPECT_TRUE(std::isnan(hits)) << command << " is not a read: no hits series\n" << output;
    }
    for (const char* pct : {"50", "90", "99"}) {
      const double report_s = c["latency"]["percentiles_us"][pct].get<double>() / 1e6;
      const std::string q = "histogram_quantile(" + std::to_string(std::stod(pct) / 100) +
                            ", max_over_time(memstand_request_duration_seconds_bucket" + sel + "[5m]))";
      const double prom_s = QueryValue(*prom_port, q, &output);
      std::printf("%s p%s: prometheus %.1f us, report %.1f us (N %.0f)\n", command.c_str(), pct, prom_s * 1e6,
                  report_s * 1e6, ops);
      EXPECT_LT(std::abs(prom_s - report_s) / report_s, 0.10)
          << command << " p" << pct << ": prometheus " << prom_s << " s, report " << report_s << " s\n"
          << q << "\n" << output;
    }
  }
  prom->Terminate();
}

}  // namespace
}  // namespace memstand::e2e

// docs/grafana/memstand.json against the real readers: every query of the dashboard
// names metrics that a real `memstand run --metrics-addr` exports, and a real Prometheus
// (Debian's prometheus) scraping that run evaluates every query without an error and
// with a result (promtool query instant).
#include <chrono>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "core/socket.h"
#include "e2e/e2e_util.h"
#include "stand/process.h"
#include "test_paths.h"
#include "npm_util.h"
#include "stand/server_node.h"

namespace memstand::e2e {
namespace {

using nlohmann::json;

// Every query of the dashboard: the panels' targets and the variables' queries.
std::vector<std::string> Queries(const json& dash) {
  std::vector<std::string> out;
  for (const json& p : dash["panels"]) {
    for (const json& t : p["targets"]) out.push_back(t["expr"]);
  }
  return out;
}

// The query as Grafana sends it for "All" over a 1 s scrape interval.
std::string Expand(std::string q) {
  q = std::regex_replace(q, std::regex("\\$__rate_interval"), "5s");
  return std::regex_replace(q, std::regex("\\$instance"), ".+");
}

std::set<std::string> MetricNames(const std::string& text, bool strip_suffixes) {
  std::set<std::string> out;
  static const std::regex kName("memstand_[a-z_]+");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kName); it != std::sregex_iterator(); ++it) {
    std::string n = it->str();
    if (strip_suffixes) n = std::regex_replace(n, std::regex("_(bucket|sum|count)$"), "");
    out.insert(n);
  }
  return out;
}

TEST(GrafanaE2E, EveryQueryNamesAnExportedMetricAndRunsOnPrometheus) {
  ASSERT_TRUE(testutil::HaveProgram("prometheus") && testutil::HaveProgram("promtool"))
      << "install the Debian package prometheus (scripts/deps.sh)";
  std::ifstream in(testutil::SourceDir() + "/docs/grafana/memstand.json");
  const json dash = json::parse(in);
  const std::vector<std::string> queries = Queries(dash);
  ASSERT_GE(queries.size(), 9u);
  for (const std::string& q : queries) ASSERT_EQ(q.find('\''), std::string::npos) << q;  // quoted for the shell

  auto metrics_port = PickFreePort();
  auto prom_port = PickFreePort();
  ASSERT_TRUE(metrics_port.ok() && prom_port.ok());
  // Open loop (send lag), errors (INCR of a non-integer value), hits and misses (GET).
  auto run = Running::Start({"run", "--duration", "16s", "--rate", "2000", "-c", "4", "--key-maximum", "100",
                             "--command", "set __key__ __data__", "--command", "incr __key__", "--command",
                             "get __key__", "--metrics-addr", "127.0.0.1:" + std::to_string(*metrics_port), "-q"});
  ASSERT_NE(run, nullptr);
  const std::string dir = TempDir();
  auto prom = StartPrometheus(*metrics_port, *prom_port, dir);
  ASSERT_NE(prom, nullptr);

  // Until the rate of the request counter has a value: a few scrapes of a live run
  // (bounded: 20 s).
  const std::string first = Expand(queries[0]);
  bool ready = false;
  for (int i = 0; i < 40 && !ready; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    const auto r = PromQuery(*prom_port, first);
    ready = r.exit_code == 0 && r.output.find("=>") != std::string::npos;
  }
  ASSERT_TRUE(ready) << FileTail(dir + "/prometheus.log", 20);
  std::this_thread::sleep_for(std::chrono::seconds(3));  // an error or two, every bucket seen twice

  // Every metric a query names is one the run exports (its # TYPE lines).
  const std::string scrape = Scrape(*metrics_port);
  std::string types;
  for (size_t at = scrape.find("# TYPE "); at != std::string::npos; at = scrape.find("# TYPE ", at + 1)) {
    types += scrape.substr(at, scrape.find('\n', at) - at) + "\n";
  }
  const std::set<std::string> exported = MetricNames(types, false);
  for (const std::string& q : queries) {
    for (const std::string& name : MetricNames(q, true)) {
      EXPECT_TRUE(exported.count(name) == 1) << name << " (in " << q << ") is not exported:\n" << types;
    }
  }
  for (const json& v : dash["templating"]["list"]) {
    if (v["type"] == "query") {
      for (const std::string& name : MetricNames(v["definition"], true)) EXPECT_EQ(exported.count(name), 1u) << name;
    }
  }
  // Prometheus evaluates each query: no error, and a sample for every one.
  for (const std::string& q : queries) {
    const auto r = PromQuery(*prom_port, Expand(q));
    EXPECT_EQ(r.exit_code, 0) << q << "\n" << r.output;
    EXPECT_NE(r.output.find("=>"), std::string::npos) << "no result for " << Expand(q) << "\n" << r.output;
  }
  prom->Terminate();
  Outcome out = run->Wait(60);
  EXPECT_EQ(out.exit_code, 0) << out.output;
}

}  // namespace
}  // namespace memstand::e2e

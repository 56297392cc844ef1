#include "report/relay_metrics.h"

#include <gtest/gtest.h>

#include <sstream>

namespace memstand {
namespace {

// The value of the sample line starting with `prefix` + " ", or "" if there is none.
std::string RelaySampleValue(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(prefix + " ", 0) == 0) return line.substr(prefix.size() + 1);
  }
  return "";
}

RelayOptions TwoLinks() {
  RelayOptions o;
  o.links = {RelayLink{"127.0.0.1", 7000, "127.0.0.1", 6379}, RelayLink{"::1", 7001, "::1", 6380}};
  o.delay_ns = 20'000'000;
  o.delay_back_ns = 5'000'000;
  return o;
}

TEST(RelayMetricsTest, CountersByLinkAndDirection) {
  RelayStats s;
  s.links.resize(2);
  s.links[0].connections = 3;
  s.links[0].sockets = 6;
  s.links[0].nodelay_sockets = 6;
  s.links[1].refused = 2;
  s.links[1].accept_failures = 4;
  s.links[0].forward.chunks = 10;
  s.links[0].forward.bytes = 1000;
  s.links[0].back.bytes = 77;
  s.links[1].back.max_held_bytes = 4096;
  const std::string text = FormatRelayPrometheus(TwoLinks(), s, {"dev", 1.5, 10});
  const std::string fwd1 = "{link=\"1\",direction=\"client_to_target\"}";
  EXPECT_EQ(RelaySampleValue(text, "memstand_relay_chunks_total" + fwd1), "10") << text;
  EXPECT_EQ(RelaySampleValue(text, "memstand_relay_bytes_total" + fwd1), "1000");
  EXPECT_EQ(
      RelaySampleValue(text, "memstand_relay_bytes_total{link=\"1\",direction=\"target_to_client\"}"),
      "77");
  EXPECT_EQ(
      RelaySampleValue(text, "memstand_relay_held_bytes_max{link=\"2\",direction=\"target_to_client\"}"),
      "4096");
  EXPECT_EQ(RelaySampleValue(text, "memstand_relay_connections_total{link=\"1\"}"), "3");
  EXPECT_EQ(RelaySampleValue(text, "memstand_relay_refused_total{link=\"2\"}"), "2");
  EXPECT_EQ(RelaySampleValue(text, "memstand_relay_accept_failures_total{link=\"2\"}"), "4");
  EXPECT_EQ(RelaySampleValue(text, "memstand_relay_nodelay_sockets_total{link=\"1\"}"), "6");
  EXPECT_EQ(RelaySampleValue(text,
                        "memstand_relay_link_info{link=\"2\",listen=\"[::1]:7001\",target="
                        "\"[::1]:6380\"}"),
            "1");
  EXPECT_EQ(RelaySampleValue(text, "memstand_relay_delay_seconds{direction=\"client_to_target\"}"),
            "0.02");
  EXPECT_EQ(RelaySampleValue(text, "memstand_relay_delay_seconds{direction=\"target_to_client\"}"),
            "0.005");
  EXPECT_EQ(RelaySampleValue(text, "memstand_relay_cpu_seconds_total"), "1.5");
  EXPECT_EQ(RelaySampleValue(text, "memstand_build_info{version=\"dev\"}"), "1");
}

// The delay histograms start at 1 us (the overshoot is microseconds) and count each
// chunk once; empty ones still have their buckets at 0.
TEST(RelayMetricsTest, DelayHistogramsFromOneMicrosecond) {
  RelayStats s;
  s.links.resize(1);
  s.links[0].forward.extra_ns.RecordN(800, 3);     // below 1 us
  s.links[0].forward.extra_ns.Record(3'000);       // in le=5e-06
  s.links[0].forward.extra_ns.Record(40'000'000);  // 40 ms
  RelayOptions o;
  o.links = {RelayLink{"127.0.0.1", 7000, "127.0.0.1", 6379}};
  const std::string text = FormatRelayPrometheus(o, s, {});
  const std::string b =
      "memstand_relay_added_delay_seconds_bucket{link=\"1\",direction=\"client_to_target\",le=";
  EXPECT_EQ(RelaySampleValue(text, b + "\"1e-06\"}"), "3") << text;
  EXPECT_EQ(RelaySampleValue(text, b + "\"2.5e-06\"}"), "3");
  EXPECT_EQ(RelaySampleValue(text, b + "\"5e-06\"}"), "4");
  EXPECT_EQ(RelaySampleValue(text, b + "\"0.025\"}"), "4");
  EXPECT_EQ(RelaySampleValue(text, b + "\"0.05\"}"), "5");
  EXPECT_EQ(RelaySampleValue(text, b + "\"+Inf\"}"), "5");
  EXPECT_EQ(RelaySampleValue(text,
                        "memstand_relay_added_delay_seconds_count{link=\"1\",direction="
                        "\"client_to_target\"}"),
            "5");
  EXPECT_EQ(RelaySampleValue(text,
                        "memstand_relay_applied_delay_seconds_count{link=\"1\",direction="
                        "\"target_to_client\"}"),
            "0");
  EXPECT_EQ(RelaySampleValue(text,
                        "memstand_relay_applied_delay_seconds_bucket{link=\"1\",direction="
                        "\"target_to_client\",le=\"+Inf\"}"),
            "0");
}

}  // namespace
}  // namespace memstand

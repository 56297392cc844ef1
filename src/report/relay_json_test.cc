#include "report/relay_json.h"

#include <gtest/gtest.h>

namespace memstand {
namespace {

TEST(RelayJsonTest, OptionsLinksAndDirections) {
  RelayOptions o;
  o.links = {RelayLink{"127.0.0.1", 7000, "127.0.0.1", 6379}};
  o.delay_ns = 20'000'000;
  o.mode = RelayMode::kSerializing;
  o.jitter_ns = 500'000;
  o.rate_bytes_per_s = 12'500'000;
  RelayStats s;
  s.links.resize(1);
  RelayLinkStats& l = s.links[0];
  l.connections = 2;
  l.sockets = 4;
  l.nodelay_sockets = 4;
  l.forward.chunks = 3;
  l.forward.bytes = 300;
  l.forward.first_read_ns = 1'000'000'000;
  l.forward.last_leave_ns = 1'250'000'000;
  for (int64_t v : {20'001'000, 20'002'000, 20'010'000}) l.forward.applied_ns.Record(v);
  for (int64_t v : {1'000, 2'000, 10'000}) l.forward.extra_ns.Record(v);
  RelayRunInfo info;
  info.started_at = "2026-12-01T18:00:00Z";
  info.start_line = "relaying 127.0.0.1:7000 -> 127.0.0.1:6379; ...";
  info.stopped_by = "duration";
  info.elapsed_s = 2.5;
  const nlohmann::ordered_json j = RelayJson(o, s, info);
  EXPECT_EQ(j["schema"], "memstand.relay");
  EXPECT_EQ(j["version"], kRelayJsonVersion);
  EXPECT_EQ(j["stopped_by"], "duration");
  EXPECT_EQ(j["options"]["delay_us"], 20000.0);
  EXPECT_EQ(j["options"]["delay_back_us"], 20000.0);  // -1: the same as --delay
  EXPECT_EQ(j["options"]["mode"], "serializing");
  EXPECT_EQ(j["options"]["jitter_us"], 500.0);
  EXPECT_EQ(j["options"]["rate_bytes_per_s"], 12'500'000u);
  const auto& link = j["links"][0];
  EXPECT_EQ(link["link"], 1);
  EXPECT_EQ(link["listen"], "127.0.0.1:7000");
  EXPECT_EQ(link["connections"], 2);
  const auto& f = link["client_to_target"];
  EXPECT_EQ(f["chunks"], 3);
  EXPECT_EQ(f["bytes"], 300);
  EXPECT_DOUBLE_EQ(f["first_read_to_last_leave_s"].get<double>(), 0.25);
  EXPECT_EQ(f["applied"]["count"], 3);
  EXPECT_NEAR(f["applied"]["min_us"].get<double>(), 20001, 20);  // HDR precision
  EXPECT_NEAR(f["added"]["max_us"].get<double>(), 10, 0.1);
  EXPECT_NEAR(f["added"]["percentiles_us"]["50"].get<double>(), 2, 0.01);
  EXPECT_EQ(link["target_to_client"]["chunks"], 0);
  EXPECT_EQ(link["target_to_client"]["first_read_to_last_leave_s"], 0.0);
}

}  // namespace
}  // namespace memstand

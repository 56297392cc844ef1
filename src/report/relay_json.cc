#include "report/relay_json.h"

#include "relay/relay_report.h"
#include "report/json_parts.h"

namespace memstand {
namespace {

using Json = nlohmann::ordered_json;

const std::vector<double> kPercentiles = {50, 90, 99, 99.9};

double Us(int64_t ns) { return static_cast<double>(ns) / 1e3; }

Json OptionsJson(const RelayOptions& o) {
  return {{"delay_us", Us(o.delay_ns)},
          {"delay_back_us", Us(o.back_delay_ns())},
          {"mode", RelayModeName(o.mode)},
          {"jitter_us", Us(o.jitter_ns)},
          {"seed", o.seed},
          {"rate_bytes_per_s", o.rate_bytes_per_s},
          {"nodelay", o.nodelay},
          {"realtime_priority", o.realtime_priority},
          {"spin_us", Us(o.spin_ns)},
          {"segment_tap", o.segment_tap},
          {"max_held_bytes", o.max_held_bytes},
          {"read_size", o.read_size},
          {"connect_timeout_ms", o.connect_timeout_ms}};
}

Json DirectionJson(const RelayDirectionStats& d, int64_t delay_ns) {
  return {{"delay_us", Us(delay_ns)},
          {"chunks", d.chunks},
          {"bytes", d.bytes},
          {"max_in_flight", d.max_in_flight},
          {"max_held_bytes", d.max_held_bytes},
          {"first_read_to_last_leave_s",
           d.chunks == 0 ? 0.0 : static_cast<double>(d.last_leave_ns - d.first_read_ns) / 1e9},
          {"applied", LatencyJson(d.applied_ns, kPercentiles)},
          {"added", LatencyJson(d.extra_ns, kPercentiles)},
          {"reads", d.reads},
          {"stamped_reads", d.stamped_reads},
          {"read_late", LatencyJson(d.read_late_ns, kPercentiles)},
          {"tap_reads", d.tap_reads},
          {"tap_splits", d.tap_splits},
          {"tap_fallbacks", d.tap_fallbacks}};
}

Json LinkJson(const RelayOptions& o, size_t i, const RelayLinkStats& s) {
  const RelayLink& l = o.links[i];
  return {{"link", i + 1},
          {"listen", RelayEndpoint(l.listen_host, l.listen_port)},
          {"target", RelayEndpoint(l.target_host, l.target_port)},
          {"connections", s.connections},
          {"refused", s.refused},
          {"sockets", s.sockets},
          {"nodelay_sockets", s.nodelay_sockets},
          {"accept_failures", s.accept_failures},
          {"client_to_target", DirectionJson(s.forward, o.delay_ns)},
          {"target_to_client", DirectionJson(s.back, o.back_delay_ns())}};
}

}  // namespace

Json RelayJson(const RelayOptions& o, const RelayStats& stats, const RelayRunInfo& info) {
  Json j;
  j["schema"] = "memstand.relay";
  j["version"] = kRelayJsonVersion;
  j["memstand_version"] = MEMSTAND_VERSION;
  j["started_at"] = info.started_at;
  j["start_line"] = info.start_line;
  j["stopped_by"] = info.stopped_by;
  j["elapsed_s"] = info.elapsed_s;
  j["cpu_s"] = info.cpu_s;
  j["platform"] = PlatformJson(info.platform);
  j["options"] = OptionsJson(o);
  Json links = Json::array();
  for (size_t i = 0; i < stats.links.size(); ++i) links.push_back(LinkJson(o, i, stats.links[i]));
  j["links"] = links;
  j["segment_tap"] = {{"on", stats.tap_on},
                      {"error", stats.tap_error},
                      {"frames", stats.tap.frames},
                      {"segments", stats.tap.segments},
                      {"syns", stats.tap.syns},
                      {"malformed", stats.tap.malformed},
                      {"kernel_drops", stats.tap.kernel_drops},
                      {"map_drops", stats.tap.map_drops},
                      {"evicted", stats.tap.evicted}};
  return j;
}

}  // namespace memstand

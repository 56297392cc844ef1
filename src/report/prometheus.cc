#include "report/prometheus.h"

#include <algorithm>
#include <string_view>

#include "report/prometheus_text.h"

namespace memstand {
namespace {

// One counter family with a `command` label, from one field of CommandMetrics; with
// `reads_only`, for the counts_hits commands alone.
void AppendCommandCounter(std::string* out, const MetricsSnapshot& s, std::string_view name,
                          std::string_view help, uint64_t CommandMetrics::*field,
                          bool reads_only = false) {
  bool any = std::any_of(s.commands.begin(), s.commands.end(),
                         [&](const auto& c) { return !reads_only || c.second.counts_hits; });
  if (!any) return;
  AppendPromHeader(out, name, "counter", help);
  for (const auto& [command, m] : s.commands) {
    if (reads_only && !m.counts_hits) continue;
    AppendPromSample(out, name, PromLabel("command", command), std::to_string(m.*field));
  }
}

void AppendErrors(std::string* out, const MetricsSnapshot& s) {
  constexpr std::string_view kName = "memstand_errors_total";
  bool any = std::any_of(s.commands.begin(), s.commands.end(),
                         [](const auto& c) { return !c.second.errors_total.empty(); });
  if (!any) return;
  AppendPromHeader(out, kName, "counter", "Requests answered with an error, by command and kind.");
  for (const auto& [command, m] : s.commands) {
    for (const auto& [kind, n] : m.errors_total) {
      AppendPromSample(out, kName, PromLabel("command", command) + "," + PromLabel("kind", kind),
                       std::to_string(n));
    }
  }
}

void AppendOutcomes(std::string* out, const MetricsSnapshot& s) {
  constexpr std::string_view kName = "memstand_operations_total";
  if (s.commands.empty()) return;
  AppendPromHeader(out, kName, "counter", "Operations by command and outcome: ok, fail (certainly not done), "
                   "unknown (maybe done).");
  for (const auto& [command, m] : s.commands) {
    for (const auto& [outcome, n] : {std::pair<const char*, uint64_t>{"ok", m.ok_total},
                                     {"fail", m.fail_total}, {"unknown", m.unknown_total}}) {
      AppendPromSample(out, kName, PromLabel("command", command) + "," + PromLabel("outcome", outcome),
                       std::to_string(n));
    }
  }
}

void AppendHistogramSamples(std::string* out, const std::string& command, const HdrHistogram& h) {
  AppendPromHistogram(out, "memstand_request_duration_seconds", PromLabel("command", command), h,
                      RequestLatencyBoundsNs());
}

void AppendHistograms(std::string* out, const MetricsSnapshot& s) {
  bool any = std::any_of(s.commands.begin(), s.commands.end(),
                         [](const auto& c) { return c.second.latency_ns != nullptr; });
  if (!any) return;
  AppendPromHeader(out, "memstand_request_duration_seconds", "histogram",
                   "Request latency from send to complete reply, by command.");
  for (const auto& [command, m] : s.commands) {
    if (m.latency_ns != nullptr) AppendHistogramSamples(out, command, *m.latency_ns);
  }
}

void AppendScalar(std::string* out, std::string_view name, std::string_view type,
                  std::string_view help, const std::string& value) {
  AppendPromHeader(out, name, type, help);
  AppendPromSample(out, name, "", value);
}

}  // namespace

std::string FormatPrometheus(const MetricsSnapshot& s) {
  std::string out;
  AppendCommandCounter(&out, s, "memstand_requests_total", "Requests completed, by command.",
                       &CommandMetrics::requests_total);
  AppendCommandCounter(&out, s, "memstand_error_replies_total",
                       "Requests answered with an error, every kind, by command.",
                       &CommandMetrics::error_replies_total);
  AppendErrors(&out, s);
  AppendOutcomes(&out, s);
  AppendCommandCounter(&out, s, "memstand_hits_total", "Reads that found their key.",
                       &CommandMetrics::hits_total, /*reads_only=*/true);
  AppendCommandCounter(&out, s, "memstand_misses_total", "Reads that did not find their key.",
                       &CommandMetrics::misses_total, /*reads_only=*/true);
  AppendCommandCounter(&out, s, "memstand_bytes_sent_total",
                       "Application bytes written to sockets, by command.",
                       &CommandMetrics::bytes_sent_total);
  AppendCommandCounter(&out, s, "memstand_bytes_received_total",
                       "Application bytes read from sockets, by command.",
                       &CommandMetrics::bytes_received_total);
  AppendHistograms(&out, s);
  AppendScalar(&out, "memstand_send_lag_seconds", "gauge",
               "How far sending is behind the request schedule.", PromDouble(s.send_lag_seconds));
  AppendScalar(&out, "memstand_client_cpu_seconds_total", "counter",
               "User plus system CPU time of the memstand process.",
               PromDouble(s.client_cpu_seconds_total));
  AppendScalar(&out, "memstand_connections", "gauge", "Connections open to the target.",
               std::to_string(s.connections_open));
  AppendScalar(&out, "memstand_run_elapsed_seconds", "gauge", "Time since the run started.",
               PromDouble(s.run_elapsed_seconds));
  AppendPromHeader(&out, "memstand_build_info", "gauge", "The memstand version; always 1.");
  AppendPromSample(&out, "memstand_build_info", PromLabel("version", s.version), "1");
  return out;
}

}  // namespace memstand

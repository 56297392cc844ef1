#include "report/prometheus.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <string_view>
#include <vector>

namespace memstand {
namespace {

// memstand_request_duration_seconds bucket bounds in ns: 10 us .. 10 s, 1-2.5-5 steps.
constexpr int64_t kBoundsNs[] = {
    10'000,        25'000,        50'000,        100'000,        250'000,
    500'000,       1'000'000,     2'500'000,     5'000'000,      10'000'000,
    25'000'000,    50'000'000,    100'000'000,   250'000'000,    500'000'000,
    1'000'000'000, 2'500'000'000, 5'000'000'000, 10'000'000'000,
};
constexpr int kBoundCount = static_cast<int>(std::size(kBoundsNs));

std::string EscapeLabelValue(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

// Shortest text that reads back as v, in fixed notation unless the decimal exponent is
// below -4 or above 20 (as Go's strconv 'g', so le bounds read as other exporters'
// do: "0.0005", "1e-05"); NaN and infinities as Prometheus spells them.
std::string FormatDouble(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  std::string scientific(buf, r.ptr);
  int exponent = std::atoi(scientific.c_str() + scientific.find('e') + 1);
  if (exponent < -4 || exponent > 20) return scientific;
  r = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::fixed);
  return std::string(buf, r.ptr);
}

// `name="value"` with the value escaped.
std::string Label(std::string_view name, std::string_view value) {
  return std::string(name) + "=\"" + EscapeLabelValue(value) + "\"";
}

void AppendHeader(std::string* out, std::string_view name, std::string_view type,
                  std::string_view help) {
  *out += "# HELP ";
  *out += name;
  *out += ' ';
  *out += help;
  *out += "\n# TYPE ";
  *out += name;
  *out += ' ';
  *out += type;
  *out += '\n';
}

// labels: "" or `a="x",b="y"` (already escaped).
void AppendSample(std::string* out, std::string_view name, std::string_view labels,
                  std::string_view value) {
  *out += name;
  if (!labels.empty()) {
    *out += '{';
    *out += labels;
    *out += '}';
  }
  *out += ' ';
  *out += value;
  *out += '\n';
}

// One counter family with a `command` label, from one field of CommandMetrics.
void AppendCommandCounter(std::string* out, const MetricsSnapshot& s, std::string_view name,
                          std::string_view help, uint64_t CommandMetrics::*field) {
  if (s.commands.empty()) return;
  AppendHeader(out, name, "counter", help);
  for (const auto& [command, m] : s.commands) {
    AppendSample(out, name, Label("command", command), std::to_string(m.*field));
  }
}

void AppendErrors(std::string* out, const MetricsSnapshot& s) {
  constexpr std::string_view kName = "memstand_errors_total";
  bool any = std::any_of(s.commands.begin(), s.commands.end(),
                         [](const auto& c) { return !c.second.errors_total.empty(); });
  if (!any) return;
  AppendHeader(out, kName, "counter", "Requests answered with an error, by command and kind.");
  for (const auto& [command, m] : s.commands) {
    for (const auto& [kind, n] : m.errors_total) {
      AppendSample(out, kName, Label("command", command) + "," + Label("kind", kind),
                   std::to_string(n));
    }
  }
}

// Cumulative counts per kBoundsNs entry; see the rounding note in prometheus.h.
std::vector<int64_t> CumulativeBucketCounts(const HdrHistogram& h) {
  std::vector<int64_t> counts(kBoundCount, 0);
  const int64_t max = h.max();
  for (int i = 0; i < h.counts_len(); ++i) {
    int64_t n = h.count_at_index(i);
    if (n == 0) continue;
    int64_t value = std::min(h.HighestEquivalentValue(h.ValueFromIndex(i)), max);
    auto it = std::lower_bound(std::begin(kBoundsNs), std::end(kBoundsNs), value);
    if (it != std::end(kBoundsNs)) counts[it - std::begin(kBoundsNs)] += n;
  }
  for (int b = 1; b < kBoundCount; ++b) counts[b] += counts[b - 1];
  return counts;
}

void AppendHistogramSamples(std::string* out, const std::string& command, const HdrHistogram& h) {
  constexpr std::string_view kName = "memstand_request_duration_seconds";
  const std::string command_label = Label("command", command);
  const std::string bucket = std::string(kName) + "_bucket";
  std::vector<int64_t> counts = CumulativeBucketCounts(h);
  for (int b = 0; b < kBoundCount; ++b) {
    std::string le = FormatDouble(static_cast<double>(kBoundsNs[b]) / 1e9);
    AppendSample(out, bucket, command_label + "," + Label("le", le), std::to_string(counts[b]));
  }
  const std::string total = std::to_string(h.total_count());
  AppendSample(out, bucket, command_label + ",le=\"+Inf\"", total);
  double sum_s = h.mean() * static_cast<double>(h.total_count()) / 1e9;
  AppendSample(out, std::string(kName) + "_sum", command_label, FormatDouble(sum_s));
  AppendSample(out, std::string(kName) + "_count", command_label, total);
}

void AppendHistograms(std::string* out, const MetricsSnapshot& s) {
  bool any = std::any_of(s.commands.begin(), s.commands.end(),
                         [](const auto& c) { return c.second.latency_ns != nullptr; });
  if (!any) return;
  AppendHeader(out, "memstand_request_duration_seconds", "histogram",
               "Request latency from send to complete reply, by command.");
  for (const auto& [command, m] : s.commands) {
    if (m.latency_ns != nullptr) AppendHistogramSamples(out, command, *m.latency_ns);
  }
}

void AppendScalar(std::string* out, std::string_view name, std::string_view type,
                  std::string_view help, const std::string& value) {
  AppendHeader(out, name, type, help);
  AppendSample(out, name, "", value);
}

}  // namespace

std::string FormatPrometheus(const MetricsSnapshot& s) {
  std::string out;
  AppendCommandCounter(&out, s, "memstand_requests_total", "Requests completed, by command.",
                       &CommandMetrics::requests_total);
  AppendErrors(&out, s);
  AppendCommandCounter(&out, s, "memstand_hits_total", "Reads that found their key.",
                       &CommandMetrics::hits_total);
  AppendCommandCounter(&out, s, "memstand_misses_total", "Reads that did not find their key.",
                       &CommandMetrics::misses_total);
  AppendCommandCounter(&out, s, "memstand_bytes_sent_total",
                       "Application bytes written to sockets, by command.",
                       &CommandMetrics::bytes_sent_total);
  AppendCommandCounter(&out, s, "memstand_bytes_received_total",
                       "Application bytes read from sockets, by command.",
                       &CommandMetrics::bytes_received_total);
  AppendHistograms(&out, s);
  AppendScalar(&out, "memstand_send_lag_seconds", "gauge",
               "How far sending is behind the request schedule.", FormatDouble(s.send_lag_seconds));
  AppendScalar(&out, "memstand_client_cpu_seconds_total", "counter",
               "User plus system CPU time of the memstand process.",
               FormatDouble(s.client_cpu_seconds_total));
  AppendScalar(&out, "memstand_connections", "gauge", "Connections open to the target.",
               std::to_string(s.connections_open));
  AppendScalar(&out, "memstand_run_elapsed_seconds", "gauge", "Time since the run started.",
               FormatDouble(s.run_elapsed_seconds));
  AppendHeader(&out, "memstand_build_info", "gauge", "The memstand version; always 1.");
  AppendSample(&out, "memstand_build_info", Label("version", s.version), "1");
  return out;
}

}  // namespace memstand

#include "report/merge_series.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <map>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "report/histogram_json.h"
#include "stats/encoded_histogram.h"
#include "stats/hdr_log.h"

namespace memstand::merge_internal {

namespace {

using Json = nlohmann::ordered_json;

// One second of one series, the inputs' points added so far.
struct Second {
  SeriesPoint point;
  std::optional<HdrHistogram> latency;  // the sum while every point had one
  bool complete = true;
};
using Seconds = std::map<int, Second>;

int64_t SeriesStart(const Json& d) {
  return std::llround(d.value("series_start_unix_s", 0.0));
}

bool SameSettings(const HdrHistogram& a, const HdrHistogram& b) {
  return a.lowest_discernible() == b.lowest_discernible() &&
         a.highest_trackable() == b.highest_trackable() &&
         a.significant_figures() == b.significant_figures();
}

void AddInto(const HdrHistogram& h, Second* s) {
  if (!s->latency) s->latency.emplace(h);
  else s->latency->Add(h);
}

// Adds p's histogram to s, or marks s incomplete when p has none.
Status AddHistogram(const Json& p, const HdrHistogram& settings, Second* s) {
  if (!p.contains("histogram")) {
    s->complete = false;
    return Status::OK();
  }
  auto e = IntervalHistogramFromJson(p["histogram"]);
  if (!e.ok()) return e.status();
  auto h = DecodeHistogram(*e);
  if (!h.ok()) return h.status();
  if (!SameSettings(*h, settings)) {
    return Status::InvalidArgument("its settings differ from the command's latency histogram");
  }
  AddInto(*h, s);
  return Status::OK();
}

void AddCounts(const Json& p, Second* s) {
  s->point.ops += p.value("ops", uint64_t{0});
  s->point.errors += p.value("errors", uint64_t{0});
  s->point.ok += p.value("ok", uint64_t{0});
  s->point.failed += p.value("fail", uint64_t{0});
  s->point.unknown += p.value("unknown", uint64_t{0});
  const int64_t max_ns = std::llround(p.value("max_us", 0.0) * 1000);
  s->point.max_ns = std::max(s->point.max_ns, max_ns);
}

// The points of one label of every input, by wall-clock second from `first`. With
// `settings` (a command's series) their histograms are added too.
Status Collect(const std::vector<MergeInput>& inputs, const std::string& label, int64_t first,
               const HdrHistogram* settings, Seconds* out) {
  for (const MergeInput& in : inputs) {
    const int64_t offset = SeriesStart(in.doc) - first;
    for (const Json& p : in.doc["series"].value(label, Json::array())) {
      const int64_t at = offset + p.value("second", int64_t{0});
      if (at < INT_MIN || at > INT_MAX) {
        return Status::InvalidArgument(fmt::format("{}: series \"{}\" second {}: {} s from the first input's "
                                                   "series start: not one fleet's run",
                                                   in.path, label, p.value("second", int64_t{0}), at));
      }
      const int second = static_cast<int>(at);
      Second& s = (*out)[second];
      s.point.second = second;
      AddCounts(p, &s);
      if (settings == nullptr) continue;
      Status st = AddHistogram(p, *settings, &s);
      if (!st.ok()) {
        return Status::InvalidArgument(fmt::format("{}: series \"{}\" second {}: {}", in.path,
                                                   label, p.value("second", 0), st.message()));
      }
    }
  }
  return Status::OK();
}

// The points of `seconds`, their percentiles from the added histograms (and the
// encoding kept when `keep_histogram`).
std::vector<SeriesPoint> Points(Seconds& seconds, bool keep_histogram) {
  std::vector<SeriesPoint> points;
  for (auto& [second, s] : seconds) {
    s.point.percentiles_known = s.complete && s.latency.has_value();
    if (s.point.percentiles_known) {
      const int64_t max_ns = s.point.max_ns;
      SetPercentiles(*s.latency, &s.point);
      s.point.max_ns = std::max(max_ns, s.point.max_ns);
      if (keep_histogram) s.point.latency = EncodeHistogram(*s.latency);
    }
    points.push_back(s.point);
  }
  return points;
}

}  // namespace

Status MergeSeries(const std::vector<MergeInput>& inputs, const LoadOptions& o, RunResult* r) {
  int64_t first = INT64_MAX;
  for (const MergeInput& in : inputs) first = std::min(first, SeriesStart(in.doc));
  r->series_start_unix_s = static_cast<double>(first);
  Seconds total;
  Status s = Collect(inputs, "Total", first, nullptr, &total);
  for (size_t i = 0; s.ok() && i < o.commands.size(); ++i) {
    Seconds seconds;
    s = Collect(inputs, o.commands[i].label, first, &r->totals.commands[i].latency_ns, &seconds);
    // All commands' second: the sum of every command's histogram of that second.
    for (const auto& [second, c] : seconds) {
      Second& t = total[second];
      t.point.second = second;
      t.complete &= c.complete;
      if (c.latency) AddInto(*c.latency, &t);
    }
    r->series.push_back(Points(seconds, true));
  }
  if (!s.ok()) return s;
  r->series.push_back(Points(total, false));
  return Status::OK();
}

}  // namespace memstand::merge_internal

namespace memstand {

namespace {

// A command's point of one second as a histogram: decoded, or `empty` when the second
// had no request of it. InvalidArgument when it had requests but no histogram.
Result<HdrHistogram> PointHistogram(const SeriesPoint* p, const std::string& label,
                                    const HdrHistogram& empty) {
  if (p == nullptr || (p->ops == 0 && p->latency.v2_base64.empty())) return empty;
  if (!p->percentiles_known || p->latency.v2_base64.empty()) {
    return Status::InvalidArgument(fmt::format(
        "series \"{}\" second {} has no histogram (an input without per-second histograms, "
        "written by an older memstand): the log would not be exact",
        label, p->second));
  }
  auto h = DecodeHistogram(p->latency);
  if (!h.ok()) return h.status().WithContext(fmt::format("series \"{}\" second {}", label, p->second));
  return h;
}

}  // namespace

// One interval per second of the merged series, each holding the sum of the shards'
// histograms of that wall-clock second; StartTime is second 0's start. A second is
// decoded, written and dropped in turn (a live histogram is ~270 KB).
Result<std::string> MergedHdrLog(const MergedRun& m) {
  const RunResult& r = m.result;
  const size_t n = m.options.commands.size();
  std::vector<std::string> labels;
  std::vector<HdrHistogram> empty;
  for (size_t i = 0; i < n; ++i) {
    labels.push_back(m.options.commands[i].label);
    empty.push_back(r.totals.commands[i].latency_ns);
    empty.back().Reset();
  }
  std::map<int, std::vector<const SeriesPoint*>> seconds;  // a point per command, or null
  for (size_t i = 0; i < n && i < r.series.size(); ++i) {
    for (const SeriesPoint& p : r.series[i]) {
      auto& points = seconds[p.second];
      points.resize(n, nullptr);
      points[i] = &p;
    }
  }
  // The measured window in seconds from second 0: the first and last seconds' true parts.
  const double from = r.measured_start_unix_s - r.series_start_unix_s;
  const double to = from + r.measured_s;
  std::string out;
  HdrLogWriter w(&out);
  Status s = w.WriteHeader(r.series_start_unix_s);
  for (auto it = seconds.begin(); s.ok() && it != seconds.end(); ++it) {
    std::vector<HdrHistogram> decoded;
    std::vector<const HdrHistogram*> histograms;
    for (size_t i = 0; i < n; ++i) {
      auto h = PointHistogram(it->second[i], labels[i], empty[i]);
      if (!h.ok()) return h.status();
      decoded.push_back(std::move(*h));
    }
    for (const HdrHistogram& h : decoded) histograms.push_back(&h);
    const double start = std::max<double>(it->first, from);
    const double length = std::min<double>(it->first + 1, to) - start;
    s = WriteCommandsInterval(&w, labels, start, length > 0 ? length : 1.0, histograms);
  }
  if (!s.ok()) return s;
  return out;
}

}  // namespace memstand

#include "load/intervals.h"

#include <algorithm>

namespace memstand {

namespace {

SeriesPoint Summary(int second, const CommandStats& s) {
  return {second, s.ops, s.errors, s.latency_ns.ValueAtPercentile(50),
          s.latency_ns.ValueAtPercentile(99), s.latency_ns.max()};
}

}  // namespace

IntervalCollector::IntervalCollector(int workers, size_t command_count, IntervalSink sink)
    : workers_(workers),
      command_count_(command_count),
      series_(command_count + 1),
      sink_(std::move(sink)) {}

void IntervalCollector::Publish(IntervalStats&& stats) {
  std::lock_guard<std::mutex> lock(mu_);
  Pending& p = pending_[stats.index];
  if (p.commands.empty()) {
    p.commands = std::move(stats.commands);
  } else {
    for (size_t i = 0; i < command_count_; ++i) p.commands[i].Add(stats.commands[i]);
  }
  if (++p.arrived == workers_) {
    Summarize(stats.index, p.commands);
    pending_.erase(stats.index);
  }
}

void IntervalCollector::Finish() {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [index, p] : pending_) Summarize(index, p.commands);
  pending_.clear();
  for (auto& s : series_) {
    std::sort(s.begin(), s.end(),
              [](const SeriesPoint& a, const SeriesPoint& b) { return a.second < b.second; });
  }
}

void IntervalCollector::Summarize(int index, const std::vector<CommandStats>& commands) {
  if (sink_) sink_(index, commands);
  CommandStats total;
  for (size_t i = 0; i < command_count_; ++i) {
    series_[i].push_back(Summary(index, commands[i]));
    total.Add(commands[i]);
  }
  series_[command_count_].push_back(Summary(index, total));
}

}  // namespace memstand

#include "load/intervals.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>

namespace memstand {

namespace {

SeriesPoint Summary(int second, const CommandStats& s) {
  SeriesPoint p;
  p.second = second;
  p.ops = s.ops;
  p.errors = s.errors;
  p.ok = s.ops - s.errors;
  p.failed = s.failed;
  p.unknown = s.unknown;
  p.bytes_out = s.bytes_out;
  p.bytes_in = s.bytes_in;
  SetPercentiles(s.latency_ns, &p);
  if (s.send_lag_ns.total_count() > 0) {
    p.send_lag_p99_ns = s.send_lag_ns.ValueAtPercentile(99);
    p.send_lag_max_ns = s.send_lag_ns.max();
  }
  return p;
}

}  // namespace

void SetPercentiles(const HdrHistogram& latency, SeriesPoint* p) {
  p->p50_ns = latency.ValueAtPercentile(50);
  p->p90_ns = latency.ValueAtPercentile(90);
  p->p99_ns = latency.ValueAtPercentile(99);
  p->p999_ns = latency.ValueAtPercentile(99.9);
  p->max_ns = latency.max();
}

IntervalCollector::IntervalCollector(int workers, size_t command_count, IntervalSink sink)
    : workers_(workers),
      command_count_(command_count),
      series_(command_count + 1),
      sink_(std::move(sink)),
      thread_([this] { Run(); }) {
  // Set here, not by the thread: a Finish right after the start must find it set.
  sched_param idle{};
  pthread_setschedparam(thread_.native_handle(), SCHED_IDLE, &idle);  // a refusal leaves it as it was
}

IntervalCollector::~IntervalCollector() { Finish(); }

void IntervalCollector::Publish(IntervalStats&& stats) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(stats));
  }
  wake_.notify_one();
}

std::vector<CommandStats> IntervalCollector::Recycled() {
  std::lock_guard<std::mutex> lock(mu_);
  if (spare_.empty()) return {};
  std::vector<CommandStats> commands = std::move(spare_.back());
  spare_.pop_back();
  return commands;
}

void IntervalCollector::GiveBack(std::vector<CommandStats>&& commands) {
  if (commands.size() != command_count_) return;
  for (CommandStats& c : commands) c.Reset();
  std::lock_guard<std::mutex> lock(mu_);
  if (spare_.size() < kMaxSpare) spare_.push_back(std::move(commands));
}

void IntervalCollector::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    wake_.wait(lock, [this] { return finishing_ || !queue_.empty(); });
    if (finishing_) return;  // Finish takes what is left, on its caller's thread
    IntervalStats s = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();  // a worker's Publish never waits for a summary
    Take(std::move(s));
    lock.lock();
  }
}

void IntervalCollector::Take(IntervalStats&& stats) {
  Pending& p = pending_[stats.index];
  if (p.commands.empty()) {
    p.commands = std::move(stats.commands);
  } else {
    for (size_t i = 0; i < command_count_; ++i) p.commands[i].Add(stats.commands[i]);
    GiveBack(std::move(stats.commands));
  }
  if (++p.arrived == workers_) {
    Summarize(stats.index, p.commands);
    GiveBack(std::move(p.commands));
    pending_.erase(stats.index);
  }
}

void IntervalCollector::Finish() {
  if (!thread_.joinable()) return;
  // The second the thread may be summarizing ends at the default scheduler's priority
  // where the kernel allows it (leaving SCHED_IDLE needs CAP_SYS_NICE or RLIMIT_NICE);
  // what is still queued is summarized here, on the caller's thread.
  sched_param normal{};
  pthread_setschedparam(thread_.native_handle(), SCHED_OTHER, &normal);
  {
    std::lock_guard<std::mutex> lock(mu_);
    finishing_ = true;
  }
  wake_.notify_one();
  thread_.join();
  for (IntervalStats& s : queue_) Take(std::move(s));
  queue_.clear();
  for (const auto& [index, p] : pending_) Summarize(index, p.commands);
  pending_.clear();
  for (auto& s : series_) {
    std::sort(s.begin(), s.end(),
              [](const SeriesPoint& a, const SeriesPoint& b) { return a.second < b.second; });
  }
}

void IntervalCollector::Summarize(int index, const std::vector<CommandStats>& commands) {
  if (sink_) sink_(index, commands);
  total_.Reset();
  for (size_t i = 0; i < command_count_; ++i) {
    series_[i].push_back(Summary(index, commands[i]));
    series_[i].back().latency = EncodeHistogram(commands[i].latency_ns);
    total_.Add(commands[i]);
  }
  series_[command_count_].push_back(Summary(index, total_));
}

}  // namespace memstand

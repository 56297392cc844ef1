#include "stand/resource_sampler.h"

#include <algorithm>
#include <chrono>

#include "core/clock.h"

namespace memstand {

namespace {

int64_t Delta(int64_t after, int64_t before) {
  return after < 0 || before < 0 ? -1 : after - before;
}

}  // namespace

Result<std::unique_ptr<ResourceSampler>> ResourceSampler::Start(
    std::vector<WatchedProcess> processes, int period_ms) {
  std::unique_ptr<ResourceSampler> s(new ResourceSampler(std::move(processes), period_ms));
  for (const ResourceSeries& r : s->series_) {
    auto first = ReadProcSample(r.process.pid);
    if (!first.ok()) return first.status().WithContext("sampling " + r.process.label);
    s->last_.push_back(*first);
  }
  s->thread_ = std::thread([p = s.get()] { p->Loop(); });
  return s;
}

ResourceSampler::ResourceSampler(std::vector<WatchedProcess> processes, int period_ms)
    : period_ms_(std::max(period_ms, 1)), start_ns_(NowNs()) {
  for (auto& p : processes) series_.push_back({std::move(p), {}, ""});
}

ResourceSampler::~ResourceSampler() { Stop(); }

std::vector<ResourceSeries> ResourceSampler::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_) return series_;
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> lock(mu_);
  SampleAll();
  return series_;
}

void ResourceSampler::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  auto next = std::chrono::steady_clock::now();
  for (;;) {
    next += std::chrono::milliseconds(period_ms_);
    if (cv_.wait_until(lock, next, [this] { return stop_; })) return;
    SampleAll();
  }
}

void ResourceSampler::SampleAll() {
  const double t = (NowNs() - start_ns_) / 1e9;
  for (size_t i = 0; i < series_.size(); ++i) {
    ResourceSeries& r = series_[i];
    if (!r.ended.empty()) continue;
    auto now = ReadProcSample(r.process.pid);
    if (!now.ok()) {
      r.ended = now.status().code() == Status::Code::kNotFound ? "exited" : now.status().message();
      continue;
    }
    const ProcSample& before = last_[i];
    r.points.push_back({t, now->user_sec - before.user_sec, now->sys_sec - before.sys_sec,
                        now->rss_bytes, Delta(now->read_bytes, before.read_bytes),
                        Delta(now->write_bytes, before.write_bytes)});
    last_[i] = *now;
  }
}

ResourceSummary Summarize(const ResourceSeries& series) {
  ResourceSummary s;
  double prev_t = 0, rss_sum = 0;
  bool io_known = true;
  s.read_bytes = s.write_bytes = 0;
  for (const ResourcePoint& p : series.points) {
    const double dt = p.t_s - prev_t;
    prev_t = p.t_s;
    const double cpu = p.cpu_user_s + p.cpu_sys_s;
    s.cpu_s += cpu;
    // A short last interval would turn one 10 ms clock tick into a large share.
    if (dt >= kMinShareIntervalS) s.cpu_share_max = std::max(s.cpu_share_max, cpu / dt);
    rss_sum += static_cast<double>(p.rss_bytes);
    s.rss_max = std::max(s.rss_max, p.rss_bytes);
    io_known = io_known && p.read_bytes >= 0 && p.write_bytes >= 0;
    if (io_known) {
      s.read_bytes += p.read_bytes;
      s.write_bytes += p.write_bytes;
    }
  }
  s.seconds = prev_t;
  if (prev_t > 0) s.cpu_share_mean = s.cpu_s / prev_t;
  if (!series.points.empty()) s.rss_mean = static_cast<int64_t>(rss_sum / series.points.size());
  if (!io_known || series.points.empty()) s.read_bytes = s.write_bytes = -1;
  return s;
}

}  // namespace memstand

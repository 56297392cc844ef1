#include "stand/cluster_watch.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <sstream>

#include "client/redis_info.h"
#include "core/clock.h"

namespace memstand {

void ConditionTimeline::Observe(double t, const std::set<std::string>& holding) {
  for (auto it = open_.begin(); it != open_.end();) {
    if (holding.count(it->first) == 0) {
      done_.push_back({it->first, it->second, t, false});
      it = open_.erase(it);
    } else {
      ++it;
    }
  }
  for (const std::string& c : holding) open_.emplace(c, t);
}

std::vector<HeldInterval> ConditionTimeline::Finish(double t) {
  for (const auto& [what, from] : open_) done_.push_back({what, from, t, true});
  open_.clear();
  std::vector<HeldInterval> out = done_;
  std::stable_sort(out.begin(), out.end(), [](const HeldInterval& a, const HeldInterval& b) {
    return a.from_s != b.from_s ? a.from_s < b.from_s : a.what < b.what;
  });
  return out;
}

std::vector<NodeFlags> ParseClusterNodes(const std::string& text) {
  std::vector<NodeFlags> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::istringstream f(line);
    std::string id, addr, flags;
    if (!(f >> id >> addr >> flags)) continue;
    const size_t colon = addr.rfind(':', addr.find('@'));
    if (colon == std::string::npos) continue;
    NodeFlags n;
    n.port = std::atoi(addr.c_str() + colon + 1);
    if (n.port <= 0) continue;
    std::istringstream list(flags);
    for (std::string flag; std::getline(list, flag, ',');) n.flags.insert(flag);
    out.push_back(std::move(n));
  }
  return out;
}

std::set<std::string> ClusterConditions(const std::string& observer, const std::string& cluster_state,
                                        const std::vector<NodeFlags>& nodes,
                                        const std::map<int, std::string>& names) {
  std::set<std::string> out;
  if (cluster_state != "ok") out.insert(observer + " cluster_state:" + cluster_state);
  for (const NodeFlags& n : nodes) {
    auto it = names.find(n.port);
    const std::string name = it != names.end() ? it->second : "port " + std::to_string(n.port);
    if (n.flags.count("fail?") > 0) out.insert(name + " pfail");
    if (n.flags.count("fail") > 0) out.insert(name + " fail");
  }
  return out;
}

std::unique_ptr<ClusterWatch> ClusterWatch::Start(std::vector<WatchedNode> nodes, int period_ms,
                                                  int timeout_ms) {
  std::unique_ptr<ClusterWatch> w(new ClusterWatch(std::move(nodes), period_ms, timeout_ms));
  w->thread_ = std::thread([p = w.get()] { p->Loop(); });
  return w;
}

ClusterWatch::ClusterWatch(std::vector<WatchedNode> nodes, int period_ms, int timeout_ms)
    : nodes_(std::move(nodes)), period_ms_(period_ms), timeout_ms_(timeout_ms), start_ns_(NowNs()) {
  for (const WatchedNode& n : nodes_) names_[n.port] = n.name;
  clients_.resize(nodes_.size());
}

ClusterWatch::~ClusterWatch() { Stop(); }

ClusterWatchResult ClusterWatch::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_) return result_;
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> lock(mu_);
  stopped_ = true;
  return result_;
}

void ClusterWatch::Loop() {
  for (;;) {
    Sample();
    std::unique_lock<std::mutex> lock(mu_);
    if (stop_) break;
    cv_.wait_for(lock, std::chrono::milliseconds(period_ms_), [this] { return stop_; });
    if (stop_) break;
  }
  Sample();  // the last one, at the end of the watch
  const double end = static_cast<double>(NowNs() - start_ns_) / 1e9;
  std::lock_guard<std::mutex> lock(mu_);
  result_.samples = samples_;
  result_.period_s = period_ms_ / 1000.0;
  result_.seconds = end;
  result_.intervals = timeline_.Finish(end);
  clients_.clear();
}

std::set<std::string> ClusterWatch::SampleNode(size_t i) {
  const WatchedNode& n = nodes_[i];
  const std::set<std::string> silent = {n.name + " no answer"};
  if (clients_[i] == nullptr) {
    auto c = RedisClient::Connect(n.host, n.port, timeout_ms_);
    if (!c.ok()) return silent;
    clients_[i] = std::move(*c);
  }
  auto info = clients_[i]->Command({"CLUSTER", "INFO"});
  auto nodes = info.ok() ? clients_[i]->Command({"CLUSTER", "NODES"}) : info;
  if (!info.ok() || !nodes.ok() || info->is_error() || nodes->is_error()) {
    if (!info.ok() || !nodes.ok()) clients_[i].reset();  // a broken connection is not reused
    return silent;
  }
  return ClusterConditions(n.name, ParseInfo(info->str)["cluster_state"], ParseClusterNodes(nodes->str),
                           names_);
}

void ClusterWatch::Sample() {
  const double t = static_cast<double>(NowNs() - start_ns_) / 1e9;
  std::set<std::string> holding;
  for (size_t i = 0; i < nodes_.size(); ++i) holding.merge(SampleNode(i));
  timeline_.Observe(t, holding);
  ++samples_;
}

}  // namespace memstand

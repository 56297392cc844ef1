#include "scenario/stretched_cache/pair.h"

#include <cstdlib>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "client/redis_info.h"
#include "core/clock.h"
#include "scenario/kit/poll.h"

namespace memstand {
namespace {

constexpr int64_t kLinkTimeoutNs = 30'000'000'000;  // a re-sync through 40 ms is ~1 s
constexpr int64_t kPollGapNs = 2'000'000;

Result<std::map<std::string, std::string>> Info(ServerUnderTest& server, const char* section) {
  RedisClient* c = server.redis();
  if (c == nullptr) return Status::Failed(server.config().name + ": no control connection");
  auto r = c->Command({"INFO", section});
  const std::string what = server.config().name + " INFO " + section;
  if (!r.ok()) return r.status().WithContext(what);
  if (r->is_error()) return Status::Server(what + ": " + r->str);
  return ParseInfo(r->str);
}

// A command the replica must answer with a simple string (OK, or "OK Already ...").
Status ReplicaCommand(ServerUnderTest& replica, const std::vector<std::string>& args) {
  RedisClient* c = replica.redis();
  if (c == nullptr) return Status::Failed("the replica: no control connection");
  auto r = c->Command(args);
  if (!r.ok()) return r.status().WithContext(args[0]);
  if (r->is_error()) return Status::Server(args[0] + ": " + r->str);
  return Status::OK();
}

int64_t Int(const std::map<std::string, std::string>& info, const char* key) {
  auto it = info.find(key);
  return it == info.end() ? -1 : std::strtoll(it->second.c_str(), nullptr, 10);
}

std::string Field(const std::map<std::string, std::string>& info, const char* key) {
  auto it = info.find(key);
  return it == info.end() ? "(absent)" : it->second;
}

}  // namespace

std::string LinkCheck::Describe() const {
  return fmt::format("link up: master_link_status:{} {}, connected_slaves {}, primary offset {}, replica "
                     "offset {} (caught up), {:.1f} ms after REPLICAOF, full syncs {}, partial {}",
                     master_link_status, via, connected_replicas, primary_offset, replica_offset, waited_ms,
                     full_syncs, partial_syncs);
}

Result<std::unique_ptr<ReplicatedPair>> ReplicatedPair::Start(const std::atomic<bool>* cancel) {
  std::unique_ptr<ReplicatedPair> pair(new ReplicatedPair());
  pair->cancel_ = cancel;
  ServerConfig primary{"primary", SystemKind::kRedis, {{"repl-diskless-sync-delay", "0"}}, ""};
  ServerConfig replica{"replica", SystemKind::kRedis, {}, ""};
  auto p = ServerUnderTest::Start(primary, cancel);
  if (!p.ok()) return p.status().WithContext("the primary");
  pair->primary_ = std::move(*p);
  auto r = ServerUnderTest::Start(replica, cancel);
  if (!r.ok()) return r.status().WithContext("the replica");
  pair->replica_ = std::move(*r);
  auto check = pair->Route(nullptr, "start");
  if (!check.ok()) return check.status();
  return pair;
}

ReplicatedPair::~ReplicatedPair() { Stop(); }

std::string ReplicatedPair::primary_address() const {
  const RedisTarget t = primary_->target();
  return fmt::format("{}:{}", t.host, t.port);
}

Result<LinkCheck> ReplicatedPair::Route(const RelayOptions* relay, const std::string& label) {
  const RedisTarget p = primary_->target();
  std::unique_ptr<Relay> next;
  int port = p.port;
  std::string via = "direct to " + primary_address();
  if (relay != nullptr) {
    RelayOptions o = *relay;
    for (RelayLink& l : o.links) {
      l.target_host = p.host;
      l.target_port = p.port;
    }
    auto started = Relay::Start(o);
    if (!started.ok()) return started.status().WithContext("the relay");
    next = std::move(*started);
    port = next->listen_port(0);
    via = fmt::format("via relay {}:{} -> {}", o.links.at(0).listen_host, port, primary_address());
  }
  auto stats = Info(*primary_, "stats");
  if (!stats.ok()) return stats.status();
  const int64_t t0 = NowNs();
  // A full sync every time: after a partial one (PSYNC +CONTINUE) Redis 7.0 keeps its
  // cached master client on the new socket without setting TCP_NODELAY on it (seen with
  // strace), and Nagle then holds the replica's second small ACK. REPLICAOF NO ONE gives
  // the replica a new replication id, which the primary does not know: a full sync, whose
  // new master client sets TCP_NODELAY.
  Status s = ReplicaCommand(*replica_, {"REPLICAOF", "NO", "ONE"});
  if (s.ok()) s = ReplicaCommand(*replica_, {"REPLICAOF", p.host, std::to_string(port)});
  if (!s.ok()) return s;
  std::unique_ptr<Relay> previous = std::move(relay_);
  relay_ = std::move(next);
  auto check = WaitCaughtUp(port, label, t0);
  if (check.ok()) {
    auto after = Info(*primary_, "stats");
    if (!after.ok()) return after.status();
    check->full_syncs = Int(*after, "sync_full") - Int(*stats, "sync_full");
    check->partial_syncs = Int(*after, "sync_partial_ok") - Int(*stats, "sync_partial_ok");
  }
  if (previous != nullptr) previous->Stop();
  if (!check.ok()) return check.status().WithContext(label + ", " + via);
  check->via = via;
  return check;
}

Result<LinkCheck> ReplicatedPair::WaitCaughtUp(int port, const std::string& label, int64_t since_ns) {
  std::string last = "nothing read yet";
  LinkCheck c;
  const PollResult poll = PollUntil(since_ns + kLinkTimeoutNs, kPollGapNs, [&]() -> Result<bool> {
    auto pi = Info(*primary_, "replication");
    if (!pi.ok()) return pi.status();
    auto ri = Info(*replica_, "replication");
    if (!ri.ok()) return ri.status();
    c = LinkCheck{};
    c.label = label;
    c.master_link_status = Field(*ri, "master_link_status");
    c.connected_replicas = Int(*pi, "connected_slaves");
    c.primary_offset = Int(*pi, "master_repl_offset");
    c.replica_offset = Int(*ri, "slave_repl_offset");
    const bool right_port = Int(*ri, "master_port") == port;
    const bool online = Field(*pi, "slave0").find("state=online") != std::string::npos;
    if (right_port && c.master_link_status == "up" && c.connected_replicas == 1 && online &&
        c.replica_offset >= c.primary_offset) {
      c.waited_ms = static_cast<double>(NowNs() - since_ns) / 1e6;
      return true;
    }
    last = fmt::format("master_port {} (want {}), master_link_status:{}, connected_slaves {}, slave0 {}, "
                       "primary offset {}, replica offset {}",
                       Field(*ri, "master_port"), port, c.master_link_status, c.connected_replicas,
                       Field(*pi, "slave0"), c.primary_offset, c.replica_offset);
    return false;
  }, cancel_);
  if (poll.cancelled) return Status::Failed("interrupted");
  if (!poll.failure.ok()) return poll.failure;
  if (!poll.met) return Status::Failed("the replication link was not up and caught up within 30 s; last: " + last);
  return c;
}

Status ReplicatedPair::Stop() {
  Status s;
  if (replica_ != nullptr) s = replica_->Stop();
  if (relay_ != nullptr) relay_->Stop();
  if (primary_ != nullptr) {
    Status p = primary_->Stop();
    if (s.ok()) s = p;
  }
  return s;
}

}  // namespace memstand

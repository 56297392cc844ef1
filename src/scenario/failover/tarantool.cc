#include "scenario/failover/tarantool.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <thread>

#include <fmt/format.h>

#include "core/clock.h"
#include "load/proto_control.h"
#include "proto/iproto/value.h"
#include "scenario/kit/poll.h"
#include "scenario/kit/topology_nodes.h"

namespace memstand {
namespace {

constexpr int kTtControlTimeoutMs = 1000;
// A ping's bound: a stopped master never answers; several pings fit in a detection timeout.
constexpr int kTtPingTimeoutMs = 250;
constexpr int64_t kTtPollNs = 10'000'000;
// box.cfg{replication = ...} returns once the new upstream is connected.
constexpr int kTtReconfigureTimeoutMs = 5000;

Result<std::unique_ptr<ProtoControl>> ConnectTt(const NodeRecord& n, int timeout_ms) {
  return ProtoControl::Connect(Protocol::kIproto, TargetOfNode(n, Protocol::kIproto), timeout_ms);
}

// EVAL of `lua` on n over a connection of its own; the first value it returns.
Result<iproto::Value> TtEval(const NodeRecord& n, const std::string& lua, std::vector<iproto::Value> args,
                             int timeout_ms = kTtControlTimeoutMs) {
  auto c = ConnectTt(n, timeout_ms);
  if (!c.ok()) return c.status().WithContext(n.name);
  auto r = (*c)->Eval(lua, iproto::Value::Array(std::move(args)));
  if (!r.ok()) return r.status().WithContext(n.name);
  if (r->type() != iproto::Value::Type::kArray || r->items().empty()) return iproto::Value::Nil();
  return r->items()[0];
}

Result<uint64_t> TtUint(const Result<iproto::Value>& v, const std::string& what) {
  if (!v.ok()) return v.status();
  if (v->type() == iproto::Value::Type::kUint) return v->uint_value();
  if (v->type() == iproto::Value::Type::kInt && v->int_value() >= 0) return static_cast<uint64_t>(v->int_value());
  return Status::Protocol(what + " is not an unsigned integer: " + iproto::ToString(*v));
}

const NodeRecord* TtNode(const Topology& t, const std::string& name) {
  for (const NodeRecord& n : t.nodes()) {
    if (n.name == name) return &n;
  }
  return nullptr;
}

std::string TtSince(int64_t unix_ns, int64_t from_unix_ns) {
  return fmt::format("{:.3f} s", static_cast<double>(unix_ns - from_unix_ns) / 1e9);
}

// --- The orchestrator's steps ------------------------------------------------------

// Pings the master until detection_ms passed since its last answer (declared dead:
// true) or `stop` (false).
bool TtDetectDeath(const NodeRecord& master, int detection_ms, const std::atomic<bool>& stop) {
  std::unique_ptr<ProtoControl> c;
  int64_t last_ok_ns = NowNs();  // the watch starts at the fault: the master answered until then
  const int64_t detection_ns = int64_t{detection_ms} * 1'000'000;
  while (!stop.load()) {
    if (c == nullptr) {
      // An attempt ends by the detection's deadline: a stopped master's connect (accepted
      // by the kernel, never greeted) must not push the detection past it.
      const int64_t left_ms = (last_ok_ns + detection_ns - NowNs()) / 1'000'000;
      auto connected = ConnectTt(master, static_cast<int>(std::clamp<int64_t>(left_ms, 10, kTtPingTimeoutMs)));
      if (connected.ok()) c = std::move(*connected);
    }
    if (c != nullptr) {
      if ((*c).Eval("return 1", iproto::Value::Array({})).ok()) {
        last_ok_ns = NowNs();
      } else {
        c.reset();
      }
    }
    if (NowNs() - last_ok_ns >= detection_ns) return true;
    std::this_thread::sleep_for(std::chrono::nanoseconds(kTtPollNs));
  }
  return false;
}

std::vector<ReplicaPosition> TtPositions(const Topology& t, const TarantoolSet& set) {
  std::vector<ReplicaPosition> out;
  for (const NodeRecord& n : t.nodes()) {
    if (n.name == set.master) continue;
    ReplicaPosition p;
    p.node = n.name;
    auto lsn = TtUint(TtEval(n, "local id = ... return box.info.vclock[id] or 0", {iproto::Value::Uint(set.master_id)}),
                      "box.info.vclock");
    p.reachable = lsn.ok();
    p.master_lsn = lsn.ok() ? *lsn : 0;
    out.push_back(p);
  }
  return out;
}

// box.cfg{read_only = false} on the chosen replica, then until it says box.info.ro false.
Status TtPromote(const NodeRecord& n, const std::atomic<bool>& stop) {
  auto set = TtEval(n, "box.cfg{read_only = false} return box.info.ro", {});
  if (!set.ok()) return set.status();
  PollResult p = PollUntil(DeadlineInMs(10'000), kTtPollNs, [&]() -> Result<bool> {
    auto ro = TtEval(n, "return box.info.ro", {});
    return ro.ok() && ro->type() == iproto::Value::Type::kBool && !ro->boolean();
  }, &stop);
  if (p.met) return Status::OK();
  return Status::Failed(p.cancelled ? "the run ended first" : "box.info.ro stayed true for 10 s");
}

}  // namespace

Status PrepareTarantoolSet(const Topology& t, TarantoolSet* set) {
  const NodeRecord* master = nullptr;
  for (const NodeRecord& n : t.nodes()) {
    if (n.role == "master" && master == nullptr) master = &n;
  }
  if (master == nullptr) return Status::Failed("the replica set has no master");
  set->master = master->name;
  auto id = TtUint(TtEval(*master, "return box.info.id", {}), "box.info.id");
  if (!id.ok()) return id.status().WithContext("reading the master's id");
  set->master_id = *id;
  const std::string create = fmt::format(
      "box.schema.space.create('{0}', {{if_not_exists = true}}) "
      "box.space.{0}:create_index('pk', {{type = 'tree', parts = {{1, 'string'}}, if_not_exists = true}}) "
      "return true",
      kTarantoolSpace);
  auto created = TtEval(*master, create, {});
  if (!created.ok()) return created.status().WithContext("creating space " + std::string(kTarantoolSpace));
  const std::string seen = fmt::format("return box.space.{0} ~= nil and box.space.{0}.index.pk ~= nil", kTarantoolSpace);
  for (const NodeRecord& n : t.nodes()) {
    PollResult p = PollUntil(DeadlineInMs(10'000), kTtPollNs, [&]() -> Result<bool> {
      auto v = TtEval(n, seen, {});
      return v.ok() && v->type() == iproto::Value::Type::kBool && v->boolean();
    });
    if (!p.met) return Status::Failed(n.name + " did not get space " + kTarantoolSpace + " within 10 s");
  }
  return Status::OK();
}

Result<RedisTarget> TarantoolPoolTarget(const Topology& t) {
  std::string hosts;
  for (const NodeRecord& n : t.nodes()) hosts += (hosts.empty() ? "" : ",") + NodeAddress(n);
  return ParseTargetUrl("tarantool+rw://" + hosts);
}

std::vector<std::string> TarantoolCommands() {
  return {fmt::format("replace {} [__key__, __data__]", kTarantoolSpace),
          fmt::format("select {} 0 eq [__key__] limit 1", kTarantoolSpace)};
}

int MostAdvanced(const std::vector<ReplicaPosition>& replicas) {
  int best = -1;
  for (size_t i = 0; i < replicas.size(); ++i) {
    if (!replicas[i].reachable) continue;
    if (best < 0 || replicas[i].master_lsn > replicas[best].master_lsn) best = static_cast<int>(i);
  }
  return best;
}

void OrchestrateTarantool(const Topology& t, const TarantoolSet& set, int detection_ms,
                          const std::atomic<bool>& stop, Orchestration* out) {
  const NodeRecord* master = TtNode(t, set.master);
  const int64_t start_unix_ns = UnixNowNs();
  if (master == nullptr || !TtDetectDeath(*master, detection_ms, stop)) return;
  out->detect_unix_ns = UnixNowNs();
  out->steps.push_back(fmt::format("orchestrator: {} declared dead {} after the watch began ({} ms without an answer "
                                   "to a ping)",
                                   set.master, TtSince(out->detect_unix_ns, start_unix_ns), detection_ms));
  const std::vector<ReplicaPosition> positions = TtPositions(t, set);
  std::string said;
  for (const ReplicaPosition& p : positions) {
    said += fmt::format("{}{} {}", said.empty() ? "" : ", ", p.node,
                        p.reachable ? fmt::format("vclock[{}] = {}", set.master_id, p.master_lsn) : "unreachable");
  }
  const int chosen = MostAdvanced(positions);
  if (chosen < 0) {
    out->steps.push_back("orchestrator: no replica answered (" + said + "): none promoted");
    return;
  }
  const NodeRecord& successor = *TtNode(t, positions[chosen].node);
  out->steps.push_back(fmt::format("orchestrator: positions {}; promoting {}", said, successor.name));
  if (Status s = TtPromote(successor, stop); !s.ok()) {
    out->steps.push_back("orchestrator: promoting " + successor.name + " failed: " + s.message());
    return;
  }
  out->promote_unix_ns = UnixNowNs();
  out->new_master = successor.name;
  out->steps.push_back(fmt::format("orchestrator: {} writable (box.info.ro false) {} after the watch began",
                                   successor.name, TtSince(out->promote_unix_ns, start_unix_ns)));
  const std::string follow = fmt::format("box.cfg{{replication = {{'{}'}}}} return true", NodeAddress(successor));
  for (const ReplicaPosition& p : positions) {
    if (p.node == successor.name) continue;
    auto r = TtEval(*TtNode(t, p.node), follow, {}, kTtReconfigureTimeoutMs);
    out->steps.push_back(fmt::format("orchestrator: {} pointed at {}{}", p.node, successor.name,
                                     r.ok() ? "" : ": failed: " + r.status().message()));
  }
  // The old master, should it come back (a pause), would take writes beside the new one:
  // it is fenced as soon as it answers.
  const std::string fence =
      fmt::format("box.cfg{{read_only = true, replication = {{'{}'}}}} return box.info.ro", NodeAddress(successor));
  while (!stop.load()) {
    auto r = TtEval(*master, fence, {}, kTtPingTimeoutMs);
    if (r.ok()) {
      out->steps.push_back(fmt::format("orchestrator: {} back {} after the watch began: fenced (read_only, "
                                       "replicating from {})",
                                       set.master, TtSince(UnixNowNs(), start_unix_ns), successor.name));
      return;
    }
    std::this_thread::sleep_for(std::chrono::nanoseconds(kTtPollNs));
  }
}

}  // namespace memstand

#include "scenario/partition/partition.h"

#include <algorithm>
#include <atomic>
#include <fstream>
#include <iterator>
#include <memory>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "client/redis_client.h"
#include "core/clock.h"
#include "history/history_reader.h"
#include "load/engine.h"
#include "load/history_checks.h"
#include "load/history_events.h"
#include "load/target.h"
#include "relay/relay.h"
#include "scenario/kit/evidence.h"
#include "scenario/kit/nemesis.h"
#include "scenario/kit/poll.h"
#include "scenario/kit/register_load.h"
#include "scenario/kit/runs.h"
#include "scenario/kit/scenario_server.h"
#include "scenario/kit/topology_nodes.h"
#include "scenario/partition/cell.h"
#include "stand/redis_wiring.h"
#include "stand/sentinel_driver.h"
#include "stand/temp_folder.h"
#include "stand/topology.h"

namespace memstand {
namespace {

constexpr const char* kScenario = "partition";
constexpr int kControlTimeoutMs = 1000;
// How often the Sentinels' view and the old primary's role are looked at: their resolution.
constexpr int64_t kWatchPollNs = 10'000'000;
constexpr const char* kKeyPrefix = "partition-";
// The relay's links, in this order: the replicas' and Sentinels' connections to the
// primary, and the load's.
constexpr size_t kPeers = 0, kClients = 1;
const std::vector<std::string>& LinkNames() {
  static const std::vector<std::string> kNames = {"peers", "clients"};
  return kNames;
}
constexpr const char* kLoopback = "127.0.0.1";

TopologySpec SpecOf(const PartitionOptions& o) {
  TopologySpec spec;
  spec.kind = TopologyKind::kRedisSentinel;
  spec.replicas = 2;
  spec.sentinels = 3;
  spec.settings = {{"sentinel.down-after-milliseconds", std::to_string(o.node_timeout_ms)},
                   {"sentinel.failover-timeout", "5000"}};
  return spec;
}

std::vector<const NodeRecord*> NodesWithRole(const Topology& t, const std::string& role) {
  std::vector<const NodeRecord*> out;
  for (const NodeRecord& n : t.nodes()) {
    if (n.role == role) out.push_back(&n);
  }
  return out;
}

RedisEndpoint EndpointOf(const NodeRecord& n) { return {n.name, n.host, n.port, 0}; }

// One command on a node over a connection of its own; a reply that is an error is one.
Result<resp::Reply> CommandOn(const std::string& name, const std::string& host, int port,
                              const std::vector<std::string>& command) {
  auto c = RedisClient::Connect(host, port, kControlTimeoutMs);
  if (!c.ok()) return c.status().WithContext(name);
  auto r = (*c)->Command(command);
  if (!r.ok()) return r.status().WithContext(name + ": " + command[0]);
  if (r->is_error()) return Status::Server(fmt::format("{}: {} {}: {}", name, command[0], command.size() > 1 ? command[1] : "", r->str));
  return r;
}

// Every link between the primary and the others through the relay: each Sentinel
// watches the primary at the peers' link (SENTINEL REMOVE, then MONITOR: it learns the
// replicas and the other Sentinels again from there), each replica replicates from it
// (REPLICAOF); then the same checks as the stand's own wiring.
Status RouteThroughRelay(const Topology& t, const Relay& relay, const PartitionOptions& o,
                         const std::atomic<bool>* cancel) {
  const auto primaries = NodesWithRole(t, "primary");
  if (primaries.size() != 1) return Status::Failed("the topology has no single primary");
  const NodeRecord& primary = *primaries[0];
  const int peer_port = relay.listen_port(kPeers);
  const std::string port = std::to_string(peer_port);
  const auto sentinels = NodesWithRole(t, "sentinel");
  const std::string quorum = std::to_string(sentinels.size() / 2 + 1);
  std::vector<RedisEndpoint> sentinel_endpoints, replica_endpoints;
  for (const NodeRecord* s : sentinels) {
    const std::vector<std::vector<std::string>> commands = {
        {"SENTINEL", "REMOVE", kSentinelMasterName},
        {"SENTINEL", "MONITOR", kSentinelMasterName, kLoopback, port, quorum},
        {"SENTINEL", "SET", kSentinelMasterName, "down-after-milliseconds", std::to_string(o.node_timeout_ms)},
        {"SENTINEL", "SET", kSentinelMasterName, "failover-timeout", "5000"}};
    for (const auto& command : commands) {
      auto r = CommandOn(s->name, s->host, s->port, command);
      if (!r.ok()) return r.status();
    }
    sentinel_endpoints.push_back(EndpointOf(*s));
  }
  for (const NodeRecord* r : NodesWithRole(t, "replica")) {
    auto done = CommandOn(r->name, r->host, r->port, {"REPLICAOF", kLoopback, port});
    if (!done.ok()) return done.status();
    replica_endpoints.push_back(EndpointOf(*r));
  }
  WiringOptions w;
  w.cancel = cancel;
  if (Status s = WaitReplication(EndpointOf(primary), replica_endpoints, w); !s.ok()) {
    return s.WithContext("the replicas through the relay");
  }
  const RedisEndpoint through_relay{primary.name, kLoopback, peer_port, 0};
  if (Status s = WaitSentinels(sentinel_endpoints, kSentinelMasterName, through_relay,
                               static_cast<int>(replica_endpoints.size()), w);
      !s.ok()) {
    return s.WithContext("the Sentinels through the relay");
  }
  return Status::OK();
}

// min-replicas-to-write on every Redis (the replicas too: one of them becomes primary).
Status SetMinReplicas(const Topology& t, const PartitionOptions& o, int min_replicas) {
  if (min_replicas == 0) return Status::OK();
  for (const NodeRecord& n : t.nodes()) {
    if (n.role == "sentinel") continue;
    for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
             {"min-replicas-max-lag", std::to_string(o.max_lag_s)},
             {"min-replicas-to-write", std::to_string(min_replicas)}}) {
      auto r = CommandOn(n.name, n.host, n.port, {"CONFIG", "SET", name, value});
      if (!r.ok()) return r.status();
    }
  }
  return Status::OK();
}

// The load: through the Sentinel target, the primary the Sentinels name at the peers'
// link dialled at the clients' link (the address map a client behind a NAT has).
Result<LoadOptions> LoadOf(const Topology& t, const Relay& relay, const PartitionOptions& o,
                           const std::string& history_path, uint64_t seed) {
  std::string hosts;
  for (const NodeRecord* n : NodesWithRole(t, "sentinel")) hosts += (hosts.empty() ? "" : ",") + NodeAddress(*n);
  auto target = ParseTargetUrl(fmt::format("redis+sentinel://{}/{}", hosts, kSentinelMasterName));
  if (!target.ok()) return target.status();
  target->address_map.push_back({fmt::format("{}:{}", kLoopback, relay.listen_port(kPeers)), kLoopback,
                                 relay.listen_port(kClients)});
  LoadOptions load;
  load.protocol = Protocol::kResp;
  load.target = *target;
  RegisterLoad spec;
  spec.commands = {"SET __key__ __data__", "GET __key__"};
  spec.key_prefix = kKeyPrefix;
  spec.keys = o.keys;
  spec.clients = o.clients;
  spec.rate = o.rate;
  spec.duration_s = o.duration_s;
  spec.seed = seed;
  spec.history_path = history_path;
  if (Status s = MakeRegisterLoad(spec, &load); !s.ok()) return s;
  return load;
}

std::vector<FaultStep> ScheduleOf(const PartitionCell& cell, const PartitionOptions& o, const Topology& t,
                                  Status* error) {
  if (cell.side == "custom") {
    std::vector<std::string> nodes;
    for (const NodeRecord& n : t.nodes()) nodes.push_back(n.name);
    auto steps = ParseFaultSchedule(o.fault, nodes, LinkNames());
    if (!steps.ok()) {
      *error = steps.status();
      return {};
    }
    return *steps;
  }
  const FaultAction fault = o.link_fault == "cut" ? FaultAction::kCut : FaultAction::kBlackhole;
  const double heal = o.cut_at_s + o.partition_s;
  std::vector<FaultStep> steps = {{fault, "peers", o.cut_at_s}};
  if (cell.side == "with-majority") steps.push_back({fault, "clients", o.cut_at_s});
  steps.push_back({FaultAction::kHeal, "peers", heal});
  if (cell.side == "with-majority") steps.push_back({FaultAction::kHeal, "clients", heal});
  return steps;
}

std::string DescribeEvent(const FaultEvent& e, int64_t start_unix_ns) {
  const double at = static_cast<double>(e.start_unix_ns - start_unix_ns) / 1e9;
  std::string s = fmt::format("{} {} at {:.3f} s", FaultActionName(e.step.action), e.step.node, at);
  if (e.pid_before != 0) s += fmt::format(" (pid {})", e.pid_before);
  if (e.step.at_s < 0) s += ", left by the schedule: undone at its end";
  if (!e.error.empty()) s += ": not carried out: " + e.error;
  return s;
}

// --- Watching the Sentinels and the old primary -----------------------------------------

struct Watch {
  int64_t detect_unix_ns = 0, promote_unix_ns = 0, demote_unix_ns = 0;
  std::string new_primary;
};

// From the load's start until `stop`: a Sentinel's view (the old primary o_down; another
// primary named) and the old primary's own role, over control connections that no
// relay carries (the observer is outside the partition).
void WatchPartition(const Topology& t, const PartitionCell& cell, const std::atomic<bool>& stop, Watch* w) {
  const auto sentinels = NodesWithRole(t, "sentinel");
  const NodeRecord& old = t.nodes()[NodeIndex(t, cell.old_primary)];
  std::unique_ptr<RedisClient> s, p;
  while (!stop.load() && (w->detect_unix_ns == 0 || w->promote_unix_ns == 0 || w->demote_unix_ns == 0)) {
    if (s == nullptr) {
      auto c = RedisClient::Connect(sentinels[0]->host, sentinels[0]->port, kControlTimeoutMs);
      if (c.ok()) s = std::move(*c);
    }
    if (p == nullptr) {
      auto c = RedisClient::Connect(old.host, old.port, kControlTimeoutMs);
      if (c.ok()) p = std::move(*c);
    }
    if (s != nullptr && w->detect_unix_ns == 0) {
      auto master = s->Command({"SENTINEL", "MASTER", kSentinelMasterName});
      if (!master.ok()) s.reset();
      for (size_t i = 0; master.ok() && i + 1 < master->elements.size(); i += 2) {
        if (master->elements[i].str == "flags" && master->elements[i + 1].str.find("o_down") != std::string::npos) {
          w->detect_unix_ns = UnixNowNs();
        }
      }
    }
    if (s != nullptr && w->promote_unix_ns == 0) {
      auto addr = s->Command({"SENTINEL", "GET-MASTER-ADDR-BY-NAME", kSentinelMasterName});
      if (!addr.ok()) s.reset();
      if (addr.ok() && addr->elements.size() == 2) {
        const std::string now = addr->elements[0].str + ":" + addr->elements[1].str;
        for (const NodeRecord& n : t.nodes()) {
          if (n.role == "replica" && NodeAddress(n) == now) {
            w->promote_unix_ns = UnixNowNs();
            w->new_primary = n.name;
            if (w->detect_unix_ns == 0) w->detect_unix_ns = w->promote_unix_ns;  // o_down missed between polls
          }
        }
      }
    }
    if (p != nullptr && w->promote_unix_ns != 0 && w->demote_unix_ns == 0) {
      auto role = p->Command({"ROLE"});
      if (!role.ok()) p.reset();
      if (role.ok() && !role->elements.empty() && role->elements[0].str == "slave") w->demote_unix_ns = UnixNowNs();
    }
    std::this_thread::sleep_for(std::chrono::nanoseconds(kWatchPollNs));
  }
}

// After the load: the old primary a replica of the new one with its link up and its
// offset at the new primary's, so that the keys read back are what every node will hold.
std::string Settle(const Topology& t, const PartitionCell& cell, const PartitionOptions& o,
                   const std::atomic<bool>* cancel) {
  if (cell.new_primary.empty()) return "no replica was promoted";
  const NodeRecord& old = t.nodes()[NodeIndex(t, cell.old_primary)];
  const NodeRecord& now = t.nodes()[NodeIndex(t, cell.new_primary)];
  std::string last = "not asked";
  const PollResult r = PollUntil(
      DeadlineInMs(static_cast<int64_t>(o.settle_s * 1000)), 50'000'000,
      [&]() -> Result<bool> {
        auto a = CommandOn(old.name, old.host, old.port, {"INFO", "replication"});
        auto b = CommandOn(now.name, now.host, now.port, {"INFO", "replication"});
        if (!a.ok() || !b.ok()) {
          last = (!a.ok() ? a.status() : b.status()).message();
          return false;
        }
        const auto field = [](const std::string& info, const std::string& name) {
          const size_t at = info.find(name + ":");
          if (at == std::string::npos) return std::string();
          const size_t from = at + name.size() + 1;
          return info.substr(from, info.find_first_of("\r\n", from) - from);
        };
        last = fmt::format("{} role {}, master_link_status {}, offset {} of the new primary's {}", old.name,
                           field(a->str, "role"), field(a->str, "master_link_status"),
                           field(a->str, "slave_repl_offset"), field(b->str, "master_repl_offset"));
        return field(a->str, "role") == "slave" && field(a->str, "master_link_status") == "up" &&
               field(a->str, "master_port") == std::to_string(now.port) &&
               field(a->str, "slave_repl_offset") == field(b->str, "master_repl_offset");
      },
      cancel);
  if (r.met) return "";
  if (r.cancelled) return "interrupted";
  return fmt::format("not settled within {} s: {}", ApproxSeconds(o.settle_s), last);
}

// What the history says about the writes from the partition's start on.
void CountWrites(const history::History& h, int64_t cut_ns, const std::string& old_address, PartitionCell* cell) {
  for (const history::Record& r : h.records) {
    if (!r.writes() || r.invoke_ns < cut_ns) continue;
    if (r.outcome == history::Outcome::kOk) {
      ++cell->writes_ok_after_cut;
      cell->old_primary_writes_ok += h.String(r.node) == old_address;
    }
    cell->writes_fail_after_cut += r.outcome == history::Outcome::kFail;
  }
}

// --- One cell -------------------------------------------------------------------------

void RunCell(const PartitionOptions& o, const ScenarioContext& ctx, const std::string& folder, uint64_t seed,
             PartitionCell* cell, std::map<std::string, std::string>* files) {
  ctx.Progress(kScenario, fmt::format("{}: starting", cell->Label()));
  auto started = StartScenarioTopology(SpecOf(o), ctx.interrupt);
  if (!started.ok()) {
    cell->failure = StartFailure(ctx, kScenario, cell->Label(), "did not start: ", started.status());
    return;
  }
  Topology& t = **started;
  cell->version = t.nodes()[0].version;
  const auto primaries = NodesWithRole(t, "primary");
  if (primaries.size() != 1) {
    cell->failure = "the topology has no single primary";
    return;
  }
  const NodeRecord& primary = *primaries[0];
  cell->old_primary = primary.name;
  RelayOptions ro;
  ro.links = {{kLoopback, 0, primary.host, primary.port}, {kLoopback, 0, primary.host, primary.port}};
  ro.connect_timeout_ms = kControlTimeoutMs;
  auto relay = Relay::Start(ro);
  if (!relay.ok()) {
    cell->failure = "the relay: " + relay.status().message();
    return;
  }
  cell->old_primary_address = fmt::format("{}:{}", kLoopback, (*relay)->listen_port(kClients));
  if (Status s = RouteThroughRelay(t, **relay, o, ctx.interrupt); !s.ok()) {
    cell->failure = s.message() == "interrupted" ? "interrupted" : "routing the links through the relay: " + s.message();
    return;
  }
  if (Status s = SetMinReplicas(t, o, cell->min_replicas); !s.ok()) {
    cell->failure = "min-replicas-to-write: " + s.message();
    return;
  }
  Status schedule_error;
  const std::vector<FaultStep> steps = ScheduleOf(*cell, o, t, &schedule_error);
  if (!schedule_error.ok()) {
    cell->failure = schedule_error.message();
    return;
  }
  const std::string name = fmt::format("{}-min{}-run{}", cell->side, cell->min_replicas, cell->run);
  const std::string history_path = fmt::format("{}/{}.hist", folder, name);
  auto load = LoadOf(t, **relay, o, history_path, seed);
  if (!load.ok()) {
    cell->failure = load.status().message();
    return;
  }
  ctx.Progress(kScenario, fmt::format("{}: load for {} s, {} links from {} s for {} s", cell->Label(),
                                      ApproxSeconds(o.duration_s), cell->side == "custom" ? "the schedule's" : o.link_fault,
                                      ApproxSeconds(o.cut_at_s), ApproxSeconds(o.partition_s)));
  Result<RunResult> result = Status::Failed("not run");
  const int64_t start_ns = NowNs();
  const int64_t load_start_unix_ns = UnixNowNs();
  auto nemesis = std::make_shared<HistoryEvents>();  // the link steps, in the history too
  load->history_events = nemesis;
  std::thread runner([&] { result = RunLoad(*load, ctx.interrupt); });
  std::atomic<bool> stop_watch{false};
  Watch watch;
  std::thread watcher([&] { WatchPartition(t, *cell, stop_watch, &watch); });
  Relay& r = **relay;
  const FaultLinks links{LinkNames(), [&r](size_t i, FaultAction a) {
                           return r.SetLinkMode(i, a == FaultAction::kCut         ? Relay::LinkMode::kCut
                                                   : a == FaultAction::kBlackhole ? Relay::LinkMode::kBlackhole
                                                                                  : Relay::LinkMode::kForward);
                         }};
  const std::vector<FaultEvent> events = RunFaults(t, steps, start_ns, ctx.interrupt, {}, &links, nemesis.get());
  runner.join();
  cell->new_primary = watch.new_primary;  // as seen so far: Settle waits for the old one to follow
  if (watch.promote_unix_ns != 0 && result.ok() && !result->interrupted) {
    ctx.Progress(kScenario, fmt::format("{}: the load is over; waiting for {} to follow {}", cell->Label(),
                                        cell->old_primary, watch.new_primary));
    cell->settled = Settle(t, *cell, o, ctx.interrupt);
  }
  stop_watch = true;
  watcher.join();
  auto h = history::ReadHistoryFile(history_path);
  const int64_t start_unix_ns = h.ok() ? h->header.start_unix_ns : load_start_unix_ns;
  for (const FaultEvent& e : events) cell->schedule.push_back(DescribeEvent(e, start_unix_ns));
  if (!result.ok()) {
    cell->failure = result.status().message();
    return;
  }
  if (result->interrupted || cell->settled == "interrupted") {
    cell->failure = "interrupted";
    return;
  }
  cell->reconnects = result->totals.faults.connections_lost;
  if (!h.ok()) {
    cell->failure = "the history: " + h.status().message();
    return;
  }
  for (const FaultEvent& e : events) {
    if (!e.error.empty()) {
      cell->failure = fmt::format("the schedule: {} {}: {}", FaultActionName(e.step.action), e.step.node, e.error);
      return;
    }
  }
  auto rel = [&](int64_t unix_ns) { return unix_ns > 0 ? static_cast<double>(unix_ns - start_unix_ns) / 1e9 : -1.0; };
  for (const FaultEvent& e : events) {
    if (!IsLinkAction(e.step.action) || e.step.at_s < 0) continue;
    if (e.step.action != FaultAction::kHeal && cell->cut_s < 0) cell->cut_s = rel(e.start_unix_ns);
    if (e.step.action == FaultAction::kHeal) cell->heal_s = rel(e.start_unix_ns);
  }
  cell->detect_s = rel(watch.detect_unix_ns);
  cell->promote_s = rel(watch.promote_unix_ns);
  cell->demote_s = rel(watch.demote_unix_ns);
  cell->new_primary = watch.new_primary;
  cell->records = h->records.size();
  const int64_t cut_ns = cell->cut_s < 0 ? 0 : static_cast<int64_t>(cell->cut_s * 1e9);
  cell->outage = MeasureOutage(*h, cut_ns, cell->old_primary_address);
  cell->seconds = PerSecond(*h);
  CountWrites(*h, cut_ns, cell->old_primary_address, cell);
  // The keys are read back from the primary the Sentinels chose (the old one if none was).
  const std::string& owner = cell->new_primary.empty() ? cell->old_primary : cell->new_primary;
  const RedisTarget final_target = TargetOfNode(t.nodes()[NodeIndex(t, owner)], Protocol::kResp);
  ctx.Progress(kScenario, fmt::format("{}: checking {} operations", cell->Label(), cell->records));
  cell->checks = RunHistoryChecks(*h, {"lost-writes", "linearizable"}, &final_target,
                                  static_cast<int64_t>(o.check_time_limit_s * 1e9));
  std::ifstream in(history_path, std::ios::binary);
  cell->history_file = "histories/" + name + ".hist";
  (*files)[cell->history_file] = std::string(std::istreambuf_iterator<char>(in), {});
  for (const NodeRecord& n : t.nodes()) KeepLogTail(name + "-" + n.name, cell->run, n.log, files);
  (*relay)->Stop();
  Status stopped = t.Stop();
  if (!stopped.ok()) cell->failure = "stopping the topology: " + stopped.message();
}

}  // namespace

std::string PartitionCell::Label() const {
  return fmt::format("{} min-replicas {} run {}", side, min_replicas, run);
}

Status ValidatePartition(const PartitionOptions& o) {
  std::set<std::string> seen;
  if (o.fault.empty()) {
    if (o.sides.empty()) return Status::InvalidArgument("--sides: none");
    for (const std::string& s : o.sides) {
      if (s != "with-primary" && s != "with-majority") {
        return Status::InvalidArgument(fmt::format("--sides: '{}' is not a side (with-primary, with-majority)", s));
      }
      if (!seen.insert(s).second) return Status::InvalidArgument(fmt::format("--sides: '{}' given twice", s));
    }
  } else {
    // The names are checked against the topology once it stands (its nodes' names):
    // here against the names it will have.
    auto steps = ParseFaultSchedule(o.fault, {"primary", "replica-1", "replica-2", "sentinel-1", "sentinel-2",
                                              "sentinel-3"},
                                    LinkNames());
    if (!steps.ok()) return steps.status();
    for (const FaultStep& s : *steps) {
      if (s.at_s >= o.duration_s) {
        return Status::InvalidArgument(fmt::format("--fault: the step at {} s is past --duration", ApproxSeconds(s.at_s)));
      }
    }
  }
  if (o.min_replicas.empty()) return Status::InvalidArgument("--min-replicas-to-write: none");
  std::set<int> values;
  for (int m : o.min_replicas) {
    if (m < 0 || m > 2) return Status::InvalidArgument("--min-replicas-to-write: each 0, 1 or 2 (the topology has 2 replicas)");
    if (!values.insert(m).second) {
      return Status::InvalidArgument(fmt::format("--min-replicas-to-write: {} given twice", m));
    }
  }
  if (o.max_lag_s < 1 || o.max_lag_s > 60) return Status::InvalidArgument("--max-lag: must be 1..60 s");
  if (o.link_fault != "blackhole" && o.link_fault != "cut") {
    return Status::InvalidArgument(fmt::format("--link-fault: '{}' is neither blackhole nor cut", o.link_fault));
  }
  if (o.duration_s <= 0 || o.duration_s > 3600) return Status::InvalidArgument("--duration: must be in (0, 1h]");
  if (o.cut_at_s <= 0 || o.partition_s <= 0 || o.cut_at_s + o.partition_s >= o.duration_s) {
    return Status::InvalidArgument("--cut-at, --partition: the partition must start after the load's start and "
                                   "heal before its end (--cut-at + --partition < --duration)");
  }
  if (o.rate <= 0 || o.rate > 1e6) return Status::InvalidArgument("--rate: must be in (0, 1000000]");
  if (o.clients < 1 || o.clients > 1000) return Status::InvalidArgument("--clients: must be 1..1000");
  if (o.keys < 1 || o.keys > 10'000'000) return Status::InvalidArgument("--keys: must be 1..10000000");
  if (o.settle_s <= 0 || o.settle_s > 600) return Status::InvalidArgument("--settle: must be in (0, 10m]");
  return Status::OK();
}

Result<ScenarioReport> RunPartition(const PartitionOptions& o, const ScenarioContext& ctx) {
  if (Status s = ValidatePartition(o); !s.ok()) return s;
  ScenarioReport report;
  report.scenario = kScenario;
  auto folder = MakeTempFolder("partition");
  if (!folder.ok()) return folder.status();
  RemovedOnExit remove(*folder);
  std::vector<PartitionCell> cells;
  uint64_t seed = ctx.seed;
  const std::vector<std::string> sides = o.fault.empty() ? o.sides : std::vector<std::string>{"custom"};
  ForEachRun(ctx, &report, [&](int run) {
    for (const std::string& side : sides) {
      for (int m : o.min_replicas) {
        if (ctx.interrupted()) return;
        PartitionCell& cell = cells.emplace_back();
        cell.run = run;
        cell.side = side;
        cell.min_replicas = m;
        cell.not_run = NotInstalledLine(SystemKind::kRedis);
        if (!cell.not_run.empty()) continue;
        RunCell(o, ctx, *folder, ++seed, &cell, &report.files);
      }
    }
  });
  FillPartitionReport(o, cells, ctx.interrupted(), &report);
  return report;
}

}  // namespace memstand

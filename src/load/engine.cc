#include "load/engine.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <set>
#include <thread>

#include "client/redis_client.h"
#include "client/redis_info.h"
#include "core/clock.h"
#include "load/cluster_map.h"
#include "load/pool.h"
#include "load/proto_control.h"
#include "load/start_at.h"
#include "load/worker.h"
#include "util/rng.h"

namespace memstand {

namespace {

// --shard K/N with N > 1: other shards share the server, so this shard's own
// cross-check cannot hold (the fleet's is checked by `memstand merge`).
bool Sharded(const LoadOptions& opt) { return opt.shard && opt.shard->shard.count > 1; }

std::string LowerName(const std::string& upper) {
  std::string s = upper;
  for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

struct ServerSnapshot {
  bool ok = false;
  std::string error;
  std::map<std::string, std::string> info;
  std::map<std::string, CommandStat> commands;
  std::map<std::string, int64_t> control_sent;  // control client's sends before INFO
};

ServerSnapshot Snapshot(RedisClient& client) {
  ServerSnapshot snap;
  snap.control_sent = client.sent_by_command();
  auto reply = client.Command({"INFO", "all"});
  if (!reply.ok()) {
    snap.error = reply.status().message();
    return snap;
  }
  if (reply->is_error()) {
    snap.error = "INFO all: " + reply->str;
    return snap;
  }
  snap.info = ParseInfo(reply->str);
  snap.commands = ParseCommandStats(reply->str);
  snap.ok = true;
  return snap;
}

// Sums the snapshots of several servers (a cluster's masters): command counts, CPU
// and memstand's control commands; the rest of INFO is the first server's.
ServerSnapshot Merge(const std::vector<ServerSnapshot>& snaps) {
  ServerSnapshot m = snaps.front();
  for (size_t i = 1; i < snaps.size(); ++i) {
    const ServerSnapshot& s = snaps[i];
    if (!s.ok && m.ok) {
      m.ok = false;
      m.error = s.error;
    }
    for (const auto& [name, st] : s.commands) {
      CommandStat& mine = m.commands[name];
      mine.calls += st.calls;
      mine.rejected_calls += st.rejected_calls;
      mine.failed_calls += st.failed_calls;
      mine.usec += st.usec;
    }
    for (const auto& [name, n] : s.control_sent) m.control_sent[name] += n;
    for (const char* key : {"used_cpu_user", "used_cpu_sys"}) {
      auto a = m.info.find(key);
      auto b = s.info.find(key);
      if (a == m.info.end() || b == s.info.end()) continue;
      a->second = std::to_string(std::strtod(a->second.c_str(), nullptr) +
                                 std::strtod(b->second.c_str(), nullptr));
    }
  }
  return m;
}

std::vector<ServerSnapshot> SnapshotEach(const std::vector<std::unique_ptr<RedisClient>>& clients) {
  std::vector<ServerSnapshot> snaps;
  for (const auto& c : clients) snaps.push_back(Snapshot(*c));
  return snaps;
}

ServerSnapshot SnapshotAll(const std::vector<std::unique_ptr<RedisClient>>& clients) {
  return Merge(SnapshotEach(clients));
}

// One server's counts as the cross-check compares them (calls + rejected_calls).
Result<std::map<std::string, int64_t>> CommandCounts(const ServerSnapshot& s) {
  if (!s.ok) return Status::Failed(s.error);
  std::map<std::string, int64_t> counts;
  for (const auto& [name, st] : s.commands) counts[name] = st.calls + st.rejected_calls;
  return counts;
}

using Counts = Result<std::map<std::string, int64_t>>;

// A pool: each member's connections and its deltas of the cross-check's counters.
void PoolMembers(const LoadOptions& opt, const std::vector<Counts>& before,
                 const std::vector<Counts>& after, RunResult* r) {
  if (opt.pool.empty()) return;
  const std::vector<uint64_t> conns =
      PoolConnections(opt.balance, opt.seed, static_cast<uint64_t>(opt.connections()), opt.pool_size());
  for (int i = 0; i < opt.pool_size(); ++i) {
    PoolMemberResult m{opt.pool_target(i).Display(), conns[i], {}};
    if (before[i].ok() && after[i].ok()) {
      for (const CrossCheckRow& row : r->cross_check.rows) {
        auto value = [&](const std::map<std::string, int64_t>& c) -> int64_t {
          auto it = c.find(row.command);
          return it == c.end() ? 0 : it->second;
        };
        m.server_counts[row.command] = value(*after[i]) - value(*before[i]);
      }
    }
    r->pool.push_back(std::move(m));
  }
}

std::vector<Counts> EachCommandCounts(const std::vector<ServerSnapshot>& snaps) {
  std::vector<Counts> counts;
  for (const ServerSnapshot& s : snaps) counts.push_back(CommandCounts(s));
  return counts;
}

// --read-from-replicas: the replicas' counts of the reads memstand sends them (never
// replicated) and of their READONLY and INFO are added to the masters'; the writes
// they replay from their masters are not memstand's and stay out.
ServerSnapshot WithReplicaReads(const LoadOptions& opt, ServerSnapshot masters,
                                const std::vector<std::unique_ptr<RedisClient>>& replicas) {
  if (replicas.empty()) return masters;
  std::set<std::string> names = {"readonly", "info"};
  for (const auto& c : opt.commands) {
    if (c.counts_hits) names.insert(LowerName(c.tmpl.name));
  }
  ServerSnapshot r = SnapshotAll(replicas);
  ServerSnapshot only_reads = r;
  only_reads.commands.clear();
  for (const auto& [name, st] : r.commands) {
    if (names.count(name)) only_reads.commands[name] = st;
  }
  return Merge({masters, only_reads});
}

double InfoDouble(const std::map<std::string, std::string>& info, const std::string& key,
                  bool* found) {
  auto it = info.find(key);
  if (it == info.end()) {
    *found = false;
    return 0;
  }
  return std::strtod(it->second.c_str(), nullptr);
}

void ServerCpu(const ServerSnapshot& before, const ServerSnapshot& after, RunResult* r) {
  if (!before.ok || !after.ok) return;
  bool found = true;
  double u0 = InfoDouble(before.info, "used_cpu_user", &found);
  double s0 = InfoDouble(before.info, "used_cpu_sys", &found);
  double u1 = InfoDouble(after.info, "used_cpu_user", &found);
  double s1 = InfoDouble(after.info, "used_cpu_sys", &found);
  if (!found) return;
  r->server_cpu_known = true;
  r->server_cpu_user_s = u1 - u0;
  r->server_cpu_sys_s = s1 - s0;
}

// What memstand itself sent between the two snapshots, by lower-case command name.
std::map<std::string, int64_t> MemstandCounts(const LoadOptions& opt, const ThreadStats& t,
                                              const ServerSnapshot& before,
                                              const ServerSnapshot& after) {
  std::map<std::string, int64_t> sent;
  for (size_t i = 0; i < opt.commands.size(); ++i) {
    sent[LowerName(opt.commands[i].tmpl.name)] += static_cast<int64_t>(t.sent_by_command[i]);
  }
  for (const auto& [name, n] : t.setup_commands) sent[name] += static_cast<int64_t>(n);
  for (const auto& [name, n] : after.control_sent) {
    auto it = before.control_sent.find(name);
    sent[name] += n - (it == before.control_sent.end() ? 0 : it->second);
  }
  return sent;
}

void CrossCheckCounts(const LoadOptions& opt, const RunResult& r, const ServerSnapshot& before,
                      const ServerSnapshot& after, CrossCheck* cc) {
  if (!before.ok || !after.ok) {
    cc->unavailable_reason = before.ok ? after.error : before.error;
    return;
  }
  cc->available = true;
  std::map<std::string, int64_t> sent = MemstandCounts(opt, r.totals, before, after);
  std::set<std::string> names;
  for (const auto& [name, n] : sent) names.insert(name);
  for (const auto& [name, st] : after.commands) names.insert(name);
  for (const std::string& name : names) {
    // Replicas talk to their primary with these; no client sends them.
    if (name == "replconf" || name == "psync" || name == "sync") continue;
    auto server_count = [&](const ServerSnapshot& s) -> int64_t {
      auto it = s.commands.find(name);
      return it == s.commands.end() ? 0 : it->second.calls + it->second.rejected_calls;
    };
    CrossCheckRow row{name, sent.count(name) ? sent[name] : 0,
                      server_count(after) - server_count(before)};
    if (row.memstand == 0 && row.server == 0) continue;
    if (row.memstand != row.server) cc->mismatch = true;
    cc->rows.push_back(row);
  }
}

void ProcessCpu(double* user, double* sys) {
  rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  *user = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
  *sys = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

Status PrepareShared(const LoadOptions& opt, WorkerShared* shared) {
  shared->options = &opt;
  std::vector<uint32_t> weights;
  for (const auto& c : opt.commands) {
    shared->builders.emplace_back(c.tmpl, opt.key_prefix);
    weights.push_back(c.weight);
  }
  if (weights.empty()) return Status::InvalidArgument("no command to send");
  shared->mix = std::make_unique<CommandMix>(weights);
  Status s = ValidateValueSpec(opt.value);
  if (!s.ok()) return s;
  if (opt.value.keyed != nullptr &&
      (opt.key_min < opt.value.keyed->first() || opt.key_max > opt.value.keyed->last())) {
    return Status::InvalidArgument("keyed values cover keys " +
                                   std::to_string(opt.value.keyed->first()) + ".." +
                                   std::to_string(opt.value.keyed->last()) + ", not the key range " +
                                   std::to_string(opt.key_min) + ".." + std::to_string(opt.key_max));
  }
  shared->values = std::make_unique<ValuePool>(opt.value, opt.seed);
  // --start-at: the engine is one more party, and lets the threads go at the planned time.
  shared->ready = std::make_unique<std::latch>(opt.threads + (opt.start_at_unix_s > 0 ? 1 : 0));
  return Status::OK();
}

// --start-at: waits for the planned release (or an interrupt, or a failed worker),
// sets the warm-up the threads will run (they read it after the latch), and lets them go.
void ReleaseAtStart(LoadOptions* opt, WorkerShared* shared, const std::atomic<bool>* interrupt,
                    RunResult* r) {
  const StartPlan plan = PlanStart(opt->start_at_unix_s, UnixNowS(), opt->warmup_s);
  for (;;) {
    const double left = plan.release_unix_s - UnixNowS();
    if (left <= 0 || shared->stop.load() || (interrupt != nullptr && interrupt->load())) break;
    std::this_thread::sleep_for(std::chrono::duration<double>(std::min(left, 0.02)));
  }
  opt->warmup_s = std::max(0.0, plan.measured_unix_s - UnixNowS());
  r->series_start_unix_s = plan.measured_unix_s;
  r->start_warmup_s = opt->warmup_s;
  shared->ready->count_down();
}

// --fleet-check: waits the grace (every shard's end within it), then reads the
// counters again with `read`. An interrupt cuts the wait and leaves nothing recorded.
void FleetAfter(const LoadOptions& opt, const std::function<Counts()>& read,
                const std::atomic<bool>* interrupt, FleetCounts* f) {
  f->grace_s = opt.fleet_check_grace_s;
  const double until = UnixNowS() + opt.fleet_check_grace_s;
  while (UnixNowS() < until) {
    if (interrupt != nullptr && interrupt->load()) {
      f->reason = "interrupted during the grace period";
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  f->after_unix_s = UnixNowS();
  auto after = read();
  if (!after.ok()) {
    f->reason = after.status().message();
    return;
  }
  f->after = *after;
  f->recorded = true;
}

// --fleet-check: the counters before (read before the run) and GRACE after its end.
void RecordFleetCounts(const LoadOptions& opt, const Counts& before, const std::function<Counts()>& read,
                const std::atomic<bool>* interrupt, FleetCounts* f) {
  if (opt.fleet_check_grace_s < 0) return;
  if (!before.ok()) {
    f->reason = before.status().message();
    return;
  }
  f->before = *before;
  FleetAfter(opt, read, interrupt, f);
}

// Runs the workers to completion; forwards an interrupt to them.
void RunWorkers(LoadOptions* opt, WorkerShared* shared, std::vector<std::unique_ptr<Worker>>* workers,
                const std::atomic<bool>* interrupt, RunResult* r) {
  std::atomic<int> running{static_cast<int>(workers->size())};
  std::vector<std::thread> threads;
  for (auto& w : *workers) {
    threads.emplace_back([&running, worker = w.get()] {
      worker->Run();
      --running;
    });
  }
  if (opt->start_at_unix_s > 0) ReleaseAtStart(opt, shared, interrupt, r);
  while (running.load() > 0) {
    if (interrupt != nullptr && interrupt->load() && !shared->stop.load()) {
      r->interrupted = true;
      shared->stop = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (auto& t : threads) t.join();
}

void Collect(const std::vector<std::unique_ptr<Worker>>& workers, size_t command_count,
             RunResult* r) {
  r->totals = ThreadStats(command_count);
  int64_t start = INT64_MAX, end = 0, last_send = 0;
  for (const auto& w : workers) {
    r->totals.Add(w->stats());
    r->threads.push_back(w->stats());
    r->threads.back().commands.clear();  // per-thread copies keep CPU and call counts
    r->unanswered += w->unanswered();
    if (r->failure.ok() && !w->failure().ok()) r->failure = w->failure();
    if (w->measure_start_ns() > 0) start = std::min(start, w->measure_start_ns());
    end = std::max(end, w->measure_end_ns());
    last_send = std::max(last_send, w->last_measured_send_ns());
  }
  r->measured_s = end > start ? (end - start) / 1e9 : 0;
  r->send_span_s = last_send > start ? (last_send - start) / 1e9 : 0;
}

// The earliest measured start of any worker (monotonic ns), or now if none started.
int64_t MeasuredStartNs(const std::vector<std::unique_ptr<Worker>>& workers) {
  int64_t start = INT64_MAX;
  for (const auto& w : workers) {
    if (w->measure_start_ns() > 0) start = std::min(start, w->measure_start_ns());
  }
  return start == INT64_MAX ? NowNs() : start;
}

// --samples: merges the threads' reservoirs into one uniform sample, times on the
// common measured start.
void MergeSamples(const LoadOptions& opt, const std::vector<std::unique_ptr<Worker>>& workers,
                  int64_t start_ns, RunResult* r) {
  std::vector<ReservoirPart> parts;
  for (const auto& w : workers) {
    const SampleReservoir* reservoir = w->stats().samples.get();
    if (reservoir == nullptr) continue;
    parts.push_back({reservoir, w->measure_start_ns() - start_ns});
    r->samples_seen += reservoir->seen();
  }
  r->samples = MergeReservoirs(parts, opt.samples_cap, DeriveSeed(opt.seed, 0x5a3b1e5ULL));
  for (ThreadStats& t : r->threads) t.samples.reset();  // the per-thread copies: free them
}

}  // namespace

uint64_t RunResult::measured_ops() const {
  uint64_t n = 0;
  for (const auto& c : totals.commands) n += c.ops;
  return n;
}

CommandStats RunResult::AllCommands() const {
  CommandStats all;
  for (const auto& c : totals.commands) all.Add(c);
  return all;
}

double RunResult::client_cpu_s() const { return totals.cpu_user_s + totals.cpu_sys_s; }

namespace {

// The control client of target t: RESP2, so that it reads INFO alike on every server.
RedisClientOptions ControlOptions(const LoadOptions& opt, const RedisTarget& t,
                                  std::shared_ptr<const TlsContext> tls) {
  RedisClientOptions co;
  co.tls = std::move(tls);
  co.host = t.host;
  co.port = t.port;
  co.unix_path = t.unix_path;
  co.user = t.user;
  co.password = t.password;
  co.db = t.db;
  co.resp = 2;  // the control client reads INFO the same way on every server
  co.timeout_ms = opt.connect_timeout_ms;
  return co;
}

// A pool: a control client on every member after the first, each with its own
// credentials; their INFO is summed as a cluster's masters' is.
Status ConnectPool(const LoadOptions& opt, const std::shared_ptr<const TlsContext>& tls,
                   std::vector<std::unique_ptr<RedisClient>>* controls) {
  for (int i = 1; i < opt.pool_size(); ++i) {
    const RedisTarget& t = opt.pool_target(i);
    auto c = RedisClient::Connect(ControlOptions(opt, t, tls));
    if (!c.ok()) return c.status().WithContext("cannot use " + t.Display());
    controls->push_back(std::move(*c));
  }
  return Status::OK();
}

}  // namespace

// --cluster: the slot map from CLUSTER SLOTS on the seed, and a control client on
// every master (their INFO is summed; replicas are left out, since they count the
// writes they replay). The seed's client is reused when it is a master.
Status ConnectCluster(const LoadOptions& opt, const RedisClientOptions& co,
                      std::unique_ptr<RedisClient> seed, WorkerShared* shared,
                      std::vector<std::unique_ptr<RedisClient>>* controls,
                      std::vector<std::unique_ptr<RedisClient>>* replica_controls, RunResult* r) {
  auto reply = seed->Command({"CLUSTER", "SLOTS"});
  if (!reply.ok()) return reply.status().WithContext("--cluster: CLUSTER SLOTS");
  auto map = ParseClusterSlots(*reply, opt.target.host);
  if (!map.ok()) return map.status().WithContext("--cluster");
  if (map->UncoveredSlots() > 0) {
    return Status::Failed("--cluster: " + std::to_string(map->UncoveredSlots()) +
                          " of 16384 slots have no master (CLUSTER SLOTS on " +
                          opt.target.Display() + ")");
  }
  for (const ClusterNode& node : map->nodes()) {
    r->cluster_masters.push_back(node.Address());
    if (seed && node.host == opt.target.host && node.port == opt.target.port) {
      controls->push_back(std::move(seed));
      continue;
    }
    RedisClientOptions o = co;
    o.host = node.host;
    o.port = node.port;
    auto c = RedisClient::Connect(o);
    if (!c.ok()) return c.status().WithContext("--cluster: master " + node.Address());
    controls->push_back(std::move(*c));
  }
  for (const ClusterNode& node : map->nodes()) {
    if (!opt.read_from_replicas) break;
    for (const auto& [host, port] : node.replicas) {
      RedisClientOptions o = co;
      o.host = host;
      o.port = port;
      auto c = RedisClient::Connect(o);
      if (!c.ok()) return c.status().WithContext("--read-from-replicas: replica " + host + ":" + std::to_string(port));
      replica_controls->push_back(std::move(*c));
      ++r->cluster_replicas;
    }
  }
  shared->cluster_map = std::move(*map);
  return Status::OK();
}

namespace {

// The workers' whole run: threads started, joined, their statistics merged.
void RunAndCollect(LoadOptions& opt, WorkerShared* shared, const std::atomic<bool>* interrupt,
                   IntervalSink sink, RunResult* r) {
  IntervalCollector intervals(opt.threads, opt.commands.size(), std::move(sink));
  shared->intervals = &intervals;
  std::vector<std::unique_ptr<Worker>> workers;
  for (int i = 0; i < opt.threads; ++i) workers.push_back(std::make_unique<Worker>(shared, i));
  RunWorkers(&opt, shared, &workers, interrupt, r);
  Collect(workers, opt.commands.size(), r);
  const int64_t start_ns = MeasuredStartNs(workers);
  r->measured_start_unix_s = UnixNowS() - (NowNs() - start_ns) / 1e9;
  if (opt.samples_cap > 0) MergeSamples(opt, workers, start_ns, r);
  intervals.Finish();
  r->series = intervals.series();
}

// ---- Protocols other than RESP: a ProtoControl connection instead of INFO. ----

using Controls = std::vector<std::unique_ptr<ProtoControl>>;

// A Tarantool space's id, the same on every member of a pool (else the requests,
// encoded once for all connections, would write to different spaces).
Result<uint32_t> PoolSpaceId(const LoadOptions& opt, const Controls& controls,
                             const std::string& name) {
  auto first = controls.front()->SpaceId(name);
  if (!first.ok() && controls.size() > 1) return first.status().WithContext(opt.pool_target(0).Display());
  for (size_t i = 1; i < controls.size(); ++i) {
    auto id = controls[i]->SpaceId(name);
    if (!id.ok()) return id.status().WithContext(opt.pool_target(static_cast<int>(i)).Display());
    if (*id != *first) {
      return Status::Failed("space '" + name + "' has id " + std::to_string(*first) + " on " +
                            opt.target.Display() + " but " + std::to_string(*id) + " on " +
                            opt.pool_target(static_cast<int>(i)).Display() +
                            ": a pool's members must define their spaces alike");
    }
  }
  return first;
}

// The requests of the mix; IPROTO space names resolved on the server(s). etcd: the
// Host header names the first target for every member (the gateway does not read it).
Status PrepareProtoRequests(const LoadOptions& opt, const Controls& controls, WorkerShared* shared) {
  etcd::Target et;
  et.host = opt.target.host + ":" + std::to_string(opt.target.port);
  for (const CommandSpec& c : opt.commands) {
    auto req = ProtoRequest::Parse(opt.protocol, c.text, opt.key_prefix);
    if (!req.ok()) return req.status().WithContext("--command '" + c.text + "'");
    req->set_etcd_target(et);
    if (opt.shard) req->set_shard(opt.shard->shard);
    Status s = req->ResolveSpace(
        [&](const std::string& name) { return PoolSpaceId(opt, controls, name); });
    if (!s.ok()) return s;
    shared->proto_requests.push_back(std::move(*req));
  }
  return Status::OK();
}

// What memstand did, in the server's counter names (see ProtoControl::Counters).
std::map<std::string, int64_t> ProtoSent(const LoadOptions& opt, const WorkerShared& shared,
                                         const ThreadStats& t) {
  std::map<std::string, int64_t> sent;
  if (opt.protocol == Protocol::kEtcd) {
    sent["revision"] = static_cast<int64_t>(t.writes_applied);
    return sent;
  }
  for (size_t i = 0; i < shared.proto_requests.size(); ++i) {
    const std::string& name = shared.proto_requests[i].server_stat();
    if (name.empty()) continue;
    sent[name] += static_cast<int64_t>(t.sent_by_command[i]);
    if (name == "incr" || name == "decr") {  // memcached counts a CLIENT_ERROR in neither
      sent[name] -= static_cast<int64_t>(t.error_replies_all[i]);
    }
  }
  if (opt.protocol == Protocol::kMemcache && sent.count("cmd_get")) {
    sent["get_hits"] = static_cast<int64_t>(t.get_hits_all);
    sent["get_misses"] = static_cast<int64_t>(t.get_misses_all);
  }
  if (auto it = t.setup_commands.find("auth"); it != t.setup_commands.end()) {
    sent["AUTH"] += static_cast<int64_t>(it->second);
  }
  return sent;
}

void CrossCheckOther(const LoadOptions& opt, std::map<std::string, int64_t> sent,
                     const Result<std::map<std::string, int64_t>>& before,
                     const Result<std::map<std::string, int64_t>>& after, CrossCheck* cc) {
  if (!before.ok() || !after.ok()) {
    cc->unavailable_reason = (before.ok() ? after.status() : before.status()).message();
    return;
  }
  cc->available = true;
  // Server counters that a request of memstand's could move, compared even at 0 sent.
  std::set<std::string> names;
  for (const auto& [name, n] : sent) names.insert(name);
  if (opt.protocol == Protocol::kMemcache) names.insert({"cmd_get", "cmd_set"});
  if (opt.protocol == Protocol::kIproto) {
    names.insert({"SELECT", "INSERT", "REPLACE", "DELETE", "UPDATE", "UPSERT", "CALL", "EVAL", "AUTH"});
  }
  auto value = [](const std::map<std::string, int64_t>& m, const std::string& name) -> int64_t {
    auto it = m.find(name);
    return it == m.end() ? 0 : it->second;
  };
  // IPROTO: Lua that the load calls (call, eval) moves box.stat()'s DML counters by
  // whatever it does; a DML kind the load did not send itself is then not compared.
  bool runs_lua = false;
  if (opt.protocol == Protocol::kIproto) {
    for (const CommandSpec& c : opt.commands) runs_lua |= c.tmpl.name == "CALL" || c.tmpl.name == "EVAL";
  }
  for (const std::string& name : names) {
    CrossCheckRow row{name, value(sent, name), value(*after, name) - value(*before, name)};
    if (row.memstand == 0 && row.server == 0) continue;
    if (runs_lua && row.memstand == 0 && name != "CALL" && name != "EVAL" && name != "AUTH") continue;
    if (row.memstand != row.server) cc->mismatch = true;
    cc->rows.push_back(row);
  }
}

// Every control's requests that the servers count, summed by counter name.
std::map<std::string, int64_t> ControlSent(const Controls& controls) {
  std::map<std::string, int64_t> sent;
  for (const auto& c : controls) {
    for (const auto& [name, n] : c->sent()) sent[name] += n;
  }
  return sent;
}

// The counters of every member, and their sum (the first failure if one fails).
// Members that share one store (endpoints of one etcd cluster) count it once.
Counts SumCounters(const Controls& controls, std::vector<Counts>* each) {
  std::map<std::string, int64_t> sum;
  std::set<uint64_t> stores;
  Status failed;
  for (const auto& c : controls) {
    each->push_back(c->Counters());
    if (!each->back().ok()) {
      if (failed.ok()) failed = each->back().status();
      continue;
    }
    const uint64_t store = c->shared_store_id();
    if (store != 0 && !stores.insert(store).second) continue;
    for (const auto& [name, n] : *each->back()) sum[name] += n;
  }
  if (!failed.ok()) return failed;
  return sum;
}

Result<RunResult> RunLoadOther(LoadOptions& opt, const std::shared_ptr<const TlsContext>& tls,
                               const std::atomic<bool>* interrupt, IntervalSink sink) {
  RunResult r;
  r.started_at = WallClockIso();
  Controls controls;  // one per pool member, each checking what its server speaks
  for (int i = 0; i < opt.pool_size(); ++i) {
    auto control =
        ProtoControl::Connect(opt.protocol, opt.pool_target(i), opt.connect_timeout_ms, tls);
    if (!control.ok()) return control.status();
    controls.push_back(std::move(*control));
  }
  WorkerShared shared;
  Status s = PrepareShared(opt, &shared);
  if (s.ok()) s = PrepareProtoRequests(opt, controls, &shared);
  if (!s.ok()) return s;
  shared.tls = tls;
  r.server_version = controls.front()->version();
  r.tls_session = controls.front()->tls_description();
  double u0, s0;
  ProcessCpu(&u0, &s0);
  const std::map<std::string, int64_t> control_before = ControlSent(controls);
  std::vector<Counts> each_before, each_after;
  r.fleet.before_unix_s = UnixNowS();
  auto before = SumCounters(controls, &each_before);
  RunAndCollect(opt, &shared, interrupt, std::move(sink), &r);
  const std::map<std::string, int64_t> control_after = ControlSent(controls);
  auto after = SumCounters(controls, &each_after);
  double u1, s1;
  ProcessCpu(&u1, &s1);
  r.process_cpu_user_s = u1 - u0;
  r.process_cpu_sys_s = s1 - s0;
  std::map<std::string, int64_t> sent = ProtoSent(opt, shared, r.totals);
  for (const auto& [name, n] : control_after) {
    auto it = control_before.find(name);
    sent[name] += n - (it == control_before.end() ? 0 : it->second);
  }
  CrossCheckOther(opt, std::move(sent), before, after, &r.cross_check);
  RecordFleetCounts(opt, before, [&controls] {
    std::vector<Counts> each;
    return SumCounters(controls, &each);
  }, interrupt, &r.fleet);
  r.cross_check.enforced = opt.exclusive_server && !Sharded(opt);
  PoolMembers(opt, each_before, each_after, &r);
  return r;
}

}  // namespace

Result<RunResult> RunLoad(const LoadOptions& options, const std::atomic<bool>* interrupt,
                          IntervalSink sink) {
  LoadOptions opt = options;  // the workers read it; --start-at may shorten its warm-up
  // TLS: one context for the control clients and every load connection.
  std::shared_ptr<const TlsContext> tls;
  if (opt.tls.enabled) {
    auto created = TlsContext::Create(opt.tls);
    if (!created.ok()) return created.status();
    tls = std::move(*created);
  }
  if (opt.protocol != Protocol::kResp) return RunLoadOther(opt, tls, interrupt, std::move(sink));
  RunResult r;
  r.started_at = WallClockIso();
  RedisClientOptions co = ControlOptions(opt, opt.target, tls);
  auto client = RedisClient::Connect(co);
  if (!client.ok()) return client.status().WithContext("cannot use " + opt.target.Display());
  WorkerShared shared;
  Status s = PrepareShared(opt, &shared);
  if (!s.ok()) return s;
  shared.tls = tls;
  std::vector<std::unique_ptr<RedisClient>> controls, replica_controls;
  if (opt.cluster) {
    s = ConnectCluster(opt, co, std::move(*client), &shared, &controls, &replica_controls, &r);
    if (!s.ok()) return s;
  } else {
    controls.push_back(std::move(*client));
    s = ConnectPool(opt, tls, &controls);
    if (!s.ok()) return s;
  }

  double u0, s0;
  ProcessCpu(&u0, &s0);
  r.fleet.before_unix_s = UnixNowS();
  const std::vector<ServerSnapshot> each_before = SnapshotEach(controls);
  ServerSnapshot before = WithReplicaReads(opt, Merge(each_before), replica_controls);
  r.server_info = before.info;
  r.tls_session = controls.front()->tls_description();
  if (auto it = before.info.find("redis_version"); it != before.info.end()) {
    r.server_version = it->second;
  }
  RunAndCollect(opt, &shared, interrupt, std::move(sink), &r);
  const std::vector<ServerSnapshot> each_after = SnapshotEach(controls);
  ServerSnapshot after = WithReplicaReads(opt, Merge(each_after), replica_controls);
  double u1, s1;
  ProcessCpu(&u1, &s1);
  r.process_cpu_user_s = u1 - u0;
  r.process_cpu_sys_s = s1 - s0;
  ServerCpu(before, after, &r);
  CrossCheckCounts(opt, r, before, after, &r.cross_check);
  r.cross_check.enforced = opt.exclusive_server && !Sharded(opt);
  RecordFleetCounts(opt, CommandCounts(Merge(each_before)),
             [&controls] { return CommandCounts(SnapshotAll(controls)); }, interrupt, &r.fleet);
  if (!opt.pool.empty()) {
    PoolMembers(opt, EachCommandCounts(each_before), EachCommandCounts(each_after), &r);
  }
  return r;
}

}  // namespace memstand

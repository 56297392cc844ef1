#include "load/engine.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <thread>

#include "core/clock.h"
#include "core/cpu_set.h"
#include "load/history_ops.h"
#include "load/pool.h"
#include "load/run_control.h"
#include "load/rw_pool.h"
#include "load/sentinel.h"
#include "load/etcd_session.h"
#include "load/iproto_session.h"
#include "load/memcache_session.h"
#include "load/resp_session.h"
#include "load/start_at.h"
#include "load/worker.h"
#include "util/rng.h"

namespace memstand {

namespace {

// --shard K/N with N > 1: other shards share the server, so this shard's own
// cross-check cannot hold (the fleet's is checked by `memstand merge`).
bool Sharded(const LoadOptions& opt) { return opt.shard && opt.shard->shard.count > 1; }

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

double InfoDouble(const std::map<std::string, std::string>& info, const std::string& key,
                  bool* found) {
  auto it = info.find(key);
  if (it == info.end()) {
    *found = false;
    return 0;
  }
  return std::strtod(it->second.c_str(), nullptr);
}

// The server's CPU over the run from INFO's used_cpu_user/sys (RESP only).
void ServerCpu(const ControlSnapshot& before, const ControlSnapshot& after, RunResult* r) {
  if (!before.counts.ok() || !after.counts.ok()) return;
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

void ProcessCpu(double* user, double* sys) {
  rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  *user = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
  *sys = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

Status PrepareShared(const LoadOptions& opt, WorkerShared* shared) {
  shared->options = &opt;
  std::vector<uint32_t> weights;
  for (const auto& c : opt.commands) weights.push_back(c.weight);
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

// What the control loop runs every 20 ms: a refresh of where the data is (the slot map,
// a Sentinel target's primary) when a worker asks, at most every 100 ms.
class Refresher {
 public:
  explicit Refresher(WorkerShared* shared) : shared_(shared) {}
  virtual ~Refresher() = default;
  virtual void Tick(RunResult* r) = 0;

 protected:
  /// Whether a refresh is due now: a worker asked (the request is taken) and 100 ms
  /// passed since the last one.
  bool Due() {
    const int64_t now = NowNs();
    if (now < next_ns_ || !shared_->refresh_wanted.exchange(false)) return false;
    next_ns_ = now + 100'000'000;
    return true;
  }
  WorkerShared* shared_;

 private:
  int64_t next_ns_ = 0;
};

// --cluster (with or without --reconnect): reads the slot map again when a worker asks
// (it lost a master's connection, got CLUSTERDOWN, or met a MOVED storm), at most every
// 100 ms, until a read succeeds; the workers adopt it.
class MapRefresher final : public Refresher {
 public:
  MapRefresher(RunControl* control, WorkerShared* shared) : Refresher(shared), control_(control) {}
  void Tick(RunResult* r) override {
    if (!Due()) return;
    moved_ = shared_->refresh_for_moved.exchange(false) || moved_;
    auto map = control_->ReadSlotMap();
    if (!map.ok()) {
      shared_->refresh_wanted = true;  // again, 100 ms on
      r->cluster_refresh_failure = map.status().message();
      return;
    }
    std::lock_guard<std::mutex> lock(shared_->map_mu);
    shared_->latest_map = std::move(*map);
    ++shared_->map_version;
    ++r->cluster_map_reads;
    if (moved_) ++r->cluster_map_reads_moved;
    moved_ = false;
  }

 private:
  RunControl* control_;
  bool moved_ = false;  // a MOVED storm asked for the read under way (or failed)
};

// A Sentinel target or an RW pool (tarantool+rw://): asks the Sentinels for the primary,
// or the members which one is writable, when a worker asks (it lost a connection to the
// primary it knows, or got READONLY / ER_READONLY), at most every 100 ms, until an
// answer holds; a primary that moved is published, and the workers adopt it.
class PrimaryRefresher final : public Refresher {
 public:
  PrimaryRefresher(const RedisTarget& target, WorkerShared* shared) : Refresher(shared), target_(target) {}
  void Tick(RunResult* r) override {
    if (!Due()) return;
    ++r->sentinel.queries;
    // Short limits, as the slot map's read: a dead node must not hold the loop up.
    const int timeout_ms = std::min(shared_->options->connect_timeout_ms, 1000);
    auto found = target_.rw_pool() ? FindWritable(target_, CurrentPrimary(), timeout_ms)
                                   : FindPrimary(target_, shared_->tls, timeout_ms);
    if (!found.ok()) {
      shared_->refresh_wanted = true;  // again, 100 ms on
      ++r->sentinel.failed_queries;
      r->sentinel.last_failure = found.status().message();
      return;
    }
    std::lock_guard<std::mutex> lock(shared_->map_mu);
    if (found->primary.Address() == shared_->primaries.back().Address()) {
      for (const auto& [name, n] : found->sent) r->sentinel.sent_to_primary[name] += n;
      return;
    }
    r->sentinel.changes.push_back({UnixNowS(), found->primary.Address()});
    shared_->primaries.push_back(std::move(found->primary));
    ++shared_->map_version;
  }

 private:
  std::string CurrentPrimary() {
    std::lock_guard<std::mutex> lock(shared_->map_mu);
    return shared_->primaries.back().Address();
  }
  const RedisTarget& target_;
};

// A Sentinel target or an RW pool, before the control side connects: the primary the
// Sentinels name (and that says so), or the writable member, becomes the target's address
// and the workers' first primary.
Status StartAtPrimary(LoadOptions& opt, const std::shared_ptr<const TlsContext>& tls, WorkerShared* shared,
                      RunResult* r) {
  if (opt.target.rw_pool() && (opt.protocol != Protocol::kIproto || opt.cluster || opt.pool_size() > 1)) {
    return Status::InvalidArgument("a tarantool+rw:// target is the load's only target, over IPROTO, with no "
                                   "--cluster and no pool");
  }
  SentinelResult& s = r->sentinel;
  s.master_name = opt.target.master_name;
  for (const auto& [host, port] : opt.target.sentinel() ? opt.target.sentinels : opt.target.rw_members) {
    s.sentinels.push_back(host + ":" + std::to_string(port));
  }
  ++s.queries;
  auto found = opt.target.rw_pool() ? FindWritable(opt.target, "", opt.connect_timeout_ms)
                                    : FindPrimary(opt.target, tls, opt.connect_timeout_ms);
  if (!found.ok()) return found.status().WithContext("cannot use " + opt.target.Display());
  opt.target.host = found->primary.host;
  opt.target.port = found->primary.port;
  s.primary_at_start = found->primary.Address();
  shared->primaries.push_back(std::move(found->primary));
  return Status::OK();
}

// Runs the workers to completion; forwards an interrupt to them.
void RunWorkers(LoadOptions* opt, WorkerShared* shared, std::vector<std::unique_ptr<WorkerBase>>* workers,
                const std::atomic<bool>* interrupt, Refresher* refresher, RunResult* r) {
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
    if (opt->stop_request != nullptr && opt->stop_request->load()) shared->stop = true;
    if (refresher != nullptr) refresher->Tick(r);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (auto& t : threads) t.join();
}

void Collect(const std::vector<std::unique_ptr<WorkerBase>>& workers, size_t command_count,
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
int64_t MeasuredStartNs(const std::vector<std::unique_ptr<WorkerBase>>& workers) {
  int64_t start = INT64_MAX;
  for (const auto& w : workers) {
    if (w->measure_start_ns() > 0) start = std::min(start, w->measure_start_ns());
  }
  return start == INT64_MAX ? NowNs() : start;
}

// --samples: merges the threads' reservoirs into one uniform sample, times on the
// common measured start.
void MergeSamples(const LoadOptions& opt, const std::vector<std::unique_ptr<WorkerBase>>& workers,
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

// The requests of the mix, by command index: RESP's from their templates, the others'
// parsed again for their protocol.
Status MakeRequests(const LoadOptions& opt, RunControl&, std::vector<RespRequest>* out) {
  *out = RespSession::MakeRequests(opt);
  return Status::OK();
}

template <class R>
Status ParseEach(const LoadOptions& opt, std::vector<R>* out, const std::function<Status(R*)>& prepare) {
  for (const CommandSpec& c : opt.commands) {
    auto req = R::Parse(c.text, opt.key_prefix);
    if (!req.ok()) return req.status().WithContext("--command '" + c.text + "'");
    Status s = prepare(&*req);
    if (!s.ok()) return s;
    out->push_back(std::move(*req));
  }
  return Status::OK();
}

Status MakeRequests(const LoadOptions& opt, RunControl&, std::vector<MemcacheRequest>* out) {
  return ParseEach<MemcacheRequest>(opt, out, [](MemcacheRequest*) { return Status::OK(); });
}

// etcd: the Host header names the first target for every member (the gateway does not
// read it).
Status MakeRequests(const LoadOptions& opt, RunControl&, std::vector<EtcdRequest>* out) {
  etcd::Target et;
  et.host = opt.target.host + ":" + std::to_string(opt.target.port);
  return ParseEach<EtcdRequest>(opt, out, [&](EtcdRequest* r) {
    r->set_etcd_target(et);
    return Status::OK();
  });
}

// Tarantool: the shard's __seq__ values, --call-errors, and space names resolved on the
// server(s).
Status MakeRequests(const LoadOptions& opt, RunControl& control, std::vector<IprotoRequest>* out) {
  return ParseEach<IprotoRequest>(opt, out, [&](IprotoRequest* r) {
    if (opt.shard) r->set_shard(opt.shard->shard);
    r->set_call_errors(opt.call_errors);
    return r->ResolveSpace([&](const std::string& name) { return control.SpaceId(name); });
  });
}

// --history: the log every worker records its operations in, and what each command is
// to a register. Its time 0 is now, before any request.
template <class Request>
Result<std::unique_ptr<HistoryLog>> OpenHistory(const LoadOptions& opt, const std::vector<Request>& requests,
                                                WorkerShared* shared) {
  auto plan = PlanHistory(opt);
  if (!plan.ok()) return plan.status();
  history::RunHeader header;
  header.target_kind = HistoryTargetKind(opt.protocol);
  header.open_loop = opt.rate > 0;
  header.keys_fresh = false;  // what the keys held before the run is not known here
  // A value written by another run (or by this one with another seed) is never "ours".
  header.run_tag = std::random_device{}();
  header.key_prefix = plan->key_prefix;
  if (opt.protocol == Protocol::kIproto) {
    header.key_numbers = plan->key_numbers;
    header.value_field = plan->value_field;
    header.space = HistorySpace(requests);
  }
  header.target = opt.target.Display();
  header.writer = std::string("memstand ") + MEMSTAND_VERSION;
  auto log = HistoryLog::Open(opt.history_path, std::move(header), opt.history_events);
  if (!log.ok()) return log.status();
  shared->history = log->get();
  shared->history_ops = std::move(plan->ops);
  shared->history_value_field = plan->value_field;
  return log;
}

// The workers' whole run: threads started, joined, their statistics merged.
template <LoadSession S>
void RunAndCollect(LoadOptions& opt, WorkerShared* shared, const std::vector<typename S::Request>& requests,
                   const std::atomic<bool>* interrupt, IntervalSink sink, RunControl* control, RunResult* r) {
  IntervalCollector intervals(opt.threads, opt.commands.size(), std::move(sink));
  shared->intervals = &intervals;
  std::vector<std::unique_ptr<WorkerBase>> workers;
  for (int i = 0; i < opt.threads; ++i) workers.push_back(std::make_unique<Worker<S>>(shared, &requests, i));
  MapRefresher map(control, shared);
  PrimaryRefresher primary(opt.target, shared);
  Refresher* refresher =
      opt.cluster ? static_cast<Refresher*>(&map) : opt.target.follows_primary() ? &primary : nullptr;
  RunWorkers(&opt, shared, &workers, interrupt, refresher, r);
  Collect(workers, opt.commands.size(), r);
  const int64_t start_ns = MeasuredStartNs(workers);
  r->measured_start_unix_s = UnixNowS() - (NowNs() - start_ns) / 1e9;
  if (opt.samples_cap > 0) MergeSamples(opt, workers, start_ns, r);
  intervals.Finish();
  r->series = intervals.series();
  int64_t end_ns = start_ns;
  for (const auto& w : workers) end_ns = std::max(end_ns, w->measure_finish_ns());
  r->availability = ComputeAvailability(r->totals.faults, opt.commands.size(), start_ns, end_ns,
                                        r->series.back());
}

// The counts of the cross-check: what the load sent, and what the control connections
// sent between the two snapshots, against the servers' counters.
void CrossCheckCounts(const RunControl& control, const std::vector<std::string>& stats,
                      const ThreadStats& totals, const ControlSnapshot& before, const ControlSnapshot& after,
                      CrossCheck* cc) {
  if (!before.counts.ok() || !after.counts.ok()) {
    cc->unavailable_reason = (before.counts.ok() ? after.counts.status() : before.counts.status()).message();
    return;
  }
  cc->available = true;
  std::map<std::string, int64_t> sent = control.LoadCounts(stats, totals);
  for (const auto& [name, n] : after.control_sent) {
    auto it = before.control_sent.find(name);
    sent[name] += n - (it == before.control_sent.end() ? 0 : it->second);
  }
  control.Compare(sent, before, after, cc);
}

// --reconnect, after a lost connection: a row holds when the server counted between
// memstand's count less the requests lost in flight (each may or may not have run) and
// memstand's count.
void AllowLostInFlight(const std::vector<std::string>& stats, const FaultStats& f, CrossCheck* cc) {
  std::map<std::string, int64_t> unknown;
  for (size_t i = 0; i < stats.size() && i < f.lost_in_flight.size(); ++i) {
    unknown[stats[i]] += static_cast<int64_t>(f.lost_in_flight[i]);
  }
  cc->mismatch = false;
  for (CrossCheckRow& row : cc->rows) {
    if (auto it = unknown.find(row.command); it != unknown.end()) row.unknown = it->second;
    if (row.server > row.memstand || row.server < row.memstand - row.unknown) cc->mismatch = true;
  }
}

}  // namespace

void AllowOwnCommands(const std::map<std::string, int64_t>& sent, CrossCheck* cc) {
  cc->mismatch = false;
  for (CrossCheckRow& row : cc->rows) {
    if (auto it = sent.find(row.command); it != sent.end() && it->second > 0) {
      row.memstand += it->second;
      row.unknown += it->second;
    }
    if (row.server > row.memstand || row.server < row.memstand - row.unknown) cc->mismatch = true;
  }
}

namespace {

// RESP: whether the server is another process than at the start (INFO's run_id).
bool Restarted(const ControlSnapshot& before, const ControlSnapshot& after) {
  auto b = before.info.find("run_id");
  auto a = after.info.find("run_id");
  return b != before.info.end() && a != after.info.end() && a->second != b->second;
}

// What each thread sent since its last lost connection: what a server restarted
// meanwhile received (its counters start from zero).
ThreadStats SinceLastLoss(const ThreadStats& t) {
  ThreadStats since(t.sent_by_command.size());
  const FaultStats& f = t.faults;
  for (size_t i = 0; i < since.sent_by_command.size(); ++i) {
    since.sent_by_command[i] = t.sent_by_command[i] - (i < f.sent_at_last_loss.size() ? f.sent_at_last_loss[i] : 0);
  }
  for (const auto& [name, n] : t.setup_commands) {
    auto it = f.setup_at_last_loss.find(name);
    since.setup_commands[name] = n - (it == f.setup_at_last_loss.end() ? 0 : it->second);
  }
  return since;
}

// --wait-replicas: every write sent (a redirected one again) was followed by a WAIT on
// its connection, which the server counts as "wait": the cross-check's commands gain a
// row per waited command, counted as it is (sent, lost in flight, sent at the last loss),
// named "wait" (rows of one name are summed).
void AddWaits(const LoadOptions& opt, std::vector<std::string>* stats, ThreadStats* t) {
  const size_t commands = std::min(stats->size(), opt.commands.size());
  auto copy = [](std::vector<uint64_t>* v, size_t i) {
    if (i < v->size()) v->push_back((*v)[i]);
  };
  for (size_t i = 0; i < commands; ++i) {
    if (!RespSession::WaitFollows(opt, opt.commands[i])) continue;
    stats->push_back("wait");
    copy(&t->sent_by_command, i);
    copy(&t->faults.lost_in_flight, i);
    copy(&t->faults.sent_at_last_loss, i);
  }
}

// One run of protocol S: the control side connected and the requests made, the
// servers' counters read, the load run, the counters read again and cross-checked.
template <LoadSession S>
Result<RunResult> RunWith(LoadOptions& opt, const std::shared_ptr<const TlsContext>& tls,
                          ConnectControl connect, const std::atomic<bool>* interrupt, IntervalSink sink) {
  RunResult r;
  r.started_at = WallClockIso();
  WorkerShared shared;
  if (opt.target.follows_primary()) {
    Status found = StartAtPrimary(opt, tls, &shared, &r);
    if (!found.ok()) return found;
  }
  auto control = connect(opt, tls, &shared.cluster_map, &r);
  if (!control.ok()) return control.status();
  RunControl& ctl = **control;
  std::vector<typename S::Request> requests;
  Status s = PrepareShared(opt, &shared);
  if (s.ok()) s = MakeRequests(opt, ctl, &requests);
  if (!s.ok()) return s;
  shared.tls = tls;
  std::unique_ptr<HistoryLog> history;
  if (!opt.history_path.empty()) {
    auto log = OpenHistory(opt, requests, &shared);
    if (!log.ok()) return log.status();
    history = std::move(*log);
  }
  std::vector<std::string> stats;
  for (const auto& q : requests) stats.push_back(q.server_stat());

  double u0, s0;
  ProcessCpu(&u0, &s0);
  r.fleet.before_unix_s = UnixNowS();
  const ControlSnapshot before = ctl.Snapshot();
  r.server_info = before.info;
  r.server_version = before.version;
  r.tls_session = ctl.tls_description();
  RunAndCollect<S>(opt, &shared, requests, interrupt, std::move(sink), &ctl, &r);
  if (history) {
    Status written = history->Finish();
    if (written.ok()) {
      r.history_records = history->records();
    } else if (r.failure.ok()) {
      r.failure = written;
    }
  }
  ControlSnapshot after = ctl.Snapshot();
  // --reconnect: a server restarted under the load took the control connections
  // with it: the control side connects again to read the new server. (A cluster whose
  // master died has other masters now: its cross-check is not available.)
  const bool lost = r.totals.faults.connections_lost > 0;
  const bool moved = !r.sentinel.changes.empty();  // a Sentinel target's (RW pool's) primary moved
  for (const auto& [name, n] : r.sentinel.sent_to_primary) after.control_sent[name] += n;
  std::unique_ptr<RunControl> again;
  if (lost && !after.counts.ok() && !opt.cluster && !moved) {
    RunResult scratch;
    std::optional<SlotMap> map;
    auto connected = connect(opt, tls, &map, &scratch);
    if (connected.ok()) {
      again = std::move(*connected);
      after = again->Snapshot();
    }
  }
  double u1, s1;
  ProcessCpu(&u1, &s1);
  r.process_cpu_user_s = u1 - u0;
  r.process_cpu_sys_s = s1 - s0;
  const ThreadStats* totals = &r.totals;
  std::optional<ThreadStats> with_waits;
  if (opt.wait.replicas > 0) {
    with_waits = r.totals;
    AddWaits(opt, &stats, &*with_waits);
    totals = &*with_waits;
  }
  if (lost && Restarted(before, after)) {
    r.cross_check.server_restarted = true;
    ControlSnapshot fresh;  // the new server's counters started from zero
    fresh.counts = std::map<std::string, int64_t>{};
    CrossCheckCounts(again ? *again : ctl, stats, SinceLastLoss(*totals), fresh, after, &r.cross_check);
  } else {
    ServerCpu(before, after, &r);
    CrossCheckCounts(ctl, stats, *totals, before, after, &r.cross_check);
    if (lost && r.cross_check.available) AllowLostInFlight(stats, totals->faults, &r.cross_check);
  }
  if (moved) {
    r.cross_check = CrossCheck();
    r.cross_check.unavailable_reason = std::string("the primary moved during the run (") +
                                       (opt.target.rw_pool() ? "RW pool: " : "Sentinel: ") +
                                       r.sentinel.primary_at_start + " to " + r.sentinel.changes.back().primary +
                                       "): the counters of one server do not cover the run";
  }
  r.cross_check.enforced = opt.exclusive_server && !Sharded(opt);
  RecordFleetCounts(opt, before.fleet, [&ctl] { return ctl.FleetCounts(); }, interrupt, &r.fleet);
  PoolMembers(opt, before.each, after.each, &r);
  return r;
}

}  // namespace

namespace {

// The one place the protocol is chosen: its session, and its control side.
Result<RunResult> RunProtocol(LoadOptions& opt, const std::shared_ptr<const TlsContext>& tls,
                              const std::atomic<bool>* interrupt, IntervalSink sink) {
  switch (opt.protocol) {
    case Protocol::kResp:
      return RunWith<RespSession>(opt, tls, ConnectRespControl, interrupt, std::move(sink));
    case Protocol::kMemcache:
      return RunWith<MemcacheSession>(opt, tls, ConnectProtoControl, interrupt, std::move(sink));
    case Protocol::kEtcd:
      return RunWith<EtcdSession>(opt, tls, ConnectProtoControl, interrupt, std::move(sink));
    case Protocol::kIproto:
      return RunWith<IprotoSession>(opt, tls, ConnectProtoControl, interrupt, std::move(sink));
  }
  return Status::InvalidArgument("unknown protocol");
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
  // --cpus: the load threads' CPUs are theirs. The caller's thread, polling the run,
  // and the threads started from it (the per-second collector, the history's writer)
  // go to the CPUs left: on a load thread's CPU each took it from the load thread for
  // up to a few ms a second, and an open loop sent its requests due meanwhile that late
  // (bench/README.md, "Open loop precision"). The caller gets its CPUs back at the end.
  std::optional<ScopedThreadCpus> apart;
  const CpuList rest = ConfineOutside(opt.cpus, &apart);
  Result<RunResult> r = RunProtocol(opt, tls, interrupt, std::move(sink));
  if (r.ok()) r->other_threads_cpus = rest;
  return r;
}

}  // namespace memstand

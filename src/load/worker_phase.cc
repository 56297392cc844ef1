// The parts of a load thread that do not depend on the protocol and are off the hot
// path: its clients, the measured phase's start and end, the per-second statistics,
// the pacers, and what a failed connection costs.
#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include <algorithm>

#include "core/clock.h"
#include "core/cpu_set.h"
#include "load/worker.h"
#include "load/worker_conn.h"

namespace memstand {

namespace {

constexpr size_t kReadChunk = 256 * 1024;
constexpr int64_t kSecondNs = 1'000'000'000;
// --cluster: slots a worker's map had wrong (MOVED) before it asks for the whole map:
// redis-py's default (reinitialize_steps); Lettuce reads it on the first MOVED (then at
// most every 30 s), go-redis on every one (one read at a time). One slot moved (a
// resharding's step) costs no read, however many in-flight requests it redirects.
constexpr int kMovedPerMapRead = 5;

void ThreadCpu(double* user, double* sys) {
  rusage ru;
  getrusage(RUSAGE_THREAD, &ru);
  *user = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
  *sys = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

}  // namespace

WorkerBase::WorkerBase(WorkerShared* shared, int thread_index)
    : shared_(shared),
      opt_(*shared->options),
      thread_index_(thread_index),
      map_(shared->cluster_map.value_or(SlotMap())),
      cluster_(shared->cluster_map.has_value()),
      primary_target_(shared->options->target.follows_primary()),
      follows_(cluster_ || primary_target_),
      per_request_(!cluster_ && shared->options->balance == Balance::kPerRequest &&
                   shared->options->pool_size() > 1),
      direct_(!cluster_ && !per_request_ && !(shared->options->rate > 0)),
      // --cluster: --pipeline per master connection, as memtier (each of its cluster
      // connections has the pipeline's depth) and redis-benchmark --cluster (a client
      // per master) count it; keys spread the client's requests over the masters.
      depth_(static_cast<size_t>(shared->options->pipeline) *
             (cluster_ ? std::max<size_t>(1, map_.nodes().size()) : 1)),
      stats_(shared->options->commands.size()),
      interval_(shared->options->commands.size()),
      read_buf_(kReadChunk),
      open_loop_(shared->options->rate > 0),
      traits_(shared->options->commands.size()),
      outage_(shared->options->commands.size()),
      backoff_rng_(DeriveSeed(shared->options->seed ^ 0xbac0ffULL, static_cast<uint64_t>(thread_index))),
      history_(shared->history),
      reactor_(std::make_unique<ReactorHolder>()) {
  if (history_ != nullptr) {
    history_op_ = shared->history_ops.data();
    // A write's record in line only where it has no extras (HistoryRecordWrite).
    const bool plain = history_->plain_writes();
    for (const history::Op op : shared->history_ops) {
      const bool in_line = plain && op != history::Op::kRead;
      history_write_ok_.push_back(
          in_line ? history::format::TailV2(0, 0, op, history::Outcome::kOk, history::Seen::kNone) : 0);
    }
    history_t0_ = history_->start_ns();
    history_run_tag_ = history_->run_tag();
    history_batch_ = HistoryLog::Batch::WithRoom();
    stamp_.resize(shared->options->value.max_size);
  }
}

WorkerBase::~WorkerBase() {
  for (auto& c : conns_) Close(*c);
}

void WorkerBase::MakeClients() {
  const uint64_t total = static_cast<uint64_t>(opt_.connections());
  for (int i = 0; i < opt_.clients; ++i) {
    auto cl = std::make_unique<Client>();
    uint64_t global = static_cast<uint64_t>(thread_index_) * opt_.clients + i;
    cl->index = static_cast<uint32_t>(i);
    for (size_t k = 0; k < opt_.commands.size(); ++k) {
      // Each command of each client draws its own sequence (stream = client, command).
      cl->keys.emplace_back(opt_.commands[k].key_pattern, opt_.key_min, opt_.key_max,
                            DeriveSeed(opt_.seed, k), global, total);
    }
    cl->rng = Rng(DeriveSeed(opt_.seed ^ 0x5eedda7aULL, global));
    cl->mix_pos = (global * 7919) % shared_->mix->cycle_length();  // spread the starting points
    cl->seq = global;
    cl->pool_index = PoolIndex(opt_.balance, opt_.seed, global, opt_.pool_size());
    cl->target = primary_target_ ? LatestPrimary() : &opt_.pool_target(cl->pool_index);
    if (per_request_) cl->may_be_down = static_cast<uint32_t>(opt_.pool_size() - 1);
    if (opt_.requests > 0) {
      cl->budget = opt_.requests / total + (global < opt_.requests % total ? 1 : 0);
      budget_left_ += cl->budget;
    }
    clients_.push_back(std::move(cl));
  }
}

// --read-from-replicas: every master's replicas become nodes (without slots) that
// every client connects to.
void WorkerBase::AddReplicaNodes() {
  const size_t masters = map_.nodes().size();
  replicas_of_.resize(masters);
  for (size_t m = 0; m < masters; ++m) {
    const auto replicas = map_.nodes()[m].replicas;
    for (const auto& [host, port] : replicas) replicas_of_[m].push_back(map_.NodeIndex(host, port));
  }
  is_replica_.assign(map_.nodes().size(), false);
  for (size_t i = masters; i < is_replica_.size(); ++i) is_replica_[i] = true;
}

void WorkerBase::EnterMeasuredPhase(int64_t now) {
  measuring_ = true;
  measure_start_ns_ = now;
  measure_end_ns_ = now;
  if (opt_.requests == 0) {
    measure_end_deadline_ns_ = now + static_cast<int64_t>(opt_.duration_s * 1e9);
  }
  next_interval_ns_ = now + kSecondNs;
  ThreadCpu(&cpu_user_start_, &cpu_sys_start_);
}

void WorkerBase::FinishMeasuredPhase() {
  if (measure_done_) return;
  measure_done_ = true;
  const int64_t now = NowNs();
  measure_finish_ns_ = opt_.requests == 0 ? std::min(now, measure_end_deadline_ns_) : now;
  for (uint32_t cmd = 0; cmd < outage_.size(); ++cmd) {
    if (outage_[cmd].open) OutageEnd(cmd, 0);  // not over by the end
  }
  RollInterval(NowNs(), /*last=*/true);
  if (open_loop_ && opt_.requests == 0 && !stopping_) {
    if (thread_pacer_) stats_.unsent_intended += UnsentOf(*thread_pacer_, opt_.rate / opt_.threads);
    for (const auto& c : clients_) {
      if (c->pacer) stats_.unsent_intended += UnsentOf(*c->pacer, opt_.rate / opt_.connections());
    }
  }
  double user, sys;
  ThreadCpu(&user, &sys);
  stats_.cpu_user_s = user - cpu_user_start_;
  stats_.cpu_sys_s = sys - cpu_sys_start_;
  stats_.spin_s = spin_ns_ / 1e9;
}

uint64_t WorkerBase::UnsentOf(const Pacer& schedule, double rate_per_s) const {
  const int64_t left_ns = measure_end_deadline_ns_ - schedule.Peek();
  return left_ns > 0 ? 1 + static_cast<uint64_t>(left_ns * 1e-9 * rate_per_s) : 0;
}

// Closes the current second (and any seconds that passed without a check, as empty
// ones): folds it into the totals and hands it to the collector.
void WorkerBase::RollInterval(int64_t now, bool last) {
  do {
    IntervalStats done;
    done.index = interval_index_++;
    const size_t n = interval_.size();
    for (size_t i = 0; i < n; ++i) stats_.commands[i].Add(interval_[i]);
    // Handed over whole; the new second starts empty, in a summarized second's memory
    // given back (no allocation, no page touched for the first time) once there is one.
    if (IntervalCollector* collector = shared_->intervals; collector != nullptr) {
      done.commands = std::move(interval_);
      interval_ = collector->Recycled();
      if (interval_.size() != n) interval_ = std::vector<CommandStats>(n);
      collector->Publish(std::move(done));
    } else {
      for (CommandStats& c : interval_) c.Reset();
    }
    next_interval_ns_ += kSecondNs;
  } while (!last && now >= next_interval_ns_);
}

void WorkerBase::StartPacers(int64_t start) {
  // Schedule g (a connection's, or with --schedule per-thread a thread's) starts g / rate
  // after `start`, so that with constant arrivals the schedules interleave into one even
  // stream at the total rate.
  auto start_pacer = [&](std::optional<Pacer>* pacer, double rate_per_s, uint64_t g) {
    PacerOptions po;
    po.rate_per_s = rate_per_s;
    po.arrival = opt_.poisson ? PacerOptions::Arrival::kPoisson : PacerOptions::Arrival::kConstant;
    po.seed = DeriveSeed(opt_.seed ^ 0x9ace5ULL, g);
    pacer->emplace(po, start + static_cast<int64_t>(g * 1e9 / opt_.rate));
  };
  if (opt_.schedule_per_thread) {
    start_pacer(&thread_pacer_, opt_.rate / opt_.threads, static_cast<uint64_t>(thread_index_));
    for (auto& c : clients_) c->waits = true;  // Fill sends nothing: SendDue does
  } else {
    for (auto& c : clients_) {
      const uint64_t global = static_cast<uint64_t>(thread_index_) * opt_.clients + c->index;
      start_pacer(&c->pacer, opt_.rate / opt_.connections(), global);
    }
  }
  prctl(PR_SET_TIMERSLACK, 1000UL);  // wake within ~1 µs of a send time, not 50 µs
}

void WorkerBase::NoteSpin(int64_t from, int64_t to) {
  if (!measuring_ || measure_done_) return;
  ++stats_.spin_polls;
  spin_ns_ += to - from;
}

Status WorkerBase::EnterRealtime() {
  if (opt_.realtime_priority == 0) return Status::OK();
  sched_param param{};
  param.sched_priority = opt_.realtime_priority;
  const int rc = pthread_setschedparam(pthread_self(), SCHED_FIFO, &param);
  if (rc != 0) {
    return Status::IoError(ErrnoMessage("--realtime " + std::to_string(opt_.realtime_priority) +
                                            ": SCHED_FIFO for load thread " + std::to_string(thread_index_) +
                                            " (needs root, CAP_SYS_NICE or RLIMIT_RTPRIO)",
                                        rc));
  }
  int policy = 0;
  if (pthread_getschedparam(pthread_self(), &policy, &param) == 0 && policy == SCHED_FIFO) {
    stats_.realtime_priority = param.sched_priority;
  }
  return Status::OK();
}

Status WorkerBase::PinCpus() {
  if (!opt_.cpus.empty()) {
    const int cpu = opt_.cpus[static_cast<size_t>(thread_index_) % opt_.cpus.size()];
    Status s = PinThisThread({cpu});
    if (!s.ok()) return s.WithContext("--cpus: load thread " + std::to_string(thread_index_));
  }
  auto cpus = ThisThreadCpus();
  if (cpus.ok()) stats_.cpus = *cpus;
  return Status::OK();
}

std::string WorkerBase::Peer(const ConnIo& c) const {
  if (cluster_) return map_.nodes()[c.node].Address();
  return (c.dialed != nullptr ? *c.dialed : TargetOf(*c.client, c.node)).Display();
}

std::string WorkerBase::PeerAddress(const ConnIo& c) const {
  if (cluster_) return map_.nodes()[c.node].Address();
  return (c.dialed != nullptr ? *c.dialed : TargetOf(*c.client, c.node)).Address();
}

void WorkerBase::CountFailure(ConnIo& c, const Status& why, uint64_t data) {
  ++stats_.connection_errors;
  if (failure_.ok()) failure_ = why;
  shared_->stop = true;
  unanswered_ += Pending(c);
  in_flight_ -= data;
  if (c.in_setup) {
    c.in_setup = false;
    --setups_;
  }
  Client& cl = *c.client;
  cl.failed = true;
  if (opt_.requests > 0 && cl.budget != UINT64_MAX) {
    budget_left_ -= cl.budget;
    cl.budget = 0;
  }
  Close(c);
}

void WorkerBase::CompleteLost(Client& cl, const InFlight& f, bool reached, int64_t now) {
  --cl.in_flight;
  if (reached) {
    auto& lost = stats_.faults.lost_in_flight;
    if (lost.size() <= f.cmd) lost.resize(opt_.commands.size());
    ++lost[f.cmd];
  }
  if (!f.measured) return;
  CommandStats& s = interval_[f.cmd];
  ++s.lost;
  NotOk(s, f.cmd, LostEndsUnknown(f.cmd, reached), now);
}

void WorkerBase::Unsent(Client& cl, uint32_t cmd, bool measured, int64_t now) {
  if (!measured) return;
  if (opt_.requests > 0) {
    --cl.budget;
    --budget_left_;
  }
  CommandStats& s = interval_[cmd];
  ++s.lost;
  NotOk(s, cmd, false, now);
}

// A thread keeps at most this many spans per command; later ones are merged into the
// last (their counts kept, the gaps between them lost), which the report says.
constexpr size_t kMaxOutageSpans = 10'000;

void WorkerBase::OutageOpen(uint32_t cmd, int64_t now) {
  OutageTrack& t = outage_[cmd];
  if (t.open) return;
  t.open = true;
  ++outages_open_;
  t.span = OutageSpan{now, 0, 0, 0};
}

void WorkerBase::NotOk(CommandStats& s, uint32_t cmd, bool unknown, int64_t now) {
  ++(unknown ? s.unknown : s.failed);
  OutageOpen(cmd, now);
  OutageSpan& span = outage_[cmd].span;
  ++(unknown ? span.unknown : span.failed);
}

void WorkerBase::OutageEnd(uint32_t cmd, int64_t now) {
  OutageTrack& t = outage_[cmd];
  if (!t.open) return;
  t.open = false;
  --outages_open_;
  t.span.end_ns = now;
  auto& spans = stats_.faults.outages;
  if (spans.size() <= cmd) spans.resize(opt_.commands.size());
  auto& mine = spans[cmd];
  if (mine.size() < kMaxOutageSpans) {
    mine.push_back(t.span);
    return;
  }
  OutageSpan& last = mine.back();
  last.end_ns = t.span.end_ns;
  last.failed += t.span.failed;
  last.unknown += t.span.unknown;
}

void WorkerBase::NoteLoss(ConnIo& c, const Status& why) {
  FaultStats& f = stats_.faults;
  ++f.connections_lost;
  if (f.first_loss.empty()) f.first_loss = Peer(c) + ": " + why.message();
  f.sent_at_last_loss = stats_.sent_by_command;
  f.setup_at_last_loss = stats_.setup_commands;
  // Every command's outage starts here at the latest: a closed-loop client waits for
  // its connection without failing anything, yet nothing of its is done meanwhile.
  if (measuring_ && !measure_done_) {
    for (uint32_t cmd = 0; cmd < outage_.size(); ++cmd) OutageOpen(cmd, NowNs());
  }
  SetDown(c, true);
}

void WorkerBase::ScheduleReopen(ConnIo& c, const Status& why, int64_t now) {
  const ReconnectOptions& r = opt_.reconnect;
  if (r.max_attempts > 0 && c.attempts >= r.max_attempts) {
    c.reopening = false;
    return CountFailure(c, why.WithContext("--reconnect: " + std::to_string(c.attempts) +
                                           " attempts in a row failed"), 0);
  }
  if (cluster_) shared_->refresh_wanted.store(true, std::memory_order_relaxed);  // a master lost?
  if (primary_target_) MaybeAskForPrimary(c);
  // Doubled per failed attempt up to the max; drawn in [half, all] of it.
  const int shift = std::min(c.attempts, 20);
  const int64_t full_ns =
      std::min<int64_t>(int64_t{r.backoff_max_ms}, int64_t{r.backoff_min_ms} << shift) * 1'000'000;
  const int64_t half = full_ns / 2;
  c.reopen_at_ns = now + half + static_cast<int64_t>(backoff_rng_.Next() % static_cast<uint64_t>(half + 1));
  c.waiting = true;
  reopen_.push_back(&c);
  next_reopen_ns_ = std::min(next_reopen_ns_, c.reopen_at_ns);
  next_deadline_ns_ = std::min(next_deadline_ns_, c.reopen_at_ns);  // the loop's one test
}

void WorkerBase::NoteUp(ConnIo& c) {
  c.reopening = false;
  c.attempts = 0;
  ++stats_.faults.reconnects;
  SetDown(c, false);
}

void WorkerBase::SetDown(ConnIo& c, bool down) {
  if (c.down == down) return;
  c.down = down;
  Client& cl = *c.client;
  down ? ++cl.down : --cl.down;
  cl.waits = thread_pacer_.has_value() || (!open_loop_ && cl.down > cl.may_be_down);
}

void WorkerBase::NoteMoved(int slot, int node) {
  ++stats_.cluster_moved;
  if (map_.NodeOf(slot) == node) return;  // corrected already, by a reply before this one
  map_.Assign(slot, node);
  if (++moved_since_map_ != kMovedPerMapRead) return;
  shared_->refresh_for_moved.store(true, std::memory_order_relaxed);
  shared_->refresh_wanted.store(true, std::memory_order_release);
}

const RedisTarget* WorkerBase::LatestPrimary() {
  std::lock_guard<std::mutex> lock(shared_->map_mu);
  map_version_seen_ = shared_->map_version.load();
  return &shared_->primaries.back();
}

void WorkerBase::AdoptPrimary() {
  const RedisTarget* primary = LatestPrimary();
  for (auto& cl : clients_) cl->target = primary;
  const Status moved = Status::IoError("the primary moved to " + primary->Address() +
                                       (opt_.target.rw_pool() ? " (RW pool)" : " (Sentinel)") +
                                       (opt_.reconnect.enabled ? "" : "; --reconnect follows it"));
  const int64_t now = NowNs();
  for (auto& c : conns_) {
    if (c->dialed == nullptr || c->dialed->Address() == primary->Address()) continue;
    if (c->state != ConnIo::State::kClosed) Fail(*c, moved);
    if (!c->waiting) continue;
    c->reopen_at_ns = std::min(c->reopen_at_ns, now);
    next_reopen_ns_ = std::min(next_reopen_ns_, now);
    next_deadline_ns_ = std::min(next_deadline_ns_, now);
  }
}

void WorkerBase::MaybeAskForPrimary(const ConnIo& c) {
  if (c.dialed != nullptr && c.dialed->Address() == c.client->target->Address()) {
    shared_->refresh_wanted.store(true, std::memory_order_relaxed);
  }
}

bool WorkerBase::Busy() const {
  const int64_t now = NowNs();
  if (thread_pacer_ && ThreadMayStillSend(now)) return true;
  for (const auto& c : clients_) {
    if (MayStillSend(*c, now)) return true;
  }
  for (const auto& c : conns_) {
    if (c->state != ConnIo::State::kClosed && Pending(*c) > 0) return true;
  }
  return false;
}

}  // namespace memstand

// The load loop, written once over a protocol's session (load/session.h): the
// connections' set-up, requests drawn and appended, replies fed and completed, redirects
// (--cluster), deadlines and failures. Nothing here knows which protocol it speaks.
#include "load/worker.h"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdint>
#include <optional>

#include "core/clock.h"
#include "core/pacer.h"
#include "core/reactor.h"
#include "core/socket.h"
#include "core/uring.h"
#include "history/value_tag.h"
#include "load/etcd_session.h"
#include "load/iproto_session.h"
#include "load/memcache_session.h"
#include "load/resp_session.h"
#include "load/worker_conn.h"

namespace memstand {

namespace {

constexpr uint16_t kAskingCommand = UINT16_MAX;  // ASKING before an ASK redirect
constexpr uint8_t kMaxRedirects = 5;  // MOVED/ASK/TRYAGAIN per request, then an error
constexpr int kMaxEvents = 512;
// --history: the error kinds of operations that ended with no reply (docs/history.md).
constexpr std::string_view kLostKind = "connection lost";
constexpr std::string_view kNotSentKind = "not sent: connection down";
constexpr std::string_view kNoReplyKind = "no reply by the end of the run";
constexpr int64_t kTickNs = 100'000'000;  // whether work is left: checked every 100 ms
constexpr int64_t kMaxWaitNs = 20'000'000;  // the loop's checks run at least this often
// Open loop, duration mode: a request intended before the end may still leave this
// long after it (a late timer or a backlog); what is unsent then is counted instead.
constexpr int64_t kLateSendGraceNs = 1'000'000'000;

}  // namespace

// ---- WorkerBase: the parts on the hot path, here to be in line with the loop below.

// Whether the client has requests left to send in this phase (now or later).
bool WorkerBase::MayStillSend(const Client& c, int64_t now) const {
  if (!started_ || stopping_ || c.failed) return false;
  if (!measuring_) return true;  // warm-up
  if (opt_.requests > 0) return c.budget > 0;
  if (c.pacer) return ScheduleMaySend(*c.pacer, now);
  return now < measure_end_deadline_ns_;
}

// Open loop: requests intended before the end, sent until kLateSendGraceNs after it.
// What a late schedule leaves unsent then is counted (FinishMeasuredPhase).
bool WorkerBase::ScheduleMaySend(const Pacer& schedule, int64_t now) const {
  return schedule.Peek() < measure_end_deadline_ns_ && now < measure_end_deadline_ns_ + kLateSendGraceNs;
}

// Whether the client may send its next request now. Open loop: once it is due, and
// a request intended after the warm-up waits for the measured phase to begin. (A
// closed-loop client that waits for its connections does not get here: Fill.)
bool WorkerBase::CanSend(const Client& c, int64_t now) const {
  if (!MayStillSend(c, now)) return false;
  if (!c.pacer) return true;
  const int64_t at = c.pacer->Peek();
  return at <= now && (measuring_ || at < warmup_end_ns_);
}

bool WorkerBase::Finished() const {
  return measuring_ && opt_.requests > 0 && budget_left_ == 0 && in_flight_ == 0 && setups_ == 0;
}

// Open loop: queues the client's next send time unless the in-flight cap holds it
// (a reply will call Fill) or it has nothing more to send.
void WorkerBase::Reschedule(Client& c) {
  const int64_t at = c.pacer->Peek();
  if (c.in_flight >= depth_ || !MayStillSend(c, at) ||
      at == c.due_queued) {
    return;
  }
  c.due_queued = at;
  due_.push({at, c.index});
}

// Until the earliest live send time, at most kMaxWaitNs; with --spin, until the spin
// before it, then 0 (a poll) until it is due.
int64_t WorkerBase::WaitTimeoutNs(int64_t now) {
  spinning_ = false;
  int64_t due;
  if (thread_pacer_) {
    // No client had room: a reply makes some, and wakes the loop.
    if (senders_full_ || !ThreadMayStillSend(now)) return kMaxWaitNs;
    due = thread_pacer_->Peek();
  } else {
    while (!due_.empty() && clients_[due_.top().second]->due_queued != due_.top().first) due_.pop();
    if (due_.empty()) return kMaxWaitNs;
    due = due_.top().first;
  }
  const int64_t until_due = due - now;
  const int64_t block = BlockBeforeDue(until_due, opt_.spin_ns);
  spinning_ = block == 0 && until_due > 0;
  return std::min(block, kMaxWaitNs);
}

// The due entries are taken out first, so an entry pushed back for a time already past
// waits for the next wake-up instead of looping in SendDue.
const std::vector<WorkerBase::Client*>& WorkerBase::TakeDue(int64_t now) {
  due_now_.clear();
  while (!due_.empty() && due_.top().first <= now) {
    auto [at, slot] = due_.top();
    due_.pop();
    Client& c = *clients_[slot];
    if (c.due_queued != at) continue;  // stale: the client sent or rescheduled since
    c.due_queued = -1;
    due_now_.push_back(&c);
  }
  return due_now_;
}

// --schedule per-thread: whether the thread's schedule has requests left in this phase
// (MayStillSend's rule for a client's).
bool WorkerBase::ThreadMayStillSend(int64_t now) const {
  if (!started_ || stopping_) return false;
  if (!measuring_ || opt_.requests > 0) return true;  // warm-up; requests mode: the clients' budgets
  return ScheduleMaySend(*thread_pacer_, now);
}

// The thread's schedule says when; a client may take a request while it has room, has
// not failed and (requests mode) has budget left.
bool WorkerBase::MaySendFor(const Client& c) const { return c.in_flight < depth_ && !c.failed && HasBudget(c); }

bool WorkerBase::HasBudget(const Client& c) const { return opt_.requests == 0 || !measuring_ || c.budget > 0; }

WorkerBase::Client* WorkerBase::NextSender() {
  const size_t n = clients_.size();
  Client* down = nullptr;
  bool any_up = false;
  for (size_t i = 0; i < n; ++i, sender_ = static_cast<uint32_t>((sender_ + 1) % n)) {
    Client& c = *clients_[sender_];
    // Up and not done (requests mode: budget left): a full one gets room with a reply.
    any_up = any_up || (c.down == 0 && !c.failed && HasBudget(c));
    if (!MaySendFor(c)) continue;
    if (c.down == 0) return &c;
    if (down == nullptr) down = &c;
  }
  return any_up ? nullptr : down;  // up ones all full: wait for a reply
}

void WorkerBase::CountSent(Client& cl, ConnIo& c, uint32_t cmd, size_t bytes, bool measured,
                           int64_t now, int64_t intended) {
  QueueFlush(c);
  ++cl.in_flight;
  ++in_flight_;
  ++stats_.sent_total;
  ++stats_.sent_by_command[cmd];
  if (!measured) return;
  last_measured_send_ns_ = now;
  ++stats_.measured_sent;
  interval_[cmd].bytes_out += bytes;
  if (open_loop_) {
    if (now < intended) [[unlikely]] ++stats_.sent_early;  // never, by the schedule's rules (tested)
    interval_[cmd].send_lag_ns.Record(now - intended);
    // A connection's gaps between sends, for the inter-arrival check. Under --schedule
    // per-thread that check is not judged (a wake-up's requests leave together): none kept.
    if (!thread_pacer_) {
      if (cl.last_send_ns != 0) stats_.send_gaps.Offer(now - cl.last_send_ns);
      cl.last_send_ns = now;
    }
  }
  if (opt_.requests > 0) {
    --cl.budget;
    --budget_left_;
  }
}

void WorkerBase::Complete(Client& cl, const InFlight& f, const ReplyView& r, int64_t now) {
  --cl.in_flight;
  // Over every reply, warm-up included, for the cross-check.
  if (r.applied_write) ++stats_.writes_applied;
  if (r.is_error) {
    ++stats_.error_replies_all[f.cmd];
  } else if (r.counts_get) {
    ++(r.positive ? stats_.get_hits_all : stats_.get_misses_all);
  }
  if (!f.measured) return;
  CommandStats& s = interval_[f.cmd];
  const int64_t service = now - f.sent_ns;
  const int64_t latency = now - f.intended_ns;  // = service in the closed loop
  s.latency_ns.Record(latency);
  stats_.latency_runs.Offer(latency);
  if (open_loop_) s.service_ns.Record(service);
  if (service == 0) ++s.zero_latency;
  ++s.ops;
  s.bytes_in += r.wire_bytes;
  measure_end_ns_ = now;
  if (opt_.samples_cap > 0) {  // --samples: raw samples, a uniform reservoir past the cap
    if (!stats_.samples) {
      stats_.samples = std::make_shared<SampleReservoir>(
          opt_.samples_cap, DeriveSeed(opt_.seed ^ 0x5a3b1e5ULL, thread_index_));
    }
    stats_.samples->Offer({now - measure_start_ns_, latency, f.cmd});
  }
  if (r.is_error) {
    ++s.errors;
    ErrorKind& kind = s.errors_by_prefix[std::string(r.error_kind)];
    if (kind.count++ == 0) {
      kind.example = r.error;
      kind.first_reply = stats_.commands[f.cmd].ops + s.ops;
    }
    NotOk(s, f.cmd, EndsUnknown(f.cmd, r), now);
    return;
  }
  if (opt_.commands[f.cmd].counts_hits) ++(r.positive ? s.hits : s.misses);
  if (outages_open_ != 0) [[unlikely]] OutageEnd(f.cmd, now);
}

// ---- Worker<Session>.

template <LoadSession S>
struct Worker<S>::Conn final : ConnIo {
  explicit Conn(SessionConfig config) : session(std::move(config)) {}
  S session;
};

template <LoadSession S>
Worker<S>::Worker(WorkerShared* shared, const std::vector<Request>* requests, int thread_index)
    : WorkerBase(shared, thread_index), requests_(*requests) {
  for (size_t i = 0; i < requests_.size(); ++i) {
    traits_[i] = {opt_.commands[i].counts_hits, requests_[i].partial_on_error()};
  }
}

template <LoadSession S>
Worker<S>::~Worker() = default;

template <LoadSession S>
typename Worker<S>::Conn& Worker<S>::conn(const Client& cl, int node) {
  return static_cast<Conn&>(*cl.conns[node]);
}

template <LoadSession S>
Status Worker<S>::OpenAll() {
  if (!reactor_->status().ok()) return reactor_->status();
  if (cluster_ && opt_.read_from_replicas) AddReplicaNodes();
  const int nodes = cluster_ ? static_cast<int>(map_.nodes().size()) : per_request_ ? opt_.pool_size() : 1;
  MakeClients();
  for (auto& cl : clients_) {
    for (int node = 0; node < nodes; ++node) {
      auto c = OpenConn(*cl, node);
      if (!c.ok()) return c.status();
    }
  }
  return Status::OK();
}

// What the session of a client's connection to `node` is told: its target's
// credentials, the peer's name, READONLY on a replica, `slots` for its requests.
template <LoadSession S>
SessionConfig Worker<S>::SessionFor(const Client& cl, int node, size_t slots) {
  const RedisTarget& target = TargetOf(cl, node);
  SessionConfig sc;
  sc.target = &target;
  sc.peer = cluster_ ? map_.nodes()[node].Address() : target.Display();
  sc.resp = opt_.resp;
  sc.read_only = static_cast<size_t>(node) < is_replica_.size() && is_replica_[node];
  sc.slots = slots;
  sc.setup_counts = &stats_.setup_commands;
  if (history_ != nullptr) {
    sc.value_head = history::kValueTagSize;
    sc.value_field = shared_->history_value_field;
  }
  return sc;
}

// Starts c's non-blocking connect to its node (its TLS session first, if any) and its
// set-up deadline; the caller then has the transport watch it (WatchNewConnection).
template <LoadSession S>
Status Worker<S>::Dial(Conn& c, int64_t now) {
  const RedisTarget& target = TargetOf(*c.client, c.node);
  const std::string& host = cluster_ ? map_.nodes()[c.node].host : target.host;
  const int port = cluster_ ? map_.nodes()[c.node].port : target.port;
  if (shared_->tls) {
    auto started = TlsSession::Start(shared_->tls, host);
    if (!started.ok()) return started.status().WithContext(target.Display());
    c.tls = std::move(*started);
  }
  c.dialed = &target;
  // The node a history names: again at each dial, since a Sentinel target's connection is
  // opened again to another primary.
  if (history_ != nullptr) c.history_node = history_->Intern(PeerAddress(c));
  auto fd = ConnectNode(target, host, port, opt_.connect_timeout_ms, false);
  if (!fd.ok()) return fd.status();
  c.fd = *fd;
  c.state = ConnIo::State::kConnecting;
  c.setup_deadline_ns = now + int64_t{opt_.connect_timeout_ms} * 1'000'000;
  next_deadline_ns_ = std::min(next_deadline_ns_, c.setup_deadline_ns);
  ++open_conns_;
  return Status::OK();
}

// A non-blocking connection of `cl` to `node`; OnConnected sets it up.
template <LoadSession S>
Result<typename Worker<S>::Conn*> Worker<S>::OpenConn(Client& cl, int node) {
  // --history: a process per slot, so no more than the window needs (pipeline 1: one
  // process, the connection's requests one client's operations).
  const size_t slots = std::bit_ceil(std::max<size_t>(depth_, history_ != nullptr ? 1 : 4));
  auto c = std::make_unique<Conn>(SessionFor(cl, node, slots));
  c->slot = static_cast<uint32_t>(conns_.size());
  c->node = node;
  c->client = &cl;
  c->ring.resize(slots);
  if (history_ != nullptr) c->history_procs = HistoryNewProcesses(slots);
  Status dialed = Dial(*c, NowNs());
  if (!dialed.ok()) return dialed;
  Conn* raw = c.get();
  conns_.push_back(std::move(c));
  flush_queue_.resize(conns_.size());
  if (cl.conns.size() <= static_cast<size_t>(node)) cl.conns.resize(node + 1, nullptr);
  cl.conns[node] = raw;
  Status s = WatchNewConnection(*raw);
  if (!s.ok()) return s;
  return raw;
}

// --cluster: every client gets a connection to `node` (a master a redirect named).
template <LoadSession S>
Status Worker<S>::EnsureNode(int node) {
  for (auto& cl : clients_) {
    if (cl->conns.size() > static_cast<size_t>(node) && cl->conns[node] != nullptr) continue;
    auto c = OpenConn(*cl, node);
    if (!c.ok()) return c.status();
  }
  return Status::OK();
}

template <LoadSession S>
void Worker<S>::Run() {
  Status s = PinCpus();
  if (s.ok()) s = EnterRealtime();
  if (s.ok()) s = OpenAll();
  if (!s.ok()) {
    failure_ = s;
    shared_->stop = true;
  }
  // Establish and set up every connection before the common start, each by its own
  // deadline (CheckTimeouts), the wait bounded by the earliest.
  epoll_event events[kMaxEvents];
  auto all_ready = [&] {
    for (auto& c : conns_) {
      if (c->state != ConnIo::State::kRunning) return false;
    }
    return true;
  };
  while (failure_.ok() && !shared_->stop && !all_ready()) {
    int64_t now = NowNs();
    if (now >= next_deadline_ns_) CheckTimeouts(now);
    if (!failure_.ok()) break;
    int n = reactor_->WaitNs(events, kMaxEvents, std::min(next_deadline_ns_ - now, kMaxWaitNs));
    now = NowNs();
    if (now >= next_deadline_ns_) CheckTimeouts(now);  // bytes after the deadline are late
    for (int i = 0; i < n; ++i) OnEvent(conn(events[i].data.u64), events[i].events, now);
    FlushQueued();
  }
  // The ring is set up before the common start, so that its cost does not stagger it.
  std::unique_ptr<Uring> ring;
  if (failure_.ok() && opt_.io == IoMode::kUring) {
    Result<std::unique_ptr<Uring>> u = Uring::Create(RingSockets());
    if (u.ok()) {
      ring = std::move(*u);
    } else {
      failure_ = u.status().WithContext("--io uring (--io epoll avoids it)");
      shared_->stop = true;
    }
  }
  shared_->ready->arrive_and_wait();
  if (failure_.ok() && ring) SwitchToUring(std::move(ring));
  if (failure_.ok()) Loop();
  if (uring_) stats_.wait_calls = uring_->enter_calls();
  if (history_ != nullptr) HistoryEndInFlight();
  for (auto& c : conns_) {
    if (c->state != ConnIo::State::kClosed) unanswered_ += Pending(*c);
    Close(*c);
  }
  if (measuring_) FinishMeasuredPhase();
}

// Closed loop: the measured phase starts when the loop sees the warm-up end. Open loop:
// exactly at the warm-up's scheduled end, so it holds the requests intended from then.
template <LoadSession S>
void Worker<S>::MaybeEnterMeasuredPhase(int64_t now) {
  if (measuring_ || now < warmup_end_ns_) return;
  EnterMeasuredPhase(open_loop_ ? warmup_end_ns_ : now);
  for (auto& c : clients_) Fill(*c, now);
  FlushQueued();
}

template <LoadSession S>
void Worker<S>::Loop() {
  started_ = true;
  int64_t start = NowNs();
  warmup_end_ns_ = start + static_cast<int64_t>(opt_.warmup_s * 1e9);
  if (open_loop_) StartPacers(start);
  if (opt_.warmup_s <= 0) EnterMeasuredPhase(start);
  CheckTimeouts(start);  // from here on no request's deadline is earlier than next_deadline_ns_
  for (auto& c : clients_) Fill(*c, start);
  FlushQueued();
  epoll_event events[kMaxEvents];
  int64_t next_tick = start + kTickNs;
  for (;;) {
    int64_t now = NowNs();
    MaybeEnterMeasuredPhase(now);
    if (!stopping_ && shared_->stop.load(std::memory_order_relaxed)) {
      stopping_ = true;
      drain_deadline_ns_ = now + int64_t{opt_.drain_timeout_ms} * 1'000'000;
    }
    if (now >= next_interval_ns_) RollInterval(now, /*last=*/false);
    if (now >= next_deadline_ns_) {  // a deadline or (--reconnect) a reopen's time
      if (now >= next_reopen_ns_) ReopenDue(now);
      CheckTimeouts(now);
    }
    if (now >= next_tick) {
      next_tick = now + kTickNs;
      if (!Busy()) break;
      ReleaseIdleBuffers();
    }
    if (stopping_ && now >= drain_deadline_ns_) break;
    if (follows_ && shared_->map_version.load(std::memory_order_relaxed) != map_version_seen_) [[unlikely]] {
      cluster_ ? AdoptMap() : AdoptPrimary();
    }
    if (open_conns_ == 0 && reopen_.empty()) break;
    // The next deadline bounds the wait: a request times out on time, whatever the tick.
    const int64_t wait_ns =
        std::min(open_loop_ ? WaitTimeoutNs(now) : kMaxWaitNs, next_deadline_ns_ - now);
    if (uring_) {
      const int64_t before = now;
      if (!WaitCompletions(wait_ns, &now)) break;
      if (spinning_ && completions_.empty()) NoteSpin(before, now);
    } else {
      int n = reactor_->WaitNs(events, kMaxEvents, wait_ns);
      ++stats_.wait_calls;
      if (n == 0 && !open_loop_) continue;
      const int64_t before = now;
      now = NowNs();
      if (spinning_ && n == 0) NoteSpin(before, now);
      if (now >= next_deadline_ns_) CheckTimeouts(now);  // replies after the deadline are late
      for (int i = 0; i < n; ++i) OnEvent(conn(events[i].data.u64), events[i].events, now);
    }
    if (open_loop_) SendDue(now);
    FlushQueued();
    if (Finished()) break;
  }
}

// Sends what is due on every connection whose send time has come.
template <LoadSession S>
void Worker<S>::SendDue(int64_t now) {
  MaybeEnterMeasuredPhase(now);
  if (thread_pacer_) return SendDueTogether(now);
  for (Client* c : TakeDue(now)) Fill(*c, now);
}

// --schedule per-thread: the requests due now, on the connection in turn (and the next
// with room when it fills); the next wake-up's go to the one after it.
template <LoadSession S>
void Worker<S>::SendDueTogether(int64_t now) {
  senders_full_ = false;
  Client* to = nullptr;
  while (ThreadMayStillSend(now)) {
    const int64_t at = thread_pacer_->Peek();
    if (at > now || (!measuring_ && at >= warmup_end_ns_)) break;
    if (to == nullptr || !MaySendFor(*to)) {
      to = NextSender();
      if (to == nullptr) {
        senders_full_ = true;
        return;
      }
    }
    SendOne(*to, now, thread_pacer_->Next());
  }
  if (to != nullptr) sender_ = static_cast<uint32_t>((to->index + 1) % clients_.size());
}

template <LoadSession S>
void Worker<S>::OnEvent(Conn& c, uint32_t events, int64_t now) {
  if (c.state == ConnIo::State::kClosed) return;
  if (c.state == ConnIo::State::kConnecting) {
    if (events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) OnConnected(c);
    return;
  }
  if (events & (EPOLLIN | EPOLLERR | EPOLLHUP)) {
    OnReadable(c);
    if (c.state == ConnIo::State::kClosed) return;
    Fill(*c.client, now);
  }
  if ((events & EPOLLOUT) || c.out.Readable() > 0) QueueFlush(c);
}

template <LoadSession S>
void Worker<S>::OnConnected(Conn& c) {
  Status s = FinishConnect(c.fd);
  if (!s.ok()) return Fail(c, s.WithContext(Peer(c)));
  WatchConnected(c);
  c.state = ConnIo::State::kSetup;
  if (c.tls) return Flush(c);  // the ClientHello; ReceiveTls starts the session
  StartSession(c);
}

template <LoadSession S>
void Worker<S>::StartSession(Conn& c) {
  Buffer setup;
  const bool ready = c.session.Start(&setup);
  if (c.out.Readable() > 0) setup.Append(c.out.View());
  std::swap(c.out, setup);
  if (ready) {
    Running(c);
  } else {
    c.in_setup = true;
    ++setups_;
  }
  Flush(c);
}

template <LoadSession S>
void Worker<S>::OnReadable(Conn& c) {
  const size_t n = ReadSome(c);
  if (n == 0) return;
  Receive(c, read_buf_.data(), n);
}

template <LoadSession S>
void Worker<S>::Receive(Conn& c, const char* p, size_t n) {
  c.received += n;
  if (!c.tls) return Deliver(c, p, n);
  ReceiveTls(c, p, n);
}

// Ciphertext in: the handshake's next step (then the session's set-up), or plaintext
// decrypted into read_buf_ (p may point there: the TLS session has copied it) and
// delivered. What the TLS session has to send back is queued.
template <LoadSession S>
void Worker<S>::ReceiveTls(Conn& c, const char* p, size_t n) {
  TlsSession& tls = *c.tls;
  tls.Feed(p, n);
  if (!tls.handshake_done()) {
    Result<bool> done = tls.Handshake();
    if (!done.ok()) return Fail(c, done.status().WithContext(Peer(c)));
    QueueFlush(c);
    if (!*done) return;
    StartSession(c);
    if (c.state == ConnIo::State::kClosed) return;
  }
  for (;;) {
    Result<size_t> got = tls.Read(read_buf_.data(), read_buf_.size());
    if (!got.ok()) return Fail(c, got.status().WithContext(Peer(c)));
    if (*got == 0) break;
    Deliver(c, read_buf_.data(), *got);
    if (c.state == ConnIo::State::kClosed) return;
  }
  if (tls.HasOutput()) QueueFlush(c);
}

template <LoadSession S>
void Worker<S>::Deliver(Conn& c, const char* p, size_t n) {
  if (history_ != nullptr) [[unlikely]] return DeliverRecorded(c, p, n);
  DeliverAs<false>(c, p, n);
}

template <LoadSession S>
void Worker<S>::DeliverRecorded(Conn& c, const char* p, size_t n) {
  DeliverAs<true>(c, p, n);
}

template <LoadSession S>
template <bool kHistory>
void Worker<S>::DeliverAs(Conn& c, const char* p, size_t left) {
  const int64_t now = NowNs();
  ReplyView r;
  while (left > 0) {
    size_t used = 0;
    const SessionEvent ev = c.session.Feed(p, left, &used, &c.out, &r);
    p += used;
    left -= used;
    switch (ev) {
      [[likely]] case SessionEvent::kReply:
        OnReply<kHistory>(c, r, now);
        break;
      case SessionEvent::kNeedMore: return;
      case SessionEvent::kReady:
        c.in_setup = false;
        --setups_;
        Running(c);
        break;
      case SessionEvent::kProtocolError: ++stats_.protocol_errors; [[fallthrough]];
      case SessionEvent::kFailed: return Fail(c, c.session.failure());
    }
    if (c.state == ConnIo::State::kClosed) return;
  }
}

template <LoadSession S>
template <bool kHistory>
void Worker<S>::OnReply(Conn& c, const ReplyView& r, int64_t now) {
  const InFlight f = c.ring[r.tag & (c.ring.size() - 1)];
  --in_flight_;
  if (r.is_error) [[unlikely]] {
    c.last_error = r.error;
    // A Sentinel target (an RW pool): the node is a replica now (the old primary back as
    // one; a Tarantool master made read-only).
    if (primary_target_ && (r.error.starts_with("READONLY") || r.error_kind.starts_with("ER_READONLY ("))) {
      shared_->refresh_wanted.store(true, std::memory_order_relaxed);
    }
  }
  if (f.cmd == kAskingCommand) [[unlikely]] return;  // its request follows on the same connection
  if (r.is_error && cluster_ && FollowRedirect(c, f, r.error)) return;
  Complete(*c.client, f, r, now);
  if constexpr (kHistory) HistoryReply(c, f, r, [&c] { return c.session.last_value(); }, now);
  if (r.closes) [[unlikely]] {
    Fail(c, Status::IoError("the server answered with Connection: close (" +
                            std::to_string(Pending(c)) +
                            " requests in flight); memstand keeps one connection per client "
                            "and does not reconnect"));
  }
}

// --cluster: sends a request again where a MOVED, ASK or TRYAGAIN reply points, keeping
// its times, so its latency covers the whole detour. False when it is not a
// redirection, or the request was redirected kMaxRedirects times: then the reply
// counts as an error.
template <LoadSession S>
bool Worker<S>::FollowRedirect(Conn& c, const InFlight& f, std::string_view error) {
  if (error.starts_with("CLUSTERDOWN")) {  // the engine reads the slot map again
    shared_->refresh_wanted.store(true, std::memory_order_relaxed);
    return false;
  }
  if (f.redirects >= kMaxRedirects) return false;
  int node = c.node;
  bool ask = false;
  if (error.starts_with("TRYAGAIN")) {
    ++stats_.cluster_tryagain;
  } else {
    std::optional<Redirect> r = ParseRedirect(error);
    if (!r) return false;
    node = map_.NodeIndex(r->host.empty() ? map_.nodes()[c.node].host : r->host, r->port);
    if (!EnsureNode(node).ok()) return false;
    ask = r->ask;
    if (ask) {
      ++stats_.cluster_ask;
    } else {
      NoteMoved(r->slot, node);
    }
  }
  Conn& to = conn(*c.client, node);
  if (to.state == ConnIo::State::kClosed) return false;
  Draw d;
  d.key = f.key;
  d.data = std::string_view(f.data, f.data_len);
  if (history_ != nullptr && history_op_[f.cmd] != history::Op::kRead) {
    d.data = HistoryStamp(f.process, d.data);  // the same value as its first send
  }
  uint64_t asking_tag = 0;
  Sent sent{};
  if (!to.session.AppendRedirected(requests_[f.cmd], d, ask, &to.out, &asking_tag, &sent)) return false;
  if (ask) {
    Put(to, asking_tag, {f.intended_ns, f.sent_ns, 0, nullptr, 0, kAskingCommand, false, 0, 0});
    ++stats_.setup_commands["asking"];
    ++in_flight_;
  }
  InFlight again = f;
  ++again.redirects;
  if (history_ != nullptr) again.process = HistoryMoveProcess(f.process);
  Put(to, sent.tag, again);
  ++in_flight_;
  ++stats_.sent_total;
  ++stats_.sent_by_command[f.cmd];
  QueueFlush(to);
  return true;
}

template <LoadSession S>
void Worker<S>::Fill(Client& cl, int64_t now) {
  if (cluster_ && WaitsForItsWindow(cl)) [[unlikely]] return;
  if (cl.waits) [[unlikely]] return;  // tested once, not per request
  while (cl.in_flight < depth_ && CanSend(cl, now)) {
    SendOne(cl, now, cl.pacer ? cl.pacer->Next() : now);
  }
  if (cl.pacer) Reschedule(cl);
}

template <LoadSession S>
void Worker<S>::SendOne(Client& cl, int64_t now, int64_t intended) {
  const uint32_t cmd = shared_->mix->AtInCycle(cl.mix_pos);
  if (++cl.mix_pos == shared_->mix->cycle_length()) cl.mix_pos = 0;
  const Request& req = requests_[cmd];
  Draw d;
  d.key = req.uses_key() ? cl.keys[cmd].Next() : 0;
  d.data = req.uses_data() ? shared_->values->Pick(cl.rng, d.key) : std::string_view();
  if (req.uses_seq()) {  // unique in the run: client g sends g, g + C, g + 2C, ...
    d.seq = cl.seq;
    cl.seq += static_cast<uint64_t>(opt_.connections());
  }
  d.rng = &cl.rng;
  Conn& c = Route(cl, cmd, d);
  // Open loop: a request intended in the warm-up but held back past its end stays out.
  const bool measured = measuring_ && intended >= measure_start_ns_;
  if (history_ != nullptr) [[unlikely]] return SendRecorded(cl, c, cmd, d, measured, now, intended);
  if (!direct_ && c.state == ConnIo::State::kClosed) [[unlikely]] return Unsent(cl, cmd, measured, now);
  Emit(cl, c, cmd, d, d.data, 0, measured, now, intended);
}

// --history: the operation's process, and a write's value stamped with its tag: in the
// request once written where it holds the value as it is (RESP, memcached, Tarantool), so the value is not
// copied, in line in SendOne (bench/README.md, "The history's cost"); else in a copy
// before (SendRecordedCopy). One that cannot be sent is recorded as failed.
template <LoadSession S>
void Worker<S>::SendRecorded(Client& cl, Conn& c, uint32_t cmd, const Draw& d, bool measured, int64_t now,
                             int64_t intended) {
  if constexpr (!S::kValueVerbatim) {
    return SendRecordedCopy(cl, c, cmd, d, measured, now, intended);
  } else if constexpr (S::kRecordedApart) {
    return SendStampedApart(cl, c, cmd, d, measured, now, intended);
  } else {
    return SendStamped(cl, c, cmd, d, measured, now, intended);
  }
}

template <LoadSession S>
void Worker<S>::SendStamped(Client& cl, Conn& c, uint32_t cmd, const Draw& d, bool measured, int64_t now,
                            int64_t intended) {
  if (!direct_ && c.state == ConnIo::State::kClosed) [[unlikely]] {
    return HistoryUnsent(cl, c.history_node, cmd, d.key, measured, now, intended, kNotSentKind);
  }
  const bool stamp = history_op_[cmd] != history::Op::kRead;
  const uint64_t slot = Emit(cl, c, cmd, d, d.data, 0, measured, now, intended, /*slot_process=*/true);
  if constexpr (S::kValueVerbatim) {  // (the others never get here: SendRecordedCopy)
    if (stamp) {
      HistoryStampAt(history_procs_[c.history_procs + slot], S::WrittenValue(requests_[cmd], &c.out, d.data.size()));
    }
  }
}

template <LoadSession S>
void Worker<S>::SendStampedApart(Client& cl, Conn& c, uint32_t cmd, Draw d, bool measured, int64_t now,
                                 int64_t intended) {
  SendStamped(cl, c, cmd, d, measured, now, intended);
}

template <LoadSession S>
void Worker<S>::SendRecordedCopy(Client& cl, Conn& c, uint32_t cmd, Draw d, bool measured, int64_t now,
                                 int64_t intended) {
  if (!direct_ && c.state == ConnIo::State::kClosed) {
    return HistoryUnsent(cl, c.history_node, cmd, d.key, measured, now, intended, kNotSentKind);
  }
  const std::string_view pooled = d.data;  // a redirect sends it again (stamped again)
  // Its slot's process, known before it is appended (its copy is stamped first): these
  // protocols have no redirects, so their rings never grow.
  const uint32_t process = c.history_procs + static_cast<uint32_t>(c.session.next_tag() & (c.ring.size() - 1));
  if (history_op_[cmd] != history::Op::kRead) d.data = HistoryStamp(process, d.data);
  Emit(cl, c, cmd, d, pooled, process, measured, now, intended);
}

template <LoadSession S>
uint64_t Worker<S>::Emit(Client& cl, Conn& c, uint32_t cmd, const Draw& d, std::string_view pooled,
                         uint32_t process, bool measured, int64_t now, int64_t intended, bool slot_process) {
  const Sent sent = c.session.Append(requests_[cmd], d, &c.out);
  const uint64_t slot = Put(c, sent.tag,
                            {intended, now, d.key, pooled.data(), static_cast<uint32_t>(pooled.size()),
                             static_cast<uint16_t>(cmd), measured, 0, process},
                            slot_process);
  CountSent(cl, c, cmd, sent.bytes, measured, now, intended);
  return slot;
}

// --balance per-request: the client's next member whose connection runs (round
// robin); else one being set up (the request waits in its buffer); all closed: one of
// them (an open-loop request then fails unsent).
template <LoadSession S>
typename Worker<S>::Conn& Worker<S>::NextMember(Client& cl) {
  const size_t members = cl.conns.size();
  for (size_t i = 0; i < members; ++i) {
    Conn& c = conn(cl, static_cast<int>(cl.next_replica++ % members));
    if (c.state == ConnIo::State::kRunning) return c;
  }
  for (size_t i = 0; i < members; ++i) {  // none runs: one being set up takes it
    Conn& c = conn(cl, static_cast<int>(i));
    if (c.state != ConnIo::State::kClosed) return c;
  }
  return conn(cl, 0);
}

// The connection a request goes to: the only one, (--balance per-request) the next
// member's, or (--cluster) its key slot's. Closed, the request fails unsent (SendOne),
// but with direct_ it never is.
template <LoadSession S>
typename Worker<S>::Conn& Worker<S>::Route(Client& cl, uint32_t cmd, const Draw& d) {
  if (direct_) [[likely]] return conn(cl, 0);
  if (per_request_) return NextMember(cl);
  return cluster_ ? SlotOwner(cl, cmd, d) : conn(cl, 0);
}

// --cluster: the connection to the master of the request's key slot as this worker last
// learned it (--read-from-replicas: to one of its replicas for a read).
template <LoadSession S>
typename Worker<S>::Conn& Worker<S>::SlotOwner(Client& cl, uint32_t cmd, const Draw& d) {
  const int slot = S::Slot(requests_[cmd], d);
  int node = slot < 0 ? 0 : map_.NodeOf(slot);
  if (node < 0) node = 0;  // an uncovered slot: the server says CLUSTERDOWN
  if (opt_.read_from_replicas && opt_.commands[cmd].counts_hits &&
      static_cast<size_t>(node) < replicas_of_.size() && !replicas_of_[node].empty()) {
    const auto& replicas = replicas_of_[node];
    node = replicas[cl.next_replica++ % replicas.size()];
  }
  return conn(cl, node);
}

template <LoadSession S>
uint64_t Worker<S>::Put(Conn& c, uint64_t tag, InFlight f, bool slot_process) {
  if (c.session.in_flight() > c.ring.size()) [[unlikely]] Grow(c);
  const uint64_t slot = tag & (c.ring.size() - 1);
  if (slot_process) f.process = c.history_procs + static_cast<uint32_t>(slot);
  c.ring[slot] = f;
  return slot;
}

// Only redirects and ASKING put more in flight than a client's window: the slots double.
template <LoadSession S>
void Worker<S>::Grow(Conn& c) {
  std::vector<InFlight> bigger(c.ring.size() * 2);
  const uint64_t mask = c.ring.size() - 1;
  c.session.ForEachInFlight([&](uint64_t t) { bigger[t & (bigger.size() - 1)] = c.ring[t & mask]; });
  c.ring.swap(bigger);
  if (history_ != nullptr) c.history_procs = HistoryNewProcesses(c.ring.size());
}

template <LoadSession S>
uint64_t Worker<S>::Pending(const ConnIo& io) const {
  const Conn& c = static_cast<const Conn&>(io);
  return c.session.in_flight() + c.session.setup_in_flight();
}

template <LoadSession S>
void Worker<S>::Fail(ConnIo& c, const Status& why) {
  if (opt_.reconnect.enabled && started_) return Lose(static_cast<Conn&>(c), why);
  CountFailure(c, why, static_cast<Conn&>(c).session.in_flight());
}

template <LoadSession S>
void Worker<S>::Lose(Conn& c, const Status& why) {
  const int64_t now = NowNs();
  const bool attempt = c.reopening;  // not up since its last loss: this attempt failed
  Drop(c, now);
  if (attempt) {
    ++stats_.faults.reconnect_failures;
  } else {
    NoteLoss(c, why);
  }
  ScheduleReopen(c, why, now);
  // Its requests ended with no reply to send the next on: a client that may go on
  // without this connection (--balance per-request) sends now.
  if (c.client->down <= c.client->may_be_down && !c.client->failed) Fill(*c.client, now);
}

template <LoadSession S>
void Worker<S>::Drop(Conn& c, int64_t now) {
  const bool reached = c.state != ConnIo::State::kConnecting;
  const uint64_t mask = c.ring.size() - 1;
  c.session.ForEachInFlight([&](uint64_t t) {
    const InFlight& f = c.ring[t & mask];
    --in_flight_;
    if (f.cmd == kAskingCommand) return;
    CompleteLost(*c.client, f, reached, now);
    if (history_ != nullptr) {
      HistoryNoReply(c.history_node, f, LostEndsUnknown(f.cmd, reached), kLostKind, now);
    }
  });
  if (c.in_setup) {
    c.in_setup = false;
    --setups_;
  }
  Close(c);
  c.session.Reset();
  c.out.Clear();
  c.sending.Clear();
  c.tls_out.Clear();
  c.tls.reset();
  c.received = 0;
  c.want_write = false;
}

// --history, the run over: what is still in flight (the drain ran out, or a connection
// failed without --reconnect) ends unknown; the last records go to the log.
template <LoadSession S>
void Worker<S>::HistoryEndInFlight() {
  const int64_t now = NowNs();
  for (auto& io : conns_) {
    Conn& c = static_cast<Conn&>(*io);
    const uint64_t mask = c.ring.size() - 1;
    c.session.ForEachInFlight([&](uint64_t t) {
      const InFlight& f = c.ring[t & mask];
      if (f.cmd != kAskingCommand) HistoryNoReply(c.history_node, f, true, kNoReplyKind, now);
    });
  }
  HistoryHandLast();
}

template <LoadSession S>
void Worker<S>::ReopenDue(int64_t now) {
  std::vector<ConnIo*> due;
  size_t keep = 0;
  next_reopen_ns_ = INT64_MAX;
  for (ConnIo* c : reopen_) {
    if (c->reopen_at_ns <= now) {
      due.push_back(c);
    } else {
      reopen_[keep++] = c;
      next_reopen_ns_ = std::min(next_reopen_ns_, c->reopen_at_ns);
    }
  }
  reopen_.resize(keep);
  for (ConnIo* c : due) Reopen(conn(c->slot), now);
}

// The next attempt: a pool's client tries the next member (the lost member's clients
// spread over the others); a cluster connection its node; else the same target.
template <LoadSession S>
void Worker<S>::Reopen(Conn& c, int64_t now) {
  c.waiting = false;
  if (stopping_) return;  // the run is ending: the connection stays closed
  Client& cl = *c.client;
  c.reopening = true;
  ++c.attempts;
  const int members = opt_.pool_size();
  const bool move = !cluster_ && !per_request_ && members > 1;
  if (move) {
    cl.pool_index = (cl.pool_index + 1 + static_cast<int>(cl.index % (members - 1))) % members;
    cl.target = &opt_.pool_target(cl.pool_index);
  }
  // A new member, or a Sentinel target's (an RW pool's) new primary: a session of its own (its
  // credentials, its peer name).
  if (move || (primary_target_ && c.dialed != cl.target)) {
    std::destroy_at(&c.session);
    std::construct_at(&c.session, SessionFor(cl, c.node, c.ring.size()));
  }
  Status s = Dial(c, now);  // names the node a record names again (a new member or primary)
  if (!s.ok()) {
    ++stats_.faults.reconnect_failures;
    return ScheduleReopen(c, s, now);
  }
  s = WatchNewConnection(c);
  if (!s.ok()) Lose(c, s);
}

template <LoadSession S>
void Worker<S>::AdoptMap() {
  SlotMap fresh;
  {
    std::lock_guard<std::mutex> lock(shared_->map_mu);
    fresh = shared_->latest_map;
    map_version_seen_ = shared_->map_version.load();
  }
  moved_since_map_ = 0;
  ++stats_.cluster_map_updates;
  std::vector<bool> serving;
  for (int slot = 0; slot < kClusterSlots; ++slot) {
    const int n = fresh.NodeOf(slot);
    if (n < 0) continue;
    const int mine = map_.NodeIndex(fresh.nodes()[n].host, fresh.nodes()[n].port);
    map_.Assign(slot, mine);
    if (serving.size() <= static_cast<size_t>(mine)) serving.resize(mine + 1, false);
    serving[mine] = true;
  }
  for (size_t node = 0; node < serving.size(); ++node) {
    if (!serving[node]) continue;
    Status s = EnsureNode(static_cast<int>(node));
    if (!s.ok()) {  // a new master that cannot be reached now: the next loss asks again
      shared_->refresh_wanted.store(true, std::memory_order_relaxed);
    }
  }
  for (auto& io : conns_) {
    Conn& c = conn(io->slot);
    const bool replica = static_cast<size_t>(c.node) < is_replica_.size() && is_replica_[c.node];
    const bool serves = static_cast<size_t>(c.node) < serving.size() && serving[c.node];
    if (!replica && !serves && c.down) GiveUp(c);
  }
}

// A connection to a node that no longer serves slots: its attempts stop, what it had
// queued ends without a reply, and its client no longer waits for it.
template <LoadSession S>
void Worker<S>::GiveUp(Conn& c) {
  if (c.waiting) {
    reopen_.erase(std::find(reopen_.begin(), reopen_.end(), &c));
    c.waiting = false;
  }
  if (c.state != ConnIo::State::kClosed) Drop(c, NowNs());
  c.reopening = false;
  SetDown(c, false);
  Fill(*c.client, NowNs());
}

template <LoadSession S>
void Worker<S>::Running(Conn& c) {
  c.state = ConnIo::State::kRunning;
  if (!c.reopening) return;
  NoteUp(c);
  Fill(*c.client, NowNs());
}

// Fails every connection past a deadline: its set-up's (--connect-timeout) until it
// runs, then its oldest request's (--request-timeout). next_deadline_ns_ becomes the
// earliest deadline left, or the next reopen if earlier; a request sent from now on has
// none earlier than now + limit.
template <LoadSession S>
void Worker<S>::CheckTimeouts(int64_t now) {
  const int64_t limit = int64_t{opt_.request_timeout_ms} * 1'000'000;
  int64_t next = now + limit;
  for (auto& io : conns_) {
    Conn& c = conn(io->slot);
    if (c.state == ConnIo::State::kClosed) continue;
    const bool setup = c.state != ConnIo::State::kRunning;
    const int64_t request = c.session.in_flight() == 0 ? INT64_MAX : OldestSent(c) + limit;
    if (setup && now >= c.setup_deadline_ns) {
      Fail(c, Status::Timeout("connection setup to " + Peer(c) +
                              " did not finish within --connect-timeout " +
                              std::to_string(opt_.connect_timeout_ms) + " ms"));
    } else if (!setup && now >= request) {
      Fail(c, Status::Timeout("no reply within --request-timeout " +
                              std::to_string(opt_.request_timeout_ms) + " ms (" +
                              std::to_string(Pending(c)) + " requests in flight)"));
    } else {
      if (request > now) next = std::min(next, request);  // in set-up: once past, not again
      if (setup) next = std::min(next, c.setup_deadline_ns);
    }
  }
  next_deadline_ns_ = std::min(next, next_reopen_ns_);
}

// When the request sent first of those in flight on c was sent: tags grow in the order
// requests are sent.
template <LoadSession S>
int64_t Worker<S>::OldestSent(const Conn& c) const {
  uint64_t oldest = UINT64_MAX;
  c.session.ForEachInFlight([&](uint64_t t) { oldest = std::min(oldest, t); });
  return c.ring[oldest & (c.ring.size() - 1)].sent_ns;
}

template <LoadSession S>
bool Worker<S>::WaitCompletions(int64_t timeout_ns, int64_t* now_out) {
  Status s = uring_->Wait(timeout_ns, &completions_);
  if (!s.ok()) {
    if (failure_.ok()) failure_ = s;
    shared_->stop = true;
    return false;
  }
  const int64_t now = NowNs();
  *now_out = now;
  if (now >= next_deadline_ns_) CheckTimeouts(now);  // replies after the deadline are late
  for (const Uring::Completion& e : completions_) {
    ConnIo* io = TokenConn(e.token);
    if (io == nullptr) continue;  // cancelled or late
    Conn& c = static_cast<Conn&>(*io);
    if (e.kind == Uring::Completion::Kind::kSend) {
      OnSent(c, e.result);
    } else if (e.kind == Uring::Completion::Kind::kRecv) [[likely]] {
      OnReceived(c, e, now);
    } else if (ConnectPolled(c, e.result)) {  // kWritable: a connection opened mid-run
      OnConnected(c);
    }
  }
  return true;
}

template <LoadSession S>
void Worker<S>::OnReceived(Conn& c, const Uring::Completion& e, int64_t now) {
  if (e.result == -ENOBUFS) {  // every receive buffer was taken: the multishot ended
    ++stats_.receive_buffer_waits;
    return ArmRecv(c);
  }
  if (e.result <= 0) return FailRead(c, -e.result);
  ++stats_.read_calls;
  stats_.socket_bytes_read += static_cast<uint64_t>(e.result);
  Receive(c, e.data, static_cast<size_t>(e.result));
  if (c.state == ConnIo::State::kClosed) return;
  if (!e.more) ArmRecv(c);
  Fill(*c.client, now);
  if (c.out.Readable() > 0) QueueFlush(c);
}

template class Worker<RespSession>;
template class Worker<MemcacheSession>;
template class Worker<EtcdSession>;
template class Worker<IprotoSession>;

}  // namespace memstand

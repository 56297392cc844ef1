#include "load/worker.h"

#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

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
#include "load/worker_conn.h"
#include "proto/iproto/greeting.h"
#include "proto/resp/resp.h"
#include "util/rng.h"
#include "workload/key_pattern.h"

namespace memstand {

namespace {

constexpr uint16_t kSetupCommand = UINT16_MAX;      // HELLO, AUTH, SELECT
constexpr uint16_t kAskingCommand = UINT16_MAX - 1;  // ASKING before an ASK redirect
constexpr uint8_t kMaxRedirects = 5;  // MOVED/ASK/TRYAGAIN per request, then an error
constexpr size_t kReadChunk = 256 * 1024;
constexpr int kMaxEvents = 512;
constexpr int64_t kTickNs = 100'000'000;  // whether work is left: checked every 100 ms
constexpr int64_t kSecondNs = 1'000'000'000;
constexpr int64_t kMaxWaitNs = 20'000'000;  // the loop's checks run at least this often
// Open loop, duration mode: a request intended before the end may still leave this
// long after it (a late timer or a backlog); what is unsent then is counted instead.
constexpr int64_t kLateSendGraceNs = 1'000'000'000;

void ThreadCpu(double* user, double* sys) {
  rusage ru;
  getrusage(RUSAGE_THREAD, &ru);
  *user = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
  *sys = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

std::string ErrorPrefix(const std::string& text) {
  size_t end = text.find_first_of(" \r\n");
  return text.substr(0, std::min<size_t>(end == std::string::npos ? text.size() : end, 32));
}

}  // namespace

Worker::Worker(WorkerShared* shared, int thread_index)
    : shared_(shared),
      opt_(*shared->options),
      thread_index_(thread_index),
      map_(shared->cluster_map.value_or(SlotMap())),
      cluster_(shared->cluster_map.has_value()),
      // --cluster: --pipeline per master connection, as memtier (each of its cluster
      // connections has the pipeline's depth) and redis-benchmark --cluster (a client
      // per master) count it; keys spread the client's requests over the masters.
      depth_(static_cast<size_t>(shared->options->pipeline) *
             (cluster_ ? std::max<size_t>(1, map_.nodes().size()) : 1)),
      proto_(shared->options->protocol),
      stats_(shared->options->commands.size()),
      interval_(shared->options->commands.size()),
      read_buf_(kReadChunk),
      open_loop_(shared->options->rate > 0),
      reactor_(std::make_unique<ReactorHolder>()) {}

Worker::~Worker() {
  for (auto& c : conns_) Close(*c);
}

Status Worker::OpenAll() {
  if (!reactor_->status().ok()) return reactor_->status();
  const uint64_t total = static_cast<uint64_t>(opt_.connections());
  if (cluster_ && opt_.read_from_replicas) AddReplicaNodes();
  const int nodes = cluster_ ? static_cast<int>(map_.nodes().size()) : 1;
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
    cl->target = &opt_.pool_target(PoolIndex(opt_.balance, opt_.seed, global, opt_.pool_size()));
    if (opt_.requests > 0) {
      cl->budget = opt_.requests / total + (global < opt_.requests % total ? 1 : 0);
      budget_left_ += cl->budget;
    }
    clients_.push_back(std::move(cl));
    for (int node = 0; node < nodes; ++node) {
      auto c = OpenConn(*clients_.back(), node);
      if (!c.ok()) return c.status();
    }
  }
  return Status::OK();
}

// --read-from-replicas: every master's replicas become nodes (without slots) that
// every client connects to.
void Worker::AddReplicaNodes() {
  const size_t masters = map_.nodes().size();
  replicas_of_.resize(masters);
  for (size_t m = 0; m < masters; ++m) {
    const auto replicas = map_.nodes()[m].replicas;
    for (const auto& [host, port] : replicas) replicas_of_[m].push_back(map_.NodeIndex(host, port));
  }
  is_replica_.assign(map_.nodes().size(), false);
  for (size_t i = masters; i < is_replica_.size(); ++i) is_replica_[i] = true;
}

// A non-blocking connection of `cl` to `node`; OnConnected sets it up.
Result<Worker::Conn*> Worker::OpenConn(Client& cl, int node) {
  const std::string& host = cluster_ ? map_.nodes()[node].host : cl.target->host;
  const int port = cluster_ ? map_.nodes()[node].port : cl.target->port;
  std::unique_ptr<TlsSession> tls;
  if (shared_->tls) {
    auto started = TlsSession::Start(shared_->tls, host);
    if (!started.ok()) return started.status().WithContext(cl.target->Display());
    tls = std::move(*started);
  }
  auto fd = ConnectNode(*cl.target, host, port, opt_.connect_timeout_ms, false);
  if (!fd.ok()) return fd.status();
  auto c = std::make_unique<Conn>();
  c->fd = *fd;
  c->slot = static_cast<uint32_t>(conns_.size());
  c->node = node;
  c->client = &cl;
  c->tls = std::move(tls);
  c->ring.resize(std::bit_ceil(static_cast<size_t>(std::max<size_t>(depth_, 4))));
  c->setup_deadline_ns = NowNs() + int64_t{opt_.connect_timeout_ms} * 1'000'000;
  next_deadline_ns_ = std::min(next_deadline_ns_, c->setup_deadline_ns);
  ++open_conns_;
  Conn* raw = c.get();
  conns_.push_back(std::move(c));
  if (cl.conns.size() <= static_cast<size_t>(node)) cl.conns.resize(node + 1, nullptr);
  cl.conns[node] = raw;
  Status s = reactor_->Add(raw->fd, Reactor::kWritable, raw->slot);
  if (!s.ok()) return s;
  return raw;
}

// --cluster: every client gets a connection to `node` (a master a redirect named).
Status Worker::EnsureNode(int node) {
  for (auto& cl : clients_) {
    if (cl->conns.size() > static_cast<size_t>(node) && cl->conns[node] != nullptr) continue;
    auto c = OpenConn(*cl, node);
    if (!c.ok()) return c.status();
  }
  return Status::OK();
}

void Worker::Run() {
  Status s = OpenAll();
  if (!s.ok()) {
    failure_ = s;
    shared_->stop = true;
  }
  // Establish and set up every connection before the common start, each by its own
  // deadline (CheckTimeouts), the wait bounded by the earliest.
  epoll_event events[kMaxEvents];
  auto all_ready = [&] {
    for (auto& c : conns_) {
      if (c->state != Conn::State::kRunning) return false;
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
    for (int i = 0; i < n; ++i) OnEvent(*conns_[events[i].data.u64], events[i].events, now);
    FlushQueued();
  }
  // The ring is set up before the common start, so that its cost does not stagger it.
  std::unique_ptr<Uring> ring;
  if (failure_.ok() && opt_.io == IoMode::kUring) {
    Result<std::unique_ptr<Uring>> u = Uring::Create(conns_.size());
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
  for (auto& c : conns_) {
    unanswered_ += c->count;
    Close(*c);
  }
  if (measuring_) FinishMeasuredPhase();
}

void Worker::EnterMeasuredPhase(int64_t now) {
  measuring_ = true;
  measure_start_ns_ = now;
  measure_end_ns_ = now;
  if (opt_.requests == 0) {
    measure_end_deadline_ns_ = now + static_cast<int64_t>(opt_.duration_s * 1e9);
  }
  next_interval_ns_ = now + kSecondNs;
  ThreadCpu(&cpu_user_start_, &cpu_sys_start_);
}

void Worker::FinishMeasuredPhase() {
  if (measure_done_) return;
  measure_done_ = true;
  RollInterval(NowNs(), /*last=*/true);
  if (open_loop_ && opt_.requests == 0 && !stopping_) {
    for (const auto& c : clients_) {
      if (!c->pacer) continue;
      const int64_t left_ns = measure_end_deadline_ns_ - c->pacer->Peek();
      if (left_ns > 0) {
        stats_.unsent_intended +=
            1 + static_cast<uint64_t>(left_ns * 1e-9 * opt_.rate / opt_.connections());
      }
    }
  }
  double user, sys;
  ThreadCpu(&user, &sys);
  stats_.cpu_user_s = user - cpu_user_start_;
  stats_.cpu_sys_s = sys - cpu_sys_start_;
}

// Closes the current second (and any seconds that passed without a check, as empty
// ones): folds it into the totals and hands it to the collector.
void Worker::RollInterval(int64_t now, bool last) {
  do {
    IntervalStats done;
    done.index = interval_index_++;
    done.commands.resize(interval_.size());
    for (size_t i = 0; i < interval_.size(); ++i) {
      stats_.commands[i].Add(interval_[i]);
      done.commands[i] = interval_[i];
      interval_[i].Reset();
    }
    if (shared_->intervals != nullptr) shared_->intervals->Publish(std::move(done));
    next_interval_ns_ += kSecondNs;
  } while (!last && now >= next_interval_ns_);
}

// Whether the client has requests left to send in this phase (now or later).
bool Worker::MayStillSend(const Client& c, int64_t now) const {
  if (!started_ || stopping_ || c.failed) return false;
  if (!measuring_) return true;  // warm-up
  if (opt_.requests > 0) return c.budget > 0;
  // Open loop: requests intended before the end, sent until kLateSendGraceNs after
  // it. What a late schedule leaves unsent then is counted (FinishMeasuredPhase).
  if (c.pacer) {
    return c.pacer->Peek() < measure_end_deadline_ns_ &&
           now < measure_end_deadline_ns_ + kLateSendGraceNs;
  }
  return now < measure_end_deadline_ns_;
}

// Whether the client may send its next request now. Open loop: once it is due, and
// a request intended after the warm-up waits for the measured phase to begin.
bool Worker::CanSend(const Client& c, int64_t now) const {
  if (!MayStillSend(c, now)) return false;
  if (!c.pacer) return true;
  const int64_t at = c.pacer->Peek();
  return at <= now && (measuring_ || at < warmup_end_ns_);
}

bool Worker::Busy() const {
  const int64_t now = NowNs();
  for (const auto& c : clients_) {
    if (MayStillSend(*c, now)) return true;
  }
  for (const auto& c : conns_) {
    if (c->state != Conn::State::kClosed && c->count > 0) return true;
  }
  return false;
}

bool Worker::Finished() const {
  return measuring_ && opt_.requests > 0 && budget_left_ == 0 && in_flight_ == 0;
}

void Worker::StartPacers(int64_t start) {
  // Connection g's schedule is offset by g / rate, so with constant arrivals the
  // connections interleave into one even stream at the total rate.
  const double per_conn = opt_.rate / opt_.connections();
  for (auto& c : clients_) {
    const uint64_t global = static_cast<uint64_t>(thread_index_) * opt_.clients + c->index;
    PacerOptions po;
    po.rate_per_s = per_conn;
    po.arrival = opt_.poisson ? PacerOptions::Arrival::kPoisson : PacerOptions::Arrival::kConstant;
    po.seed = DeriveSeed(opt_.seed ^ 0x9ace5ULL, global);
    c->pacer.emplace(po, start + static_cast<int64_t>(global * 1e9 / opt_.rate));
  }
  prctl(PR_SET_TIMERSLACK, 1000UL);  // wake within ~1 µs of a send time, not 50 µs
}

// Closed loop: the measured phase starts when the loop sees the warm-up end. Open loop:
// exactly at the warm-up's scheduled end, so it holds the requests intended from then.
void Worker::MaybeEnterMeasuredPhase(int64_t now) {
  if (measuring_ || now < warmup_end_ns_) return;
  EnterMeasuredPhase(open_loop_ ? warmup_end_ns_ : now);
  for (auto& c : clients_) Fill(*c, now);
  FlushQueued();
}

void Worker::Loop() {
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
    if (now >= next_deadline_ns_) CheckTimeouts(now);
    if (now >= next_tick) {
      next_tick = now + kTickNs;
      if (!Busy()) break;
    }
    if (stopping_ && now >= drain_deadline_ns_) break;
    if (open_conns_ == 0) break;
    // The next deadline bounds the wait: a request times out on time, whatever the tick.
    const int64_t wait_ns =
        std::min(open_loop_ ? WaitTimeoutNs(now) : kMaxWaitNs, next_deadline_ns_ - now);
    if (uring_) {
      if (!WaitCompletions(wait_ns, &now)) break;
    } else {
      int n = reactor_->WaitNs(events, kMaxEvents, wait_ns);
      ++stats_.wait_calls;
      if (n == 0 && !open_loop_) continue;
      now = NowNs();
      if (now >= next_deadline_ns_) CheckTimeouts(now);  // replies after the deadline are late
      for (int i = 0; i < n; ++i) OnEvent(*conns_[events[i].data.u64], events[i].events, now);
    }
    if (open_loop_) SendDue(now);
    FlushQueued();
    if (Finished()) break;
  }
}

// Until the earliest live send time, at most kMaxWaitNs.
int64_t Worker::WaitTimeoutNs(int64_t now) {
  while (!due_.empty() && clients_[due_.top().second]->due_queued != due_.top().first) due_.pop();
  if (due_.empty()) return kMaxWaitNs;
  return std::clamp<int64_t>(due_.top().first - now, 0, kMaxWaitNs);
}

// Sends what is due on every connection whose send time has come. The due entries are
// taken out first, so an entry pushed back for a time already past waits for the next
// wake-up instead of looping here.
void Worker::SendDue(int64_t now) {
  MaybeEnterMeasuredPhase(now);
  due_now_.clear();
  while (!due_.empty() && due_.top().first <= now) {
    auto [at, slot] = due_.top();
    due_.pop();
    Client& c = *clients_[slot];
    if (c.due_queued != at) continue;  // stale: the client sent or rescheduled since
    c.due_queued = -1;
    due_now_.push_back(&c);
  }
  for (Client* c : due_now_) Fill(*c, now);
}

// Open loop: queues the client's next send time unless the in-flight cap holds it
// (a reply will call Fill) or it has nothing more to send.
void Worker::Reschedule(Client& c) {
  const int64_t at = c.pacer->Peek();
  if (c.in_flight >= depth_ || !MayStillSend(c, at) ||
      at == c.due_queued) {
    return;
  }
  c.due_queued = at;
  due_.push({at, c.index});
}

void Worker::OnEvent(Conn& c, uint32_t events, int64_t now) {
  if (c.state == Conn::State::kClosed) return;
  if (c.state == Conn::State::kConnecting) {
    if (events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) OnConnected(c);
    return;
  }
  if (events & (EPOLLIN | EPOLLERR | EPOLLHUP)) {
    OnReadable(c);
    if (c.state == Conn::State::kClosed) return;
    Fill(*c.client, now);
  }
  if ((events & EPOLLOUT) || c.out.Readable() > 0) QueueFlush(c);
}

void Worker::OnConnected(Conn& c) {
  Status s = FinishConnect(c.fd);
  if (!s.ok()) return Fail(c, s.WithContext(Peer(c)));
  reactor_->Modify(c.fd, Reactor::kReadable, c.slot);
  c.state = Conn::State::kSetup;
  if (c.tls) return Flush(c);  // the ClientHello; ReceiveTls starts the session
  StartSession(c);
}

void Worker::StartSession(Conn& c) {
  if (proto_ != Protocol::kResp) return StartSessionOther(c);
  // HELLO (with AUTH inside) for RESP3; else AUTH, then SELECT. Written ahead of
  // requests a redirect buffered while the connection was being made.
  Buffer setup;
  std::vector<InFlight> setup_flights;
  auto send = [&](std::initializer_list<std::string_view> args) {
    resp::AppendCommand(&setup, std::vector<std::string_view>(args));
    const int64_t sent = NowNs();
    setup_flights.push_back({sent, sent, 0, nullptr, 0, kSetupCommand, false, 0});
    ++in_flight_;
    std::string name(*args.begin());
    for (auto& ch : name) ch = static_cast<char>(std::tolower(ch));
    c.setup_names.push_back(name);
    ++stats_.setup_commands[name];
  };
  const RedisTarget& t = *c.client->target;
  std::string resp_version = std::to_string(opt_.resp);
  if (opt_.resp == 3) {
    if (t.password.empty()) {
      send({"HELLO", resp_version});
    } else {
      send({"HELLO", resp_version, "AUTH", t.user.empty() ? "default" : t.user, t.password});
    }
  } else if (!t.password.empty()) {
    if (t.user.empty()) {
      send({"AUTH", t.password});
    } else {
      send({"AUTH", t.user, t.password});
    }
  }
  if (t.db != 0) send({"SELECT", std::to_string(t.db)});
  if (static_cast<size_t>(c.node) < is_replica_.size() && is_replica_[c.node]) send({"READONLY"});
  for (auto it = setup_flights.rbegin(); it != setup_flights.rend(); ++it) c.PushFront(*it);
  if (c.out.Readable() > 0) setup.Append(c.out.View());
  std::swap(c.out, setup);
  if (c.setup_names.empty()) c.state = Conn::State::kRunning;
  Flush(c);
}

void Worker::Deliver(Conn& c, const char* p, size_t n) {
  if (proto_ == Protocol::kResp) return OnBytes(c, p, n);
  OnBytesOther(c, p, n);
}

void Worker::OnBytes(Conn& c, const char* p, size_t left) {
  int64_t now = NowNs();
  while (left > 0) {
    size_t used = 0;
    resp::Reader::Event ev = c.reader.Feed(p, left, &used);
    p += used;
    left -= used;
    if (ev == resp::Reader::Event::kNeedMore) break;
    if (ev == resp::Reader::Event::kProtocolError) {
      ++stats_.protocol_errors;
      return Fail(c, Status::Protocol("malformed reply from " + Peer(c) + ": " +
                                      c.reader.error()));
    }
    HandleReply(c, now);
    if (c.state == Conn::State::kClosed) return;
  }
}

void Worker::HandleReply(Conn& c, int64_t now) {
  const resp::Summary& r = c.reader.summary();
  if (r.type == resp::Type::kPush) return;  // RESP3 out-of-band: answers no request
  if (c.count == 0) {
    ++stats_.protocol_errors;
    std::string said = r.is_error ? ": '" + r.error + "'" : "";
    return Fail(c, Status::Protocol("a reply arrived with no request in flight" + said));
  }
  if (r.is_error) c.last_error = r.error;
  InFlight f = c.Pop();
  --in_flight_;
  if (f.cmd == kSetupCommand) {
    std::string name = c.setup_names.front();
    c.setup_names.erase(c.setup_names.begin());
    if (r.is_error) {
      return Fail(c, Status::Server(name + " failed: " + r.error + " (" + Peer(c) + ")"));
    }
    if (c.setup_names.empty()) c.state = Conn::State::kRunning;
    return;
  }
  if (f.cmd == kAskingCommand) return;  // its request follows on the same connection
  if (r.is_error && cluster_ && FollowRedirect(c, f, r.error)) return;
  --c.client->in_flight;
  if (!f.measured) return;
  CommandStats& s = interval_[f.cmd];
  const int64_t service = now - f.sent_ns;
  const int64_t latency = now - f.intended_ns;  // = service in the closed loop
  s.latency_ns.Record(latency);
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
    ErrorKind& kind = s.errors_by_prefix[ErrorPrefix(r.error)];
    if (kind.count++ == 0) {
      kind.example = r.error;
      kind.first_reply = stats_.commands[f.cmd].ops + s.ops;
    }
  } else if (opt_.commands[f.cmd].counts_hits) {
    ++(r.is_null ? s.misses : s.hits);
  }
}

void Worker::Fill(Client& cl, int64_t now) {
  while (cl.in_flight < depth_ && CanSend(cl, now)) {
    SendOne(cl, now, cl.pacer ? cl.pacer->Next() : now);
  }
  if (cl.pacer) Reschedule(cl);
}

// The connection a request goes to: the only one, or (--cluster) the one to the master
// of its key's slot as this worker last learned it.
Worker::Conn& Worker::Route(Client& cl, uint32_t cmd, uint64_t key, std::string_view data) {
  if (!cluster_) return *cl.conns[0];
  const int slot = shared_->builders[cmd].Slot(key, data);
  int node = slot < 0 ? 0 : map_.NodeOf(slot);
  if (node < 0) node = 0;  // an uncovered slot: the server says CLUSTERDOWN
  if (opt_.read_from_replicas && opt_.commands[cmd].counts_hits &&
      static_cast<size_t>(node) < replicas_of_.size() && !replicas_of_[node].empty()) {
    const auto& replicas = replicas_of_[node];
    node = replicas[cl.next_replica++ % replicas.size()];
  }
  return *cl.conns[node];
}

// The bookkeeping of a request just encoded into c.out (both protocol paths).
void Worker::CountSent(Client& cl, Conn& c, uint32_t cmd, size_t bytes, bool measured,
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
  if (open_loop_) interval_[cmd].send_lag_ns.Record(now - intended);
  if (opt_.requests > 0) {
    --cl.budget;
    --budget_left_;
  }
}

void Worker::SendOne(Client& cl, int64_t now, int64_t intended) {
  if (proto_ != Protocol::kResp) return SendOneOther(cl, now, intended);
  uint32_t cmd = shared_->mix->AtInCycle(cl.mix_pos);
  if (++cl.mix_pos == shared_->mix->cycle_length()) cl.mix_pos = 0;
  const CommandSpec& spec = opt_.commands[cmd];
  uint64_t key = spec.tmpl.uses_key ? cl.keys[cmd].Next() : 0;
  std::string_view data = spec.tmpl.uses_data ? shared_->values->Pick(cl.rng, key) : std::string_view();
  Conn& c = Route(cl, cmd, key, data);
  size_t bytes = shared_->builders[cmd].Append(&c.out, key, data);
  // Open loop: a request intended in the warm-up but held back past its end stays out.
  const bool measured = measuring_ && intended >= measure_start_ns_;
  c.Push({intended, now, key, data.data(), static_cast<uint32_t>(data.size()),
          static_cast<uint16_t>(cmd), measured, 0});
  CountSent(cl, c, cmd, bytes, measured, now, intended);
}

// --cluster: sends a request again where a MOVED, ASK or TRYAGAIN reply points, keeping
// its times, so its latency covers the whole detour. False when it is not a
// redirection, or the request was redirected kMaxRedirects times: then the reply
// counts as an error.
bool Worker::FollowRedirect(Conn& c, const InFlight& f, const std::string& error) {
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
      ++stats_.cluster_moved;
      map_.Assign(r->slot, node);
    }
  }
  Conn& to = *c.client->conns[node];
  if (to.state == Conn::State::kClosed) return false;
  if (ask) {
    resp::AppendCommand(&to.out, std::vector<std::string_view>{"ASKING"});
    to.Push({f.intended_ns, f.sent_ns, 0, nullptr, 0, kAskingCommand, false, 0});
    ++stats_.setup_commands["asking"];
    ++in_flight_;
  }
  shared_->builders[f.cmd].Append(&to.out, f.key, std::string_view(f.data, f.data_len));
  InFlight again = f;
  ++again.redirects;
  to.Push(again);
  ++in_flight_;
  ++stats_.sent_total;
  ++stats_.sent_by_command[f.cmd];
  QueueFlush(to);
  return true;
}

// Fails every connection past a deadline: its set-up's (--connect-timeout) until it
// runs, then its oldest request's (--request-timeout). next_deadline_ns_ becomes the
// earliest deadline left; a request sent from now on has none earlier than now + limit.
void Worker::CheckTimeouts(int64_t now) {
  const int64_t limit = int64_t{opt_.request_timeout_ms} * 1'000'000;
  int64_t next = now + limit;
  for (auto& c : conns_) {
    if (c->state == Conn::State::kClosed) continue;
    const bool setup = c->state != Conn::State::kRunning;
    const int64_t request =
        c->count == 0
            ? INT64_MAX
            : (proto_ == Protocol::kIproto ? OldestSent(*c) : c->ring[c->head].sent_ns) + limit;
    if (setup && now >= c->setup_deadline_ns) {
      Fail(*c, Status::Timeout("connection setup to " + Peer(*c) +
                               " did not finish within --connect-timeout " +
                               std::to_string(opt_.connect_timeout_ms) + " ms"));
    } else if (!setup && now >= request) {
      Fail(*c, Status::Timeout("no reply within --request-timeout " +
                               std::to_string(opt_.request_timeout_ms) + " ms (" +
                               std::to_string(c->count) + " requests in flight)"));
    } else {
      if (request > now) next = std::min(next, request);  // in set-up: once past, not again
      if (setup) next = std::min(next, c->setup_deadline_ns);
    }
  }
  next_deadline_ns_ = next;
}

std::string Worker::Peer(const Conn& c) const {
  return cluster_ ? map_.nodes()[c.node].Address() : c.client->target->Display();
}

void Worker::Fail(Conn& c, const Status& why) {
  ++stats_.connection_errors;
  if (failure_.ok()) failure_ = why;
  shared_->stop = true;
  unanswered_ += c.count;
  in_flight_ -= c.count;
  c.count = 0;
  Client& cl = *c.client;
  cl.failed = true;
  if (opt_.requests > 0 && cl.budget != UINT64_MAX) {
    budget_left_ -= cl.budget;
    cl.budget = 0;
  }
  Close(c);
}

// ---- Protocols other than RESP: memcached text, etcd JSON gateway, Tarantool IPROTO.
// The RESP path above branches here once per connect, read and send. memcache and etcd
// replies come in request order (the ring is a FIFO, as for RESP); IPROTO replies are
// matched by sync: the ring is then a slot table, a request's sync = (sequence <<
// bits) | slot, with the slot taken from the free list (pipeline <= slots).

void Worker::StartSessionOther(Conn& c) {
  c.proto = std::make_unique<ProtoReader>(proto_);
  if (proto_ != Protocol::kIproto) {
    c.state = Conn::State::kRunning;
    return Flush(c);
  }
  c.slot_sync.assign(c.ring.size(), 0);
  c.free_slots.clear();
  for (size_t i = c.ring.size(); i > 0; --i) c.free_slots.push_back(static_cast<uint32_t>(i - 1));
  c.state = Conn::State::kSetup;  // until the greeting (and AUTH) are through
}

void Worker::OnBytesOther(Conn& c, const char* p, size_t left) {
  int64_t now = NowNs();
  if (c.state == Conn::State::kSetup && !FeedGreeting(c, &p, &left)) return;
  while (left > 0) {
    size_t used = 0;
    ProtoReader::Event ev = c.proto->Feed(p, left, &used);
    p += used;
    left -= used;
    if (ev == ProtoReader::Event::kNeedMore) break;
    if (ev == ProtoReader::Event::kProtocolError) {
      ++stats_.protocol_errors;
      return Fail(c, Status::Protocol("malformed reply from " + Peer(c) + " (" +
                                      ProtocolServer(proto_) + " expected): " + c.proto->error()));
    }
    HandleReplyOther(c, now);
    if (c.state == Conn::State::kClosed) return;
  }
}

// IPROTO set-up: takes the greeting's bytes; once whole, sends AUTH if the target has a
// user. True when the bytes after it (*p, *left) are replies to read.
bool Worker::FeedGreeting(Conn& c, const char** p, size_t* left) {
  if (c.greeting.size() < iproto::kGreetingSize) {
    const size_t take = std::min(*left, iproto::kGreetingSize - c.greeting.size());
    c.greeting.append(*p, take);
    *p += take;
    *left -= take;
    if (c.greeting.size() < iproto::kGreetingSize) return false;
    auto g = iproto::ParseGreeting(c.greeting);
    if (!g.ok()) {
      Fail(c, g.status().WithContext(Peer(c)));
      return false;
    }
    const RedisTarget& t = *c.client->target;
    if (t.user.empty()) {
      c.state = Conn::State::kRunning;
      return true;
    }
    iproto::AppendAuth(&c.out, 0, t.user, iproto::ChapSha1Scramble(t.password, g->salt));
    ++stats_.setup_commands["auth"];
    Flush(c);
  }
  return true;
}

void Worker::HandleReplyOther(Conn& c, int64_t now) {
  InFlight f;
  if (proto_ == Protocol::kIproto) {
    if (c.proto->is_push()) return;  // box.session.push: the response follows
    const uint64_t sync = c.proto->sync();
    if (c.state == Conn::State::kSetup) {
      std::string refused = c.proto->AuthError();
      if (!refused.empty()) {
        return Fail(c, Status::Server(
            "AUTH as '" + c.client->target->user + "' failed: " + refused + " (" + Peer(c) + ")"));
      }
      c.state = Conn::State::kRunning;
      return;
    }
    const size_t slot = sync & (c.ring.size() - 1);
    if (sync == 0 || c.slot_sync[slot] != sync) {
      ++stats_.protocol_errors;
      return Fail(c, Status::Protocol("a reply with sync " + std::to_string(sync) +
                                      " that no request in flight has"));
    }
    f = c.ring[slot];
    c.slot_sync[slot] = 0;
    c.free_slots.push_back(static_cast<uint32_t>(slot));
    --c.count;
  } else {
    if (c.count == 0) {
      ++stats_.protocol_errors;
      return Fail(c, Status::Protocol("a reply arrived with no request in flight"));
    }
    f = c.Pop();
  }
  --in_flight_;
  --c.client->in_flight;
  const ProtoRequest& req = shared_->proto_requests[f.cmd];
  Status s = c.proto->Interpret(req, &proto_reply_);
  if (!s.ok()) {
    ++stats_.protocol_errors;
    return Fail(c, s.WithContext("reply from " + Peer(c)));
  }
  const ProtoReply& r = proto_reply_;
  if (r.applied_write) ++stats_.writes_applied;
  if (r.is_error) {
    ++stats_.error_replies_all[f.cmd];
    c.last_error = r.error_text;
  }
  if (!r.is_error && (req.op() == ProtoRequest::Op::kMcGet || req.op() == ProtoRequest::Op::kMcGets)) {
    ++(r.positive ? stats_.get_hits_all : stats_.get_misses_all);
  }
  if (f.measured) RecordOther(f, r, now);
  if (c.proto->closes()) {
    Fail(c, Status::IoError("the server answered with Connection: close (" +
                            std::to_string(c.count) +
                            " requests in flight); memstand keeps one connection per client "
                            "and does not reconnect"));
  }
}

void Worker::RecordOther(const InFlight& f, const ProtoReply& r, int64_t now) {
  CommandStats& s = interval_[f.cmd];
  const int64_t service = now - f.sent_ns;
  const int64_t latency = now - f.intended_ns;
  s.latency_ns.Record(latency);
  if (open_loop_) s.service_ns.Record(service);
  if (service == 0) ++s.zero_latency;
  ++s.ops;
  s.bytes_in += r.wire_bytes;
  measure_end_ns_ = now;
  if (opt_.samples_cap > 0) {
    if (!stats_.samples) {
      stats_.samples = std::make_shared<SampleReservoir>(
          opt_.samples_cap, DeriveSeed(opt_.seed ^ 0x5a3b1e5ULL, thread_index_));
    }
    stats_.samples->Offer({now - measure_start_ns_, latency, f.cmd});
  }
  if (r.is_error) {
    ++s.errors;
    ErrorKind& kind = s.errors_by_prefix[r.error_kind];
    if (kind.count++ == 0) {
      kind.example = r.error_text;
      kind.first_reply = stats_.commands[f.cmd].ops + s.ops;
    }
  } else if (opt_.commands[f.cmd].counts_hits) {
    ++(r.positive ? s.hits : s.misses);
  }
}

void Worker::SendOneOther(Client& cl, int64_t now, int64_t intended) {
  uint32_t cmd = shared_->mix->AtInCycle(cl.mix_pos);
  if (++cl.mix_pos == shared_->mix->cycle_length()) cl.mix_pos = 0;
  const ProtoRequest& req = shared_->proto_requests[cmd];
  uint64_t key = req.uses_key() ? cl.keys[cmd].Next() : 0;
  std::string_view data = req.uses_data() ? shared_->values->Pick(cl.rng, key) : std::string_view();
  Conn& c = *cl.conns[0];
  const bool measured = measuring_ && intended >= measure_start_ns_;
  const InFlight f{intended, now, key, data.data(), static_cast<uint32_t>(data.size()),
                   static_cast<uint16_t>(cmd), measured, 0};
  ProtoArgs a{key, data, 0, &scratch_, &scratch2_};
  if (proto_ == Protocol::kIproto) {
    a.rng = &cl.rng;
    if (req.uses_seq()) {  // unique in the run: client g sends g, g + C, g + 2C, ...
      a.seq = cl.seq;
      cl.seq += static_cast<uint64_t>(opt_.connections());
    }
    const uint32_t slot = c.free_slots.back();  // cl.in_flight < pipeline <= slots
    c.free_slots.pop_back();
    a.sync = (++c.next_seq << std::countr_zero(c.ring.size())) | slot;
    c.slot_sync[slot] = a.sync;
    c.ring[slot] = f;
    ++c.count;
  } else {
    c.Push(f);
  }
  size_t bytes = req.Append(&c.out, a);
  CountSent(cl, c, cmd, bytes, measured, now, intended);
}

// IPROTO: when the oldest request in flight on c was sent.
int64_t Worker::OldestSent(const Conn& c) const {
  int64_t oldest = INT64_MAX;
  for (size_t i = 0; i < c.slot_sync.size(); ++i) {
    if (c.slot_sync[i] != 0) oldest = std::min(oldest, c.ring[i].sent_ns);
  }
  return oldest;
}

}  // namespace memstand

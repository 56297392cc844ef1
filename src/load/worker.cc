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
#include "proto/resp/resp.h"
#include "workload/key_pattern.h"
#include "workload/rng.h"

namespace memstand {

namespace {

constexpr uint16_t kSetupCommand = UINT16_MAX;
constexpr size_t kReadChunk = 256 * 1024;
constexpr int kMaxEvents = 512;
constexpr int64_t kTickNs = 100'000'000;  // timeouts and phases checked every 100 ms
constexpr int64_t kSecondNs = 1'000'000'000;
constexpr int64_t kMaxWaitNs = 20'000'000;  // the loop's checks run at least this often

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

class Worker::ReactorHolder : public Reactor {};

struct Worker::InFlight {
  int64_t intended_ns;  // open loop: the pacer's time; closed loop: sent_ns
  int64_t sent_ns;
  uint16_t cmd;       // command index, or kSetupCommand
  bool measured;      // sent in the measured phase
};

struct Worker::Conn {
  int fd = -1;
  uint32_t slot = 0;  // index in conns_
  enum class State { kConnecting, kSetup, kRunning, kClosed } state = State::kConnecting;
  Buffer out;
  resp::Reader reader{resp::Reader::Mode::kSummary};
  std::vector<InFlight> ring;  // FIFO of requests in flight
  size_t head = 0;
  size_t count = 0;
  std::vector<KeySequence> keys;  // by command index
  Rng rng{0};
  uint64_t mix_pos = 0;
  uint64_t budget = UINT64_MAX;  // measured requests left (requests mode)
  std::optional<Pacer> pacer;    // open loop only
  int64_t due_queued = -1;       // open loop: the time of this connection's live due_ entry
  bool want_write = false;
  bool flush_queued = false;
  std::vector<std::string> setup_names;  // setup commands awaiting replies, in order

  // REQUIRES: ring.size() is a power of two.
  void Push(const InFlight& f) {
    ring[(head + count) & (ring.size() - 1)] = f;
    ++count;
  }
  InFlight Pop() {
    InFlight f = ring[head];
    head = (head + 1) & (ring.size() - 1);
    --count;
    return f;
  }
};

Worker::Worker(WorkerShared* shared, int thread_index)
    : shared_(shared),
      opt_(*shared->options),
      thread_index_(thread_index),
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
  const uint64_t total_conns = static_cast<uint64_t>(opt_.connections());
  for (int i = 0; i < opt_.clients; ++i) {
    auto c = std::make_unique<Conn>();
    uint64_t global = static_cast<uint64_t>(thread_index_) * opt_.clients + i;
    c->slot = static_cast<uint32_t>(i);
    c->ring.resize(std::bit_ceil(static_cast<size_t>(std::max(opt_.pipeline, 4))));
    for (size_t k = 0; k < opt_.commands.size(); ++k) {
      // Each command of each connection draws its own sequence (stream = conn, command).
      c->keys.emplace_back(opt_.commands[k].key_pattern, opt_.key_min, opt_.key_max,
                           DeriveSeed(opt_.seed, k), global, total_conns);
    }
    c->rng = Rng(DeriveSeed(opt_.seed ^ 0x5eedda7aULL, global));
    c->mix_pos = (global * 7919) % shared_->mix->cycle_length();  // spread the starting points
    if (opt_.requests > 0) {
      c->budget = opt_.requests / total_conns + (global < opt_.requests % total_conns ? 1 : 0);
      budget_left_ += c->budget;
    }
    auto fd = ConnectTcp(opt_.target.host, opt_.target.port, opt_.connect_timeout_ms, false);
    if (!fd.ok()) return fd.status();
    c->fd = *fd;
    ++open_conns_;
    Status s = reactor_->Add(c->fd, Reactor::kWritable, c->slot);
    conns_.push_back(std::move(c));
    if (!s.ok()) return s;
  }
  return Status::OK();
}

void Worker::Run() {
  Status s = OpenAll();
  if (!s.ok()) {
    failure_ = s.WithContext("connecting to " + opt_.target.Display());
    shared_->stop = true;
  }
  // Establish and set up every connection before the common start.
  int64_t deadline = NowNs() + int64_t{opt_.connect_timeout_ms} * 1'000'000;
  epoll_event events[kMaxEvents];
  auto all_ready = [&] {
    for (auto& c : conns_) {
      if (c->state != Conn::State::kRunning) return false;
    }
    return true;
  };
  while (failure_.ok() && !shared_->stop && !all_ready()) {
    int64_t now = NowNs();
    if (now > deadline) {
      failure_ = Status::Timeout("connection setup to " + opt_.target.Display() +
                                 " did not finish within --connect-timeout " +
                                 std::to_string(opt_.connect_timeout_ms) + " ms");
      shared_->stop = true;
      break;
    }
    int n = reactor_->Wait(events, kMaxEvents, 50);
    for (int i = 0; i < n; ++i) OnEvent(*conns_[events[i].data.u64], events[i].events, now);
    FlushQueued();
  }
  shared_->ready->arrive_and_wait();
  if (failure_.ok()) Loop();
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
    for (const auto& c : conns_) {
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

// Whether the connection has requests left to send in this phase (now or later).
bool Worker::MayStillSend(const Conn& c, int64_t now) const {
  if (!started_ || stopping_ || c.state != Conn::State::kRunning) return false;
  if (!measuring_) return true;  // warm-up
  if (opt_.requests > 0) return c.budget > 0;
  // Open loop: requests intended before the end, while the end has not passed. What a
  // late schedule leaves unsent then is counted (FinishMeasuredPhase), not sent late.
  if (c.pacer && c.pacer->Peek() >= measure_end_deadline_ns_) return false;
  return now < measure_end_deadline_ns_;
}

// Whether the connection may send its next request now. Open loop: once it is due, and
// a request intended after the warm-up waits for the measured phase to begin.
bool Worker::CanSend(const Conn& c, int64_t now) const {
  if (!MayStillSend(c, now)) return false;
  if (!c.pacer) return true;
  const int64_t at = c.pacer->Peek();
  return at <= now && (measuring_ || at < warmup_end_ns_);
}

bool Worker::Busy() const {
  const int64_t now = NowNs();
  for (const auto& c : conns_) {
    if (c->state == Conn::State::kClosed) continue;
    if (c->count > 0 || MayStillSend(*c, now)) return true;
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
  for (auto& c : conns_) {
    const uint64_t global = static_cast<uint64_t>(thread_index_) * opt_.clients + c->slot;
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
  for (auto& c : conns_) {
    Fill(*c, now);
    Flush(*c);
  }
}

void Worker::Loop() {
  started_ = true;
  int64_t start = NowNs();
  warmup_end_ns_ = start + static_cast<int64_t>(opt_.warmup_s * 1e9);
  if (open_loop_) StartPacers(start);
  if (opt_.warmup_s <= 0) EnterMeasuredPhase(start);
  for (auto& c : conns_) {
    Fill(*c, start);
    Flush(*c);
  }
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
    if (now >= next_tick) {
      CheckTimeouts(now);
      next_tick = now + kTickNs;
      if (!Busy()) break;
    }
    if (stopping_ && now >= drain_deadline_ns_) break;
    if (open_conns_ == 0) break;
    int n = open_loop_ ? reactor_->WaitNs(events, kMaxEvents, WaitTimeoutNs(now))
                       : reactor_->Wait(events, kMaxEvents, 20);
    ++stats_.wait_calls;
    if (n == 0 && !open_loop_) continue;
    now = NowNs();
    for (int i = 0; i < n; ++i) OnEvent(*conns_[events[i].data.u64], events[i].events, now);
    if (open_loop_) SendDue(now);
    FlushQueued();
    if (Finished()) break;
  }
}

// Until the earliest live send time, at most kMaxWaitNs.
int64_t Worker::WaitTimeoutNs(int64_t now) {
  while (!due_.empty() && conns_[due_.top().second]->due_queued != due_.top().first) due_.pop();
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
    Conn& c = *conns_[slot];
    if (c.due_queued != at) continue;  // stale: the connection sent or rescheduled since
    c.due_queued = -1;
    due_now_.push_back(&c);
  }
  for (Conn* c : due_now_) {
    if (c->state != Conn::State::kRunning) continue;
    Fill(*c, now);
    if (c->out.Readable() > 0) QueueFlush(*c);
  }
}

// Open loop: queues the connection's next send time unless the in-flight cap holds it
// (a reply will call Fill) or it has nothing more to send.
void Worker::Reschedule(Conn& c) {
  const int64_t at = c.pacer->Peek();
  if (c.count >= static_cast<size_t>(opt_.pipeline) || !MayStillSend(c, at) || at == c.due_queued) {
    return;
  }
  c.due_queued = at;
  due_.push({at, c.slot});
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
    Fill(c, now);
  }
  if ((events & EPOLLOUT) || c.out.Readable() > 0) QueueFlush(c);
}

void Worker::QueueFlush(Conn& c) {
  if (c.flush_queued) return;
  c.flush_queued = true;
  flush_queue_.push_back(&c);
}

void Worker::FlushQueued() {
  // Writes after every event of a wake-up is handled: the server then finds many
  // requests at once instead of being woken once per connection.
  for (Conn* c : flush_queue_) {
    c->flush_queued = false;
    if (c->state != Conn::State::kClosed) Flush(*c);
  }
  flush_queue_.clear();
}

void Worker::OnConnected(Conn& c) {
  Status s = FinishConnect(c.fd);
  if (!s.ok()) return Fail(c, s.WithContext(opt_.target.host + ":" + std::to_string(opt_.target.port)));
  reactor_->Modify(c.fd, Reactor::kReadable, c.slot);
  c.state = Conn::State::kSetup;
  // HELLO (with AUTH inside) for RESP3; else AUTH, then SELECT.
  auto send = [&](std::initializer_list<std::string_view> args) {
    resp::AppendCommand(&c.out, std::vector<std::string_view>(args));
    const int64_t sent = NowNs();
    c.Push({sent, sent, kSetupCommand, false});
    ++in_flight_;
    std::string name(*args.begin());
    for (auto& ch : name) ch = static_cast<char>(std::tolower(ch));
    c.setup_names.push_back(name);
    ++stats_.setup_commands[name];
  };
  const RedisTarget& t = opt_.target;
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
  if (c.count == 0) c.state = Conn::State::kRunning;
  Flush(c);
}

void Worker::OnReadable(Conn& c) {
  ssize_t n = read(c.fd, read_buf_.data(), read_buf_.size());
  ++stats_.read_calls;
  if (n == 0) {
    return Fail(c, Status::IoError("the server closed the connection (" +
                                   std::to_string(c.count) + " requests in flight)"));
  }
  if (n < 0) {
    if (errno == EAGAIN || errno == EINTR) return;
    return Fail(c, Status::IoError(ErrnoMessage("read", errno)));
  }
  stats_.socket_bytes_read += static_cast<uint64_t>(n);
  int64_t now = NowNs();
  const char* p = read_buf_.data();
  size_t left = static_cast<size_t>(n);
  while (left > 0) {
    size_t used = 0;
    resp::Reader::Event ev = c.reader.Feed(p, left, &used);
    p += used;
    left -= used;
    if (ev == resp::Reader::Event::kNeedMore) break;
    if (ev == resp::Reader::Event::kProtocolError) {
      ++stats_.protocol_errors;
      return Fail(c, Status::Protocol("malformed reply from " + opt_.target.Display() + ": " +
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
    return Fail(c, Status::Protocol("a reply arrived with no request in flight"));
  }
  InFlight f = c.Pop();
  --in_flight_;
  if (f.cmd == kSetupCommand) {
    std::string name = c.setup_names.front();
    c.setup_names.erase(c.setup_names.begin());
    if (r.is_error) {
      return Fail(c, Status::Server(name + " failed: " + r.error));
    }
    if (c.count == 0) c.state = Conn::State::kRunning;
    return;
  }
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
    if (kind.count++ == 0) kind.example = r.error;
  } else if (opt_.commands[f.cmd].counts_hits) {
    ++(r.is_null ? s.misses : s.hits);
  }
}

void Worker::Fill(Conn& c, int64_t now) {
  const size_t depth = static_cast<size_t>(opt_.pipeline);
  while (c.count < depth && CanSend(c, now)) {
    SendOne(c, now, c.pacer ? c.pacer->Next() : now);
  }
  if (c.pacer) Reschedule(c);
}

void Worker::SendOne(Conn& c, int64_t now, int64_t intended) {
  uint32_t cmd = shared_->mix->AtInCycle(c.mix_pos);
  if (++c.mix_pos == shared_->mix->cycle_length()) c.mix_pos = 0;
  const CommandSpec& spec = opt_.commands[cmd];
  uint64_t key = spec.tmpl.uses_key ? c.keys[cmd].Next() : 0;
  std::string_view data = spec.tmpl.uses_data ? shared_->values->Pick(c.rng) : std::string_view();
  size_t bytes = shared_->builders[cmd].Append(&c.out, key, data);
  // Open loop: a request intended in the warm-up but held back past its end stays out.
  const bool measured = measuring_ && intended >= measure_start_ns_;
  c.Push({intended, now, static_cast<uint16_t>(cmd), measured});
  ++in_flight_;
  ++stats_.sent_total;
  ++stats_.sent_by_command[cmd];
  if (!measured) return;
  interval_[cmd].bytes_out += bytes;
  if (open_loop_) interval_[cmd].send_lag_ns.Record(now - intended);
  if (opt_.requests > 0) {
    --c.budget;
    --budget_left_;
  }
}

void Worker::Flush(Conn& c) {
  while (c.out.Readable() > 0) {
    ssize_t n = write(c.fd, c.out.ReadPtr(), c.out.Readable());
    ++stats_.write_calls;
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) break;
      return Fail(c, Status::IoError(ErrnoMessage("write", errno)));
    }
    stats_.socket_bytes_written += static_cast<uint64_t>(n);
    c.out.Consume(static_cast<size_t>(n));
  }
  bool pending = c.out.Readable() > 0;
  if (pending != c.want_write) {
    c.want_write = pending;
    reactor_->Modify(c.fd, Reactor::kReadable | (pending ? Reactor::kWritable : 0), c.slot);
  }
}

void Worker::CheckTimeouts(int64_t now) {
  const int64_t limit = int64_t{opt_.request_timeout_ms} * 1'000'000;
  for (auto& c : conns_) {
    if (c->state == Conn::State::kClosed || c->count == 0) continue;
    if (now - c->ring[c->head].sent_ns > limit) {
      Fail(*c, Status::Timeout("no reply within --request-timeout " +
                               std::to_string(opt_.request_timeout_ms) + " ms (" +
                               std::to_string(c->count) + " requests in flight)"));
    }
  }
}

void Worker::Fail(Conn& c, const Status& why) {
  ++stats_.connection_errors;
  if (failure_.ok()) failure_ = why;
  shared_->stop = true;
  unanswered_ += c.count;
  in_flight_ -= c.count;
  c.count = 0;
  if (opt_.requests > 0 && c.budget != UINT64_MAX) {
    budget_left_ -= c.budget;
    c.budget = 0;
  }
  Close(c);
}

void Worker::Close(Conn& c) {
  if (c.fd >= 0) {
    reactor_->Remove(c.fd);
    close(c.fd);
    c.fd = -1;
    --open_conns_;
  }
  c.state = Conn::State::kClosed;
}

}  // namespace memstand

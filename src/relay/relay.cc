#include "relay/relay.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "core/reactor.h"
#include "core/socket.h"
#include "relay/relay_direction.h"
#include "relay/rx_stamp.h"
#include "relay/segment_tap.h"

namespace memstand {

namespace {

// How long a listener stays out of the loop after accept() failed for lack of
// descriptors: the pending client waits in the backlog, and the loop does not wake for
// it on every pass (level-triggered epoll would report it again at once). 100 ms, as
// the metrics server: long against a spin, short against a client's connect timeout.
constexpr int64_t kAcceptPauseNs = 100'000'000;

// accept() failed for want of a resource another close may free, not for this client.
bool OutOfResources(int err) {
  return err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM;
}

// An epoll token: what an fd is (low two bits) and whose (the rest).
// kControlFd: id 0 the stop eventfd, id 1 the timerfd, id 2 the segment tap.
enum TokenKind : uint64_t { kClientFd = 0, kTargetFd = 1, kListenerFd = 2, kControlFd = 3 };
uint64_t Token(uint64_t id, TokenKind kind) { return id << 2 | kind; }

// Closes fd with a reset (RST) instead of a FIN: the peer sees ECONNRESET.
void CloseWithReset(int fd) {
  linger l{1, 0};
  setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
  close(fd);
}

// TCP_NODELAY as asked, read back and counted.
void ApplyNoDelay(int fd, bool on, RelayLinkStats* stats) {
  int value = on ? 1 : 0;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &value, sizeof(value));
  socklen_t len = sizeof(value);
  value = 0;
  getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &value, &len);
  ++stats->sockets;
  if (value != 0) ++stats->nodelay_sockets;
}

// A non-blocking connect to a numeric address from a local port bound first: the
// segment tap's filter takes the port before the target's SYN-ACK can arrive, so the
// target's stream is anchored at its ISN (segment_map.h). *bound: the port.
Result<int> ConnectFromBoundPort(const std::string& address, int port, SegmentTap* tap, int* bound) {
  addrinfo hints{};
  hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* ai = nullptr;
  const int rc = getaddrinfo(address.c_str(), std::to_string(port).c_str(), &hints, &ai);
  if (rc != 0 || ai == nullptr) return Status::IoError("bad target address " + address + ": " + gai_strerror(rc));
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> owned(ai, freeaddrinfo);
  const int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status::IoError(ErrnoMessage("socket", errno));
  sockaddr_storage local{};  // the wildcard address, port 0: the kernel picks a port now
  local.ss_family = static_cast<sa_family_t>(ai->ai_family);
  const socklen_t len = ai->ai_family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
  auto bound_port = bind(fd, reinterpret_cast<sockaddr*>(&local), len) == 0
                        ? LocalPort(fd)
                        : Result<int>(Status::IoError(ErrnoMessage("bind", errno)));
  if (!bound_port.ok()) {
    close(fd);
    return bound_port.status();
  }
  tap->AddPort(static_cast<uint16_t>(*bound_port));  // refused: the stream falls back, counted
  if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0 && errno != EINPROGRESS) {
    const int err = errno;
    tap->RemovePort(static_cast<uint16_t>(*bound_port));
    close(fd);
    return Status::IoError(ErrnoMessage("connect", err));
  }
  *bound = *bound_port;
  return fd;
}

Status Validate(const RelayOptions& o) {
  if (o.links.empty()) return Status::InvalidArgument("a relay needs at least one link");
  if (o.delay_ns < 0 || o.delay_back_ns < -1 || o.jitter_ns < 0) {
    return Status::InvalidArgument("delays and jitter must be >= 0");
  }
  if (o.max_held_bytes == 0 || o.max_total_held_bytes == 0 || o.read_size == 0 || o.connect_timeout_ms <= 0) {
    return Status::InvalidArgument(
        "max_held_bytes, max_total_held_bytes, read_size and connect_timeout_ms must be > 0");
  }
  if (o.spin_ns < 0 || o.spin_ns > 10'000'000) return Status::InvalidArgument("the spin must be 0..10ms");
  if (o.realtime_priority < 0 || o.realtime_priority > 99) {
    return Status::InvalidArgument("the real-time priority must be 1..99 (0: none)");
  }
  return Status::OK();
}

}  // namespace

class Relay::Loop {
 public:
  explicit Loop(const RelayOptions& options)
      : options_(options), modes_(options.links.size()), scratch_(options.read_size) {
    stats_.links.resize(options.links.size());
    for (auto& mode : modes_) mode.store(LinkMode::kForward);
  }
  ~Loop() { Stop(); }

  // Resolves every link's target once, before the loop runs: a name that does not
  // resolve is refused at start, and no connection waits on DNS in the loop thread.
  Status ResolveTargets();
  Status Bind();
  void StartThread() { thread_ = std::thread([this] { Run(); }); }
  // Puts the loop thread on SCHED_FIFO at options_.realtime_priority (none: nothing).
  Status SetRealtime();
  void Stop();
  int port(size_t link) const { return ports_.at(link); }
  Status SetMode(size_t link, LinkMode mode) {
    if (link >= modes_.size()) {
      return Status::InvalidArgument("no link " + std::to_string(link + 1) + " (the relay has " +
                                     std::to_string(modes_.size()) + ")");
    }
    modes_[link].store(mode);
    const uint64_t one = 1;
    (void)!write(stop_fd_, &one, sizeof(one));  // wakes the loop; running_ stays true
    return Status::OK();
  }
  RelayStats Snapshot() const {
    std::lock_guard<std::mutex> lock(mu_);
    RelayStats out = stats_;
    out.tap_on = tap_ != nullptr;
    out.tap_error = tap_error_;
    if (tap_ != nullptr) out.tap = tap_->stats();
    return out;
  }

 private:
  using LinkMode = Relay::LinkMode;
  LinkMode ModeOf(size_t link) const { return modes_[link].load(); }

  struct Connection {
    Connection(const RelayOptions& o, uint64_t seed, RelayLinkStats* s, size_t* total_held)
        : forward(o, o.delay_ns, seed, &s->forward, total_held),
          back(o, o.back_delay_ns(), seed + 1, &s->back, total_held) {}
    size_t link = 0;
    int client = -1;
    int target = -1;
    bool connecting = true;
    bool refused = false;  // the connect to the target failed
    bool reset = false;    // a side reset the connection: reset the other
    int64_t connect_deadline_ns = 0;
    RelayDirection forward;  // client -> target
    RelayDirection back;     // target -> client
    uint32_t client_events = 0;  // what each fd is registered for (0: not registered)
    uint32_t target_events = 0;
    int bound_port = 0;  // the target socket's local port, in the tap's filter (0: none)
    bool tapped = false;  // both received streams registered with the tap
    TcpTuple from_client;  // client -> relay, as on the wire
    TcpTuple from_target;  // target -> relay
  };
  using ConnMap = std::map<uint64_t, std::unique_ptr<Connection>>;

  void Run();
  // Arms the timerfd for deadline_ns (INT64_MAX: disarms it) unless it already is.
  void ArmTimer(int64_t deadline_ns);
  void Handle(const epoll_event& ev);
  void HandleSocket(Connection& c, bool is_client, uint32_t events);
  void Accept(size_t link);
  // Takes a listener out of the loop until kAcceptPauseNs from now.
  void PauseListener(size_t link);
  // Puts back the listeners whose pause has passed.
  void ResumeListeners(int64_t now_ns);
  void OpenConnection(size_t link, int client);
  void FinishConnecting(Connection& c);
  // Registers c's two received streams with the tap and gives their maps to the
  // directions reading them.
  void Tap(Connection& c);
  // Opens the segment tap when the options ask for it; on failure says why in tap_error_
  // and runs without it.
  void OpenTap();
  void Service();
  // Flushes c's due chunks; false when c was closed.
  bool ServiceOne(ConnMap::iterator it);
  void UpdateInterest(uint64_t id, Connection& c);
  void SetInterest(int fd, uint32_t events, uint64_t token, uint32_t* registered);
  int64_t NextDeadline() const;
  void Close(ConnMap::iterator it, bool reset);

  const RelayOptions options_;
  std::vector<std::vector<std::string>> targets_;  // per link: its target's addresses, numeric
  Reactor reactor_;
  std::vector<int> listeners_;
  std::vector<int> ports_;
  std::vector<int64_t> resume_ns_;  // per listener: 0 polled, else when to poll it again
  int stop_fd_ = -1;
  int timer_fd_ = -1;
  int64_t armed_ns_ = INT64_MAX;  // what timer_fd_ is set for (loop thread)
  std::thread thread_;
  std::atomic<bool> running_{true};
  std::vector<std::atomic<LinkMode>> modes_;  // per link, set by SetMode, read by the loop
  mutable std::mutex mu_;  // guards stats_; held by the loop while it handles a wake-up
  RelayStats stats_;
  size_t total_held_ = 0;  // bytes held by every direction (RelayDirection keeps it); before conns_
  ConnMap conns_;  // loop thread only
  uint64_t next_id_ = 1;
  std::vector<char> scratch_;
  std::unique_ptr<SegmentTap> tap_;  // null: off (not asked, or could not open)
  std::string tap_error_;
};

Status Relay::Loop::Bind() {
  if (!reactor_.status().ok()) return reactor_.status();
  stop_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (stop_fd_ < 0) return Status::IoError(ErrnoMessage("eventfd", errno));
  timer_fd_ = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
  if (timer_fd_ < 0) return Status::IoError(ErrnoMessage("timerfd_create", errno));
  Status s = reactor_.Add(stop_fd_, Reactor::kReadable, Token(0, kControlFd));
  if (s.ok()) s = reactor_.Add(timer_fd_, Reactor::kReadable, Token(1, kControlFd));
  for (size_t i = 0; i < options_.links.size() && s.ok(); ++i) {
    const RelayLink& l = options_.links[i];
    auto fd = ListenTcp(l.listen_host, l.listen_port);
    if (!fd.ok()) return fd.status().WithContext("link " + std::to_string(i + 1));
    listeners_.push_back(*fd);
    resume_ns_.push_back(0);
    auto port = LocalPort(*fd);
    if (!port.ok()) return port.status();
    ports_.push_back(*port);
    s = SetNonBlocking(*fd, true);
    if (s.ok()) s = reactor_.Add(*fd, Reactor::kReadable, Token(i, kListenerFd));
  }
  if (s.ok()) OpenTap();
  return s;
}

void Relay::Loop::OpenTap() {
  if (!options_.segment_tap) return;
  auto tap = SegmentTap::Open();
  Status s = tap.status();
  for (size_t i = 0; s.ok() && i < ports_.size(); ++i) s = (*tap)->AddPort(static_cast<uint16_t>(ports_[i]));
  if (s.ok()) s = reactor_.Add((*tap)->fd(), Reactor::kReadable, Token(2, kControlFd));
  if (!s.ok()) {
    tap_error_ = s.message();
    return;
  }
  tap_ = std::move(*tap);
}

Status Relay::Loop::SetRealtime() {
  if (options_.realtime_priority == 0) return Status::OK();
  sched_param param{};
  param.sched_priority = options_.realtime_priority;
  const int rc = pthread_setschedparam(thread_.native_handle(), SCHED_FIFO, &param);
  if (rc != 0) {
    return Status::IoError(ErrnoMessage(
        "SCHED_FIFO priority " + std::to_string(options_.realtime_priority) + " for the relay's thread (needs root or "
        "CAP_SYS_NICE)", rc));
  }
  return Status::OK();
}

void Relay::Loop::Stop() {
  if (thread_.joinable()) {
    running_.store(false);
    const uint64_t one = 1;
    (void)!write(stop_fd_, &one, sizeof(one));
    thread_.join();
  }
  while (!conns_.empty()) Close(conns_.begin(), false);
  for (int fd : listeners_) close(fd);
  listeners_.clear();
  for (int* fd : {&stop_fd_, &timer_fd_}) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
  }
}

// The timer is a timerfd at an absolute CLOCK_MONOTONIC time: an hrtimer with no slack
// (epoll's own timeout adds 0.1% of the wait as slack: 20 us on a 20 ms delay).
void Relay::Loop::Run() {
  prctl(PR_SET_TIMERSLACK, 1UL);  // wake-ups of this thread are not coalesced either
  epoll_event events[64];
  while (running_.load()) {
    const int64_t deadline = NextDeadline();
    const int64_t wake = deadline == INT64_MAX ? deadline : deadline - options_.spin_ns;
    ArmTimer(wake);
    const int n = reactor_.Wait(events, 64, wake <= NowNs() ? 0 : -1);
    std::lock_guard<std::mutex> lock(mu_);
    for (int i = 0; i < n; ++i) Handle(events[i]);
    ResumeListeners(NowNs());
    Service();
  }
}

void Relay::Loop::ArmTimer(int64_t deadline_ns) {
  if (deadline_ns == armed_ns_) return;
  itimerspec spec{};  // all zero: disarmed
  if (deadline_ns != INT64_MAX) {
    const int64_t at = std::max<int64_t>(deadline_ns, 1);
    spec.it_value = {static_cast<time_t>(at / 1'000'000'000), static_cast<long>(at % 1'000'000'000)};
  }
  timerfd_settime(timer_fd_, TFD_TIMER_ABSTIME, &spec, nullptr);
  armed_ns_ = deadline_ns;
}

void Relay::Loop::Handle(const epoll_event& ev) {
  const uint64_t id = ev.data.u64 >> 2;
  const auto kind = static_cast<TokenKind>(ev.data.u64 & 3);
  if (kind == kControlFd && id == 2) return tap_->Drain();
  if (kind == kControlFd) {
    uint64_t count;
    (void)!read(id == 1 ? timer_fd_ : stop_fd_, &count, sizeof(count));  // stop, or a mode changed
    return;
  }
  if (kind == kListenerFd) return Accept(id);
  auto it = conns_.find(id);
  if (it == conns_.end()) return;  // closed earlier in this wake-up
  HandleSocket(*it->second, kind == kClientFd, ev.events);
}

void Relay::Loop::HandleSocket(Connection& c, bool is_client, uint32_t events) {
  if (!is_client && c.connecting) return FinishConnecting(c);
  RelayDirection& reader = is_client ? c.forward : c.back;
  RelayDirection& writer = is_client ? c.back : c.forward;
  const bool error = (events & (EPOLLERR | EPOLLHUP)) != 0;
  if ((events & EPOLLOUT) || error) writer.Unblock();
  if (((events & EPOLLIN) || error) && reader.WantsRead() &&
      reader.ReadOnce(NowNs(), scratch_.data()) == RelayDirection::Io::kReset) {
    c.reset = true;  // passes through as a reset: Service resets the other side
  }
}

void Relay::Loop::Accept(size_t link) {
  for (int i = 0; i < 64; ++i) {  // bounded per wake-up; level-triggered brings the rest
    const int fd = accept4(listeners_[link], nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0 && OutOfResources(errno)) return PauseListener(link);
    if (fd < 0) return;
    ++stats_.links[link].connections;
    if (ModeOf(link) == LinkMode::kCut) {
      ++stats_.links[link].cut;
      CloseWithReset(fd);
      continue;
    }
    OpenConnection(link, fd);
  }
}

void Relay::Loop::PauseListener(size_t link) {
  ++stats_.links[link].accept_failures;
  reactor_.Remove(listeners_[link]);
  resume_ns_[link] = NowNs() + kAcceptPauseNs;
}

void Relay::Loop::ResumeListeners(int64_t now_ns) {
  for (size_t i = 0; i < listeners_.size(); ++i) {
    if (resume_ns_[i] == 0 || resume_ns_[i] > now_ns) continue;
    resume_ns_[i] = 0;
    reactor_.Add(listeners_[i], Reactor::kReadable, Token(i, kListenerFd));
  }
}

Status Relay::Loop::ResolveTargets() {
  for (size_t i = 0; i < options_.links.size(); ++i) {
    const RelayLink& l = options_.links[i];
    auto addresses = ResolveNumeric(l.target_host, l.target_port);
    if (!addresses.ok()) {
      return Status::InvalidArgument("link " + std::to_string(i + 1) + ": target " + l.target_host + ":" +
                                     std::to_string(l.target_port) + ": " + addresses.status().message());
    }
    targets_.push_back(std::move(*addresses));
  }
  return Status::OK();
}

void Relay::Loop::OpenConnection(size_t link, int client) {
  RelayLinkStats* stats = &stats_.links[link];
  ApplyNoDelay(client, options_.nodelay, stats);
  EnableRxStamps(client);  // refused: the reads carry no stamp and count from the read
  const RelayLink& l = options_.links[link];
  Result<int> target = Status::IoError("no address");
  int bound_port = 0;
  for (const std::string& address : targets_[link]) {  // as ConnectTcp tries a name's addresses
    target = tap_ != nullptr ? ConnectFromBoundPort(address, l.target_port, tap_.get(), &bound_port)
                             : ConnectTcp(address, l.target_port, 0, false);
    if (target.ok()) break;
  }
  if (!target.ok()) {  // refused at once (loopback): the client is refused too
    ++stats->refused;
    return CloseWithReset(client);
  }
  ApplyNoDelay(*target, options_.nodelay, stats);
  EnableRxStamps(*target);
  const uint64_t id = next_id_++;
  auto c = std::make_unique<Connection>(options_, options_.seed + 2 * id, stats, &total_held_);
  c->link = link;
  c->client = client;
  c->target = *target;
  c->bound_port = bound_port;
  c->connect_deadline_ns = NowNs() + int64_t{options_.connect_timeout_ms} * 1'000'000;
  conns_.emplace(id, std::move(c));
}

void Relay::Loop::FinishConnecting(Connection& c) {
  if (!FinishConnect(c.target).ok()) {
    c.refused = true;  // Service closes it
    return;
  }
  c.connecting = false;
  c.forward.Attach(c.client, c.target);
  c.back.Attach(c.target, c.client);
  if (tap_ != nullptr) Tap(c);
}

// Segments that came before (the client's SYN and data sent before the accept, the
// target's SYN-ACK) are in the maps already: the tap kept them under their tuples.
void Relay::Loop::Tap(Connection& c) {
  auto from_client = ReceivedTuple(c.client);
  auto from_target = ReceivedTuple(c.target);
  if (!from_client.ok() || !from_target.ok()) return;  // a peer gone already: reads as without the tap
  c.from_client = *from_client;
  c.from_target = *from_target;
  c.tapped = true;
  c.forward.AttachMap(tap_->Register(c.from_client), tap_.get());
  c.back.AttachMap(tap_->Register(c.from_target), tap_.get());
}

void Relay::Loop::Service() {
  stats_.max_total_held_bytes = std::max(stats_.max_total_held_bytes, static_cast<int64_t>(total_held_));
  for (auto it = conns_.begin(); it != conns_.end();) {
    auto next = std::next(it);
    ServiceOne(it);  // may close (erase) it
    it = next;
  }
  // After every flush: bytes that left below the global cap let every connection read
  // again, also those served before them in this pass.
  for (auto& [id, c] : conns_) UpdateInterest(id, *c);
}

bool Relay::Loop::ServiceOne(ConnMap::iterator it) {
  Connection& c = *it->second;
  const int64_t now = NowNs();
  const LinkMode mode = ModeOf(c.link);
  if (mode == LinkMode::kCut) {
    ++stats_.links[c.link].cut;
    Close(it, true);
    return false;
  }
  if (mode == LinkMode::kBlackhole && !c.connecting) return true;  // holds what it has
  if (c.connecting) {
    if (!c.refused && now < c.connect_deadline_ns) return true;
    ++stats_.links[c.link].refused;
    Close(it, true);
    return false;
  }
  if (c.reset || c.forward.Flush(now) == RelayDirection::Io::kReset ||
      c.back.Flush(now) == RelayDirection::Io::kReset) {
    Close(it, true);
    return false;
  }
  if (c.forward.Done() && c.back.Done()) {
    Close(it, false);
    return false;
  }
  return true;
}

void Relay::Loop::UpdateInterest(uint64_t id, Connection& c) {
  if (!c.connecting && ModeOf(c.link) == LinkMode::kBlackhole) {  // no reads, no writes
    SetInterest(c.client, 0, Token(id, kClientFd), &c.client_events);
    SetInterest(c.target, 0, Token(id, kTargetFd), &c.target_events);
    return;
  }
  if (c.connecting) {
    SetInterest(c.target, Reactor::kWritable, Token(id, kTargetFd), &c.target_events);
    return;
  }
  const auto events = [](const RelayDirection& reader, const RelayDirection& writer) {
    return (reader.WantsRead() ? Reactor::kReadable : 0u) |
           (writer.WantsWrite() ? Reactor::kWritable : 0u);
  };
  SetInterest(c.client, events(c.forward, c.back), Token(id, kClientFd), &c.client_events);
  SetInterest(c.target, events(c.back, c.forward), Token(id, kTargetFd), &c.target_events);
}

// An fd with nothing to wait for is taken out of epoll: a half-closed socket would
// otherwise report EPOLLHUP on every wake-up.
void Relay::Loop::SetInterest(int fd, uint32_t events, uint64_t token, uint32_t* registered) {
  if (events == *registered) return;
  if (events == 0) {
    reactor_.Remove(fd);
  } else if (*registered == 0) {
    reactor_.Add(fd, events, token);
  } else {
    reactor_.Modify(fd, events, token);
  }
  *registered = events;
}

int64_t Relay::Loop::NextDeadline() const {
  int64_t deadline = INT64_MAX;
  for (int64_t resume : resume_ns_) {
    if (resume != 0) deadline = std::min(deadline, resume);
  }
  for (const auto& [id, c] : conns_) {
    if (c->connecting) {
      deadline = std::min(deadline, c->connect_deadline_ns);
    } else if (ModeOf(c->link) != LinkMode::kBlackhole) {  // a blackhole's chunks wait for the heal
      deadline = std::min({deadline, c->forward.NextDue(), c->back.NextDue()});
    }
  }
  return deadline;
}

void Relay::Loop::Close(ConnMap::iterator it, bool reset) {
  Connection& c = *it->second;
  for (auto [fd, registered] : {std::pair{c.client, &c.client_events},
                                std::pair{c.target, &c.target_events}}) {
    if (*registered != 0) reactor_.Remove(fd);
    reset ? CloseWithReset(fd) : (void)close(fd);
  }
  if (c.tapped) {
    tap_->Unregister(c.from_client);
    tap_->Unregister(c.from_target);
  }
  if (c.bound_port != 0) tap_->RemovePort(static_cast<uint16_t>(c.bound_port));
  conns_.erase(it);
}

Relay::Relay(std::unique_ptr<Loop> loop) : loop_(std::move(loop)) {}

Relay::~Relay() { Stop(); }

Result<std::unique_ptr<Relay>> Relay::Start(const RelayOptions& options) {
  Status s = Validate(options);
  if (!s.ok()) return s;
  auto loop = std::make_unique<Loop>(options);
  s = loop->ResolveTargets();
  if (!s.ok()) return s;
  s = loop->Bind();
  if (!s.ok()) return s;
  loop->StartThread();
  s = loop->SetRealtime();
  if (!s.ok()) return s;  // ~Loop stops the thread
  return std::unique_ptr<Relay>(new Relay(std::move(loop)));
}

int Relay::listen_port(size_t link) const { return loop_->port(link); }

RelayStats Relay::Snapshot() const { return loop_->Snapshot(); }

Status Relay::SetLinkMode(size_t link, LinkMode mode) { return loop_->SetMode(link, mode); }

void Relay::Stop() { loop_->Stop(); }

}  // namespace memstand

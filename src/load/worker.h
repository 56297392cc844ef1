// One load thread: an event loop (epoll, or io_uring with --io uring) driving `clients` logical clients with up to
// `pipeline` requests in flight each: closed loop (send on each reply) or open loop
// (send each request at its intended time from the client's Pacer; `pipeline` caps
// what is in flight, and a request held back by the cap keeps its intended time).
// A client has one connection, or with --cluster one per master, its requests routed
// by key slot, MOVED/ASK followed and TRYAGAIN retried (bounded). Owns its statistics; nothing it touches
// on the hot path is shared with other workers.
#pragma once

#include <atomic>
#include <cstdint>
#include <latch>
#include <memory>
#include <optional>
#include <queue>
#include <utility>
#include <vector>

#include "core/tls.h"
#include "core/uring.h"
#include "load/cluster_map.h"
#include "load/intervals.h"
#include "load/load_options.h"
#include "load/pool.h"
#include "load/proto_request.h"
#include "load/request_builder.h"
#include "load/run_stats.h"
#include "util/status.h"
#include "workload/command_mix.h"
#include "workload/value_pool.h"

namespace memstand {

/// Read-only for the whole run, shared by all workers; `stop` and `ready` excepted.
struct WorkerShared {
  const LoadOptions* options = nullptr;
  std::vector<RequestBuilder> builders;  // by command index
  /// Protocols other than RESP: the request of each command (by command index).
  std::vector<ProtoRequest> proto_requests;
  std::unique_ptr<ValuePool> values;
  std::unique_ptr<CommandMix> mix;
  /// Set by a signal handler or a failing worker: every worker stops sending and
  /// drains what is in flight, for at most drain_timeout_ms.
  std::atomic<bool> stop{false};
  /// Counted down once by every worker when its connections are ready (or failed),
  /// so the measured phase starts together.
  std::unique_ptr<std::latch> ready;
  /// Receives every worker's per-second statistics (may be null).
  IntervalCollector* intervals = nullptr;
  /// TLS (options->tls.enabled): the context every connection's session comes from.
  std::shared_ptr<const TlsContext> tls;
  /// --cluster: the slot map at the start (each worker updates its own copy).
  std::optional<SlotMap> cluster_map;
};

class Worker {
 public:
  Worker(WorkerShared* shared, int thread_index);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  /// Connects, runs the load and drains. Call once, from the thread that owns it.
  void Run();

  const ThreadStats& stats() const { return stats_; }
  /// The first connection failure, if any.
  const Status& failure() const { return failure_; }
  /// Requests sent but never answered (the drain ran out or a connection failed).
  uint64_t unanswered() const { return unanswered_; }
  /// Monotonic times of the measured phase: its start and its last measured reply.
  int64_t measure_start_ns() const { return measure_start_ns_; }
  int64_t measure_end_ns() const { return measure_end_ns_; }
  /// When the last measured request was first written (0: none).
  int64_t last_measured_send_ns() const { return last_measured_send_ns_; }

 private:
  struct Client;
  struct Conn;
  struct InFlight;

  Status OpenAll();
  Result<Conn*> OpenConn(Client& cl, int node);
  Status EnsureNode(int node);
  void AddReplicaNodes();
  Conn& Route(Client& cl, uint32_t cmd, uint64_t key, std::string_view data);
  bool FollowRedirect(Conn& c, const InFlight& f, const std::string& error);
  void Loop();
  void OnEvent(Conn& c, uint32_t events, int64_t now);
  void OnConnected(Conn& c);
  /// After the connect (and the TLS handshake): the protocol's set-up (RESP HELLO, AUTH,
  /// SELECT; the IPROTO greeting) or running.
  void StartSession(Conn& c);
  size_t ReadSome(Conn& c);
  /// The server closed the connection (err 0) or reading failed: fails it.
  void FailRead(Conn& c, int err);
  void OnReadable(Conn& c);
  /// Bytes received on c's socket, in order (both transports): through TLS if it has
  /// it, then to Deliver.
  void Receive(Conn& c, const char* p, size_t n);
  void ReceiveTls(Conn& c, const char* p, size_t n);
  /// TLS: c.out's plaintext (once the handshake is done) encrypted into c.tls_out; false
  /// when that failed (c is then failed).
  bool Seal(Conn& c);
  /// Plaintext received on c, in order: to the protocol session.
  void Deliver(Conn& c, const char* p, size_t n);
  /// RESP replies in p[0, n): parsed and handled (Deliver's RESP path).
  [[gnu::always_inline]] inline void OnBytes(Conn& c, const char* p, size_t n);
  void HandleReply(Conn& c, int64_t now);
  void Fill(Client& cl, int64_t now);
  void Flush(Conn& c);
  void QueueFlush(Conn& c);
  void FlushQueued();
  /// After a request is encoded into c.out: queues the write, counts it in flight and
  /// sent, and (measured) its bytes, send lag and the budget.
  [[gnu::always_inline]] inline void CountSent(Client& cl, Conn& c, uint32_t cmd, size_t bytes,
                                               bool measured, int64_t now, int64_t intended);
  /// The server a connection talks to, for messages: its cluster node, else its
  /// client's target (a pool member or the only target).
  std::string Peer(const Conn& c) const;
  void Fail(Conn& c, const Status& why);
  void Close(Conn& c);
  void SendOne(Client& cl, int64_t now, int64_t intended);
  void Reschedule(Client& cl);
  void SendDue(int64_t now);
  int64_t WaitTimeoutNs(int64_t now);
  /// Fails the connections past their set-up or oldest request's deadline; sets
  /// next_deadline_ns_, which bounds every wait of the loop.
  void CheckTimeouts(int64_t now);
  void StartPacers(int64_t start);
  void MaybeEnterMeasuredPhase(int64_t now);
  void EnterMeasuredPhase(int64_t now);
  void FinishMeasuredPhase();
  void RollInterval(int64_t now, bool last);
  bool MayStillSend(const Client& cl, int64_t now) const;
  bool CanSend(const Client& cl, int64_t now) const;
  bool Busy() const;
  bool Finished() const;
  // Protocols other than RESP (the end of worker.cc), each behind one branch of the RESP path.
  void StartSessionOther(Conn& c);
  void OnBytesOther(Conn& c, const char* p, size_t n);
  bool FeedGreeting(Conn& c, const char** p, size_t* left);
  void HandleReplyOther(Conn& c, int64_t now);
  void RecordOther(const InFlight& f, const ProtoReply& r, int64_t now);
  void SendOneOther(Client& cl, int64_t now, int64_t intended);
  int64_t OldestSent(const Conn& c) const;
  // --io uring (worker_transport.cc): the measured loop's I/O as completions.
  void SwitchToUring(std::unique_ptr<Uring> ring);
  /// One io_uring_enter: submits the queued sends, handles every completion; *now: the
  /// time they were taken. False when the ring failed (the run stops).
  bool WaitCompletions(int64_t timeout_ns, int64_t* now);
  void OnReceived(Conn& c, const Uring::Completion& e, int64_t now);
  void SendQueued(Conn& c);
  void SendRest(Conn& c);  // a send of what `sending` holds
  void OnSent(Conn& c, int result);

  WorkerShared* shared_;
  const LoadOptions& opt_;
  int thread_index_;
  std::vector<std::unique_ptr<Client>> clients_;
  std::vector<std::unique_ptr<Conn>> conns_;  // every client's, in opening order
  SlotMap map_;                               // --cluster: this worker's view
  bool cluster_ = false;
  const size_t depth_;  // requests in flight per client: --pipeline (x masters with --cluster)
  std::vector<std::vector<int>> replicas_of_;  // --read-from-replicas: by master node
  std::vector<bool> is_replica_;               // by node index
  const Protocol proto_;
  std::string scratch_, scratch2_;  // other protocols: keys and values rendered per request
  ProtoReply proto_reply_;          // other protocols: the reply being handled
  ThreadStats stats_;
  std::vector<CommandStats> interval_;  // this second's statistics, by command
  int interval_index_ = 0;
  int64_t next_interval_ns_ = INT64_MAX;
  Status failure_;
  uint64_t unanswered_ = 0;
  std::vector<char> read_buf_;
  std::vector<Conn*> flush_queue_;  // connections with bytes to write after this wake-up
  /// Open loop: (intended time, client index) of clients waiting for their next send
  /// time. An entry is live while it equals its client's due_queued; others are stale.
  using Due = std::pair<int64_t, uint32_t>;
  std::priority_queue<Due, std::vector<Due>, std::greater<Due>> due_;
  std::vector<Client*> due_now_;  // SendDue's scratch list
  const bool open_loop_;
  bool measuring_ = false;
  bool measure_done_ = false;
  bool stopping_ = false;
  bool started_ = false;    // the common start has passed
  uint64_t budget_left_ = 0;  // requests mode: measured requests not yet sent
  uint64_t in_flight_ = 0;    // data and setup requests awaiting replies
  int64_t warmup_end_ns_ = 0;
  int64_t measure_end_deadline_ns_ = 0;  // duration mode
  int64_t drain_deadline_ns_ = 0;
  /// No connection's set-up or request deadline is earlier (a lower bound, so the
  /// hot path keeps nothing up to date: CheckTimeouts and OpenConn lower or set it).
  int64_t next_deadline_ns_ = INT64_MAX;
  int64_t measure_start_ns_ = 0;
  int64_t measure_end_ns_ = 0;
  int64_t last_measured_send_ns_ = 0;
  double cpu_user_start_ = 0, cpu_sys_start_ = 0;
  int open_conns_ = 0;
  class ReactorHolder;
  std::unique_ptr<ReactorHolder> reactor_;
  /// --io uring, from the common start on; declared after conns_ so that it goes first
  /// (its sends may point into their buffers).
  std::unique_ptr<Uring> uring_;
  std::vector<Uring::Completion> completions_;
};

}  // namespace memstand

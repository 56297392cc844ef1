// One load thread: an event loop (epoll, or io_uring with --io uring) driving `clients` logical clients with up to
// `pipeline` requests in flight each: closed loop (send on each reply) or open loop
// (send each request at its intended time from the client's Pacer; `pipeline` caps
// what is in flight, and a request held back by the cap keeps its intended time).
// A client has one connection, or with --cluster one per master, its requests routed
// by key slot, MOVED/ASK followed and TRYAGAIN retried (bounded). Owns its statistics; nothing it touches
// on the hot path is shared with other workers.
//
// The worker is written once for every protocol: Worker<Session> is a template over a
// protocol's session (load/session.h), which encodes requests, tags them and
// says what each reply means; the engine picks the session once. WorkerBase holds what
// does not depend on it (the engine's view of a thread, its clients, phases and
// statistics, the sockets' reads and writes), compiled once.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <latch>
#include <memory>
#include <mutex>
#include <optional>
#include <queue>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/pacer.h"
#include "core/tls.h"
#include "core/uring.h"
#include "history/history_format.h"
#include "history/record.h"
#include "history/value_tag.h"
#include "load/cluster_map.h"
#include "load/history_log.h"
#include "load/intervals.h"
#include "load/load_options.h"
#include "load/pool.h"
#include "load/run_stats.h"
#include "load/session.h"
#include "util/status.h"
#include "workload/command_mix.h"
#include "workload/value_pool.h"

namespace memstand {

/// Read-only for the whole run, shared by all workers; `stop` and `ready` excepted.
struct WorkerShared {
  const LoadOptions* options = nullptr;
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
  /// --cluster: a worker that lost a master's connection, got CLUSTERDOWN, or met a
  /// MOVED storm (NoteMoved) sets refresh_wanted; the engine reads the slot map again
  /// into latest_map (under map_mu) and bumps map_version; each worker adopts it in its
  /// loop. A MOVED storm also sets refresh_for_moved (before refresh_wanted), so that
  /// the read is counted as one a storm asked for.
  /// A Sentinel target or an RW pool: the same for the primary: a worker that lost a
  /// connection to the primary it knows, or got READONLY (ER_READONLY), sets
  /// refresh_wanted; the engine asks the Sentinels (the members) and, when the primary moved, appends it to `primaries` (under map_mu)
  /// and bumps map_version.
  std::atomic<bool> refresh_wanted{false};
  std::atomic<bool> refresh_for_moved{false};
  std::atomic<uint64_t> map_version{0};
  std::mutex map_mu;
  SlotMap latest_map;
  /// A Sentinel target or an RW pool: every primary of the run, the current one last (the first one
  /// before the workers start). Never shrinks, and a deque keeps its elements in place,
  /// so a worker's pointer to one stays valid for the run.
  std::deque<RedisTarget> primaries;
  /// --history: where every operation is recorded (null: off), and what each command
  /// is to a register (by command index).
  HistoryLog* history = nullptr;
  std::vector<history::Op> history_ops;
  /// Tarantool: the tuple field a read's value is in (HistoryPlan::value_field).
  uint16_t history_value_field = 0;
};

/// What the engine sees of a load thread, and the parts of it that do not depend on
/// the protocol.
class WorkerBase {
 public:
  virtual ~WorkerBase();
  WorkerBase(const WorkerBase&) = delete;
  WorkerBase& operator=(const WorkerBase&) = delete;

  /// Connects, runs the load and drains. Call once, from the thread that owns it.
  virtual void Run() = 0;

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
  /// When the measured phase ended: its planned end (a duration), else its last check.
  int64_t measure_finish_ns() const { return measure_finish_ns_; }

 protected:
  struct Client;
  struct ConnIo;
  struct InFlight;
  class ReactorHolder;

  WorkerBase(WorkerShared* shared, int thread_index);

  // Clients, phases and statistics (worker_phase.cc).
  /// The thread's logical clients: their key streams, budgets and targets.
  void MakeClients();
  void AddReplicaNodes();
  void EnterMeasuredPhase(int64_t now);
  void FinishMeasuredPhase();
  void RollInterval(int64_t now, bool last);
  bool MayStillSend(const Client& cl, int64_t now) const;
  /// Open loop, measured phase: whether `schedule` (a client's or the thread's) still
  /// has requests to send.
  bool ScheduleMaySend(const Pacer& schedule, int64_t now) const;
  /// Open loop, at the measured phase's end: the requests `schedule`, at `rate_per_s`,
  /// intended before the end and never sent (exact for constant arrivals, the expected
  /// count for Poisson ones).
  uint64_t UnsentOf(const Pacer& schedule, double rate_per_s) const;
  /// --cluster, closed loop, --pipeline > 1: a client sends its window and sends again
  /// once every reply has come, so that each master's connection gets its requests in
  /// batches (worker_transport.cc says why).
  bool WaitsForItsWindow(const Client& cl) const;
  bool CanSend(const Client& cl, int64_t now) const;
  bool Finished() const;
  void StartPacers(int64_t start);
  void Reschedule(Client& cl);
  /// Open loop: how long the loop may wait for events, to the next send time (--spin:
  /// to the spin before it, then 0); sets spinning_.
  int64_t WaitTimeoutNs(int64_t now);
  /// --spin: a poll made while spinning (`from` the loop's time before it, `to` after)
  /// brought nothing: counted, with its time, in the measured phase.
  void NoteSpin(int64_t from, int64_t to);
  /// --realtime: puts this thread (the calling one, no other) on SCHED_FIFO.
  Status EnterRealtime();
  /// --cpus: pins this thread to its CPU (LoadOptions::cpus); either way records the
  /// CPUs it may run on, read back from the kernel, in its stats.
  Status PinCpus();
  /// Open loop: the clients whose send time has come, taken off the schedule.
  const std::vector<Client*>& TakeDue(int64_t now);
  /// --schedule per-thread: whether the thread's schedule has requests left to send in
  /// this phase (MayStillSend's rule for a client's), and the client the requests due
  /// now go to: the one in turn while it has room, else the next with room (one down
  /// only when all are: its requests then fail unsent); null when every one that is up
  /// is full (the requests wait for a reply).
  bool ThreadMayStillSend(int64_t now) const;
  bool MaySendFor(const Client& c) const;
  bool HasBudget(const Client& c) const;
  Client* NextSender();
  /// The server a connection talks to, for messages: its cluster node, else the target
  /// it was dialed to (a pool member, the only target, a Sentinel target's primary).
  std::string Peer(const ConnIo& c) const;
  /// The peer's address alone ("host:port", or a Unix socket's path): the node a history
  /// names, the same form for every target kind and for a cluster's nodes.
  std::string PeerAddress(const ConnIo& c) const;
  /// The target a client's connection to `node` goes to: with --balance per-request
  /// pool member `node`, else the client's (with --cluster, the seed's credentials).
  inline const RedisTarget& TargetOf(const Client& cl, int node) const;  // worker_conn.h
  /// After a request is encoded into c.out: queues the write, counts it in flight and
  /// sent, and (measured) its bytes, send lag and the budget.
  [[gnu::always_inline]] inline void CountSent(Client& cl, ConnIo& c, uint32_t cmd, size_t bytes,
                                               bool measured, int64_t now, int64_t intended);
  /// The one place an operation ends: its client's window, the counts over every reply
  /// and, when measured, its latency, bytes, error kind or hit, sample and second. (A
  /// request lost with its connection is to end here too, with no reply: not yet.)
  [[gnu::always_inline]] inline void Complete(Client& cl, const InFlight& f, const ReplyView& r,
                                              int64_t now);
  /// --reconnect: the operation ends with no reply: in flight when its connection was
  /// lost (reached: its bytes may have reached the server: a write ends unknown, else
  /// fail), or due while its connection was down (Unsent: fail, never sent).
  void CompleteLost(Client& cl, const InFlight& f, bool reached, int64_t now);
  void Unsent(Client& cl, uint32_t cmd, bool measured, int64_t now);
  /// A measured operation of `cmd` ended fail or unknown: counted in s (this second's
  /// statistics of cmd) and in the command's outage span, opened if need be. An ok one
  /// closes the span if one is open (OutageEnd).
  void NotOk(CommandStats& s, uint32_t cmd, bool unknown, int64_t now);
  void OutageOpen(uint32_t cmd, int64_t now);
  [[gnu::noinline, gnu::cold]] void OutageEnd(uint32_t cmd, int64_t now);
  /// --reconnect: a connection that was up is lost (counted; its client waits for it);
  /// then, whether it was that or a failed attempt, its next attempt is scheduled, or
  /// the run fails once --reconnect-attempts ran out.
  void NoteLoss(ConnIo& c, const Status& why);
  void ScheduleReopen(ConnIo& c, const Status& why, int64_t now);
  /// A reopened connection is set up: its client may send again.
  void NoteUp(ConnIo& c);
  /// --cluster: a MOVED reply says `slot` is served by `node`: counted, and the
  /// worker's map corrected; the 5th slot corrected (kMovedPerMapRead) since the map it
  /// adopted last asks the engine to read the whole map again (a MOVED storm).
  void NoteMoved(int slot, int node);
  /// A Sentinel target: the engine's newest primary, under map_mu (map_version_seen_ set).
  const RedisTarget* LatestPrimary();
  /// A Sentinel target: the engine published a new primary: every client's target
  /// becomes it; a connection up (or opening) to another address is failed as a lost
  /// one (what it had in flight ends with no reply; without --reconnect the run ends),
  /// and every connection waiting for its next attempt makes it now, to the new primary.
  [[gnu::noinline, gnu::cold]] void AdoptPrimary();
  /// A Sentinel target, c lost or an attempt failed: when c went to the primary its
  /// client knows (not one the engine already replaced), the engine asks again.
  void MaybeAskForPrimary(const ConnIo& c);
  /// c is down (lost) or up again: counted in its client's `down` and `waits`.
  void SetDown(ConnIo& c, bool down);
  /// Fails c: the run stops; what c had in flight is counted unanswered. Off the hot
  /// path (the only virtual calls of a worker).
  virtual void Fail(ConnIo& c, const Status& why) = 0;
  /// Requests c waits for replies to, set-up included.
  virtual uint64_t Pending(const ConnIo& c) const = 0;
  /// An error reply to cmd that leaves the operation unknown rather than failed: an
  /// indefinite error, or one that may follow part of a script's effect (not a read's).
  bool EndsUnknown(uint32_t cmd, const ReplyView& r) const {
    const CommandTraits& t = traits_[cmd];
    return !t.read && (r.indefinite || t.partial_on_error);
  }
  /// An operation of cmd that ended with no reply: unknown when its request may have
  /// reached the server (`reached`) and it writes; else failed (a read does nothing).
  bool LostEndsUnknown(uint32_t cmd, bool reached) const { return reached && !traits_[cmd].read; }
  /// Fail's bookkeeping: `data` of c's requests were counted in in_flight_.
  void CountFailure(ConnIo& c, const Status& why, uint64_t data);
  bool Busy() const;

  // --history (worker_history.cc; the steps of every operation in line, worker_conn.h):
  // each operation's record. Off the hot path: the callers test history_ first.
  /// `n` processes more, each with a new client id, at their first operation: the first
  /// one's index (a connection's ring's, one per slot).
  [[gnu::cold]] uint32_t HistoryNewProcesses(size_t n);
  /// --cluster: the process of an operation a redirect sends on again: its state moves
  /// to a new index, which the operation takes, and the slot it leaves gets a process
  /// with a new client id (the slot runs its next operation while this one is in flight).
  [[gnu::cold]] uint32_t HistoryMoveProcess(uint32_t process);
  /// A write's value with its process's tag over its start, in stamp_ (valid until the
  /// next call): for a request that holds its value encoded (etcd), or a redirect's.
  std::string_view HistoryStamp(uint32_t process, std::string_view value);
  /// The process's tag over the start of a write's value where it lies (in its request,
  /// once written: RESP, memcached, Tarantool).
  struct HistoryProcess;
  [[gnu::always_inline]] inline void HistoryStampAt(const HistoryProcess& p, char* value);
  /// A request of cmd that could not be sent (its connection closed): it ends failed,
  /// `why`, in the thread's process for such requests (each ends as it begins, so one
  /// runs them all); then Unsent.
  [[gnu::cold]] void HistoryUnsent(Client& cl, uint16_t node, uint32_t cmd, uint64_t key, bool measured,
                                   int64_t now, int64_t intended, std::string_view why);
  /// The operation f ended: its record, from its reply (an error or what a read saw).
  /// `last_value()`: the session's last_value(), asked for a read's reply only.
  template <class LastValue>
  [[gnu::always_inline]] inline void HistoryReply(const ConnIo& c, const InFlight& f, const ReplyView& r,
                                                  LastValue last_value, int64_t now);
  /// The operation f ended with no reply: `unknown`, or failed; `why` the error kind.
  void HistoryNoReply(uint16_t node, const InFlight& f, bool unknown, std::string_view why, int64_t now);
  /// The record of f, an ok write (`tail`: history::format::TailV2's), in a history
  /// without extras (closed loop, not etcd: history_write_ok_ says so): in line, the
  /// record's 40 bytes stored at once (worker_conn.h).
  [[gnu::always_inline]] inline void HistoryRecordWrite(const InFlight& f, uint64_t tail, int64_t now);
  /// Any other record of f: `tail` (TailV2, its extras byte 0), `unknown` when its
  /// outcome is (its process then takes a new client id), what a read saw or a cas
  /// expected (`value`, 0: none), etcd's revision (0: none); open loop's intended time
  /// added.
  void HistoryRecordAny(const InFlight& f, uint64_t tail, bool unknown, uint64_t value, int64_t now,
                        int64_t revision = 0);
  [[gnu::cold]] uint16_t HistoryError(std::string_view error);
  [[gnu::cold]] void HistoryErrorReply(const ConnIo& c, const InFlight& f, const ReplyView& r, int64_t now);
  /// HistoryReply's error reply, read, or write whose record has extras (etcd's
  /// revision, open loop's intended time); `value_read`: what a read read. Out of line,
  /// so that a plain write's record calls nothing and saves no register
  /// (bench/README.md).
  [[gnu::noinline]] void HistoryReplyOther(const ConnIo& c, const InFlight& f, const ReplyView& r,
                                           std::string_view value_read, int64_t now);
  /// The full batch handed to the log, an empty one taken.
  [[gnu::cold]] [[gnu::noinline]] void HistoryHand();
  history::Seen HistorySaw(const ReplyView& r, std::string_view value_read, uint64_t* value) const;
  /// The last records handed to the log (the end of Run).
  void HistoryHandLast();

  // Socket reads and writes (worker_transport.cc): bytes only, never their meaning.
  /// Reads what c's socket has into read_buf_: the byte count, or 0 when there is
  /// nothing to parse (it would block, or the connection failed and Fail ran).
  inline size_t ReadSome(ConnIo& c);  // worker_conn.h
  /// The server closed the connection (err 0) or reading failed: fails it.
  void FailRead(ConnIo& c, int err);
  /// TLS: c.out's plaintext (once the handshake is done) encrypted into c.tls_out; false
  /// when that failed (c is then failed).
  bool Seal(ConnIo& c);
  void Flush(ConnIo& c);
  inline void QueueFlush(ConnIo& c);  // worker_conn.h
  void FlushQueued();
  void Close(ConnIo& c);
  /// Gives back the buffers (out, the send in flight's, TLS's) of every connection that
  /// received nothing since the last call and has nothing in flight or to write: an
  /// idle connection holds no buffer memory. Called every loop tick (100 ms), so a busy
  /// connection keeps its buffers and allocates nothing per request.
  void ReleaseIdleBuffers();
  /// Watches c, just opened (its non-blocking connect under way), for the connect's end:
  /// over epoll before the common start, through the ring after it under --io uring,
  /// so a connection opened mid-run (a --cluster redirect to a new master, a reconnect)
  /// connects, sets up and runs like the others whichever transport runs.
  Status WatchNewConnection(ConnIo& c);
  /// c's connect succeeded: its bytes are received from now on (epoll: readable
  /// events; io_uring: a multishot receive).
  void WatchConnected(ConnIo& c);
  /// --io uring: the poll of c's connect came back with `result`; false when it failed
  /// (c is then failed).
  [[gnu::cold]] bool ConnectPolled(ConnIo& c, int result);
  // --io uring: the measured loop's I/O as completions.
  /// Sockets the ring is sized for (more still work: core/uring.h).
  size_t RingSockets() const;
  void SwitchToUring(std::unique_ptr<Uring> ring);
  void ArmRecv(ConnIo& c);
  /// The connection a completion's token names, or null when it is closed or the token
  /// was a predecessor's in its slot (late and cancelled completions).
  inline ConnIo* TokenConn(uint32_t token) const;  // worker_conn.h
  void SendQueued(ConnIo& c);
  [[gnu::always_inline]] inline void SendRest(ConnIo& c);  // a send of what `sending` holds
  void OnSent(ConnIo& c, int result);

  WorkerShared* shared_;
  const LoadOptions& opt_;
  int thread_index_;
  std::vector<std::unique_ptr<Client>> clients_;
  std::vector<std::unique_ptr<ConnIo>> conns_;  // every client's, in opening order
  SlotMap map_;                                 // --cluster: this worker's view
  bool cluster_ = false;
  /// A Sentinel target or an RW pool (target.follows_primary()): clients' targets are
  /// the engine's primaries (WorkerShared).
  bool primary_target_ = false;
  /// --cluster, a Sentinel target or an RW pool: the engine publishes where the data is (map_version).
  bool follows_ = false;
  bool per_request_ = false;  // --balance per-request over a pool
  /// Neither, and the closed loop: Route takes a client's only connection without a
  /// test of its state, as it runs whenever Fill lets its client send (it does not wait
  /// for it and has not failed). Measured: 2 instructions a request less (RESP pipeline
  /// 1, bench/README.md, issue #28).
  bool direct_ = false;
  const size_t depth_;  // requests in flight per client: --pipeline (x masters with --cluster)
  std::vector<std::vector<int>> replicas_of_;  // --read-from-replicas: by master node
  std::vector<bool> is_replica_;               // by node index
  ThreadStats stats_;
  std::vector<CommandStats> interval_;  // this second's statistics, by command
  int interval_index_ = 0;
  int64_t next_interval_ns_ = INT64_MAX;
  Status failure_;
  uint64_t unanswered_ = 0;
  std::vector<char> read_buf_;
  std::vector<ConnIo*> flush_queue_;  // connections with bytes to write after this wake-up:
  size_t flushes_ = 0;                // the first flushes_, a place for every connection
  /// Open loop: (intended time, client index) of clients waiting for their next send
  /// time. An entry is live while it equals its client's due_queued; others are stale.
  using Due = std::pair<int64_t, uint32_t>;
  std::priority_queue<Due, std::vector<Due>, std::greater<Due>> due_;
  std::vector<Client*> due_now_;  // TakeDue's list
  const bool open_loop_;
  /// --schedule per-thread: the thread's schedule (the clients have none), the client
  /// whose connection takes the requests due at this wake-up, whether the last SendDue
  /// stopped with requests due and no client with room (the loop then waits for a
  /// reply, not for the next send time).
  std::optional<Pacer> thread_pacer_;
  uint32_t sender_ = 0;
  bool senders_full_ = false;
  bool measuring_ = false;
  bool measure_done_ = false;
  bool stopping_ = false;
  bool started_ = false;    // the common start has passed
  uint64_t budget_left_ = 0;  // requests mode: measured requests not yet sent
  uint64_t in_flight_ = 0;    // data requests (and ASKING) awaiting replies
  int setups_ = 0;            // connections whose session's set-up is under way
  int64_t warmup_end_ns_ = 0;
  int64_t measure_end_deadline_ns_ = 0;  // duration mode
  int64_t drain_deadline_ns_ = 0;
  /// No connection's set-up or request deadline is earlier, nor next_reopen_ns_, so
  /// that the loop tests one time for both (a lower bound, so the hot path keeps
  /// nothing up to date: CheckTimeouts, Dial and ScheduleReopen lower or set it).
  int64_t next_deadline_ns_ = INT64_MAX;
  int64_t measure_start_ns_ = 0;
  int64_t measure_end_ns_ = 0;
  int64_t last_measured_send_ns_ = 0;
  int64_t measure_finish_ns_ = 0;
  double cpu_user_start_ = 0, cpu_sys_start_ = 0;
  /// --spin: the next wait is a poll because a send is due within the spin (WaitTimeoutNs),
  /// and the time such polls that brought nothing took in the measured phase.
  bool spinning_ = false;
  int64_t spin_ns_ = 0;
  int open_conns_ = 0;
  /// By command index: a GET-like read (its lost or indefinite errors are fail, not
  /// unknown) and whether an error may follow part of its effect (unknown).
  struct CommandTraits {
    bool read = false;
    bool partial_on_error = false;
  };
  std::vector<CommandTraits> traits_;
  /// Measured phase, by command: the outage span under way, if open.
  struct OutageTrack {
    bool open = false;
    OutageSpan span;
  };
  std::vector<OutageTrack> outage_;
  /// How many of them are open: an ok reply reads this, not its command's track (one
  /// load less per reply).
  uint32_t outages_open_ = 0;
  /// --reconnect: the closed connections waiting for their next attempt.
  std::vector<ConnIo*> reopen_;
  int64_t next_reopen_ns_ = INT64_MAX;
  uint64_t map_version_seen_ = 0;
  int moved_since_map_ = 0;  // slots NoteMoved corrected since the map adopted last
  Rng backoff_rng_;
  /// --history (null: off). A connection runs its operations in processes, one per slot
  /// of its ring (ConnIo::history_procs), so each has one operation in flight at most
  /// (Jepsen's processes): (id, seq) names a write's value; a process whose operation
  /// ends unknown takes a new id.
  HistoryLog* history_ = nullptr;
  const history::Op* history_op_ = nullptr;  // what each command is: shared_->history_ops
  /// By command: the TailV2 of its ok reply without the node, for a write or a cas
  /// whose record has no extras (closed loop, not etcd); 0 for a read, and for every
  /// command where records have extras. A reply tests it for whether its record is such
  /// a write's, and takes it (HistoryRecordWrite).
  std::vector<uint64_t> history_write_ok_;
  static constexpr uint32_t kNoProcess = UINT32_MAX;
  struct HistoryProcess {
    /// The value tag of its next operation, whole (history::StampValueTag's 16 bytes):
    /// a write copies it over its value (one 16-byte load and store), a record takes its
    /// (client, seq) from it at once (history::TagIdsOf), and the next seq's is one add
    /// (history::NextSeqTag).
    alignas(8) char tag[history::kValueTagSize] = {};
  };
  /// Every connection's processes, by InFlight::process: one vector, so that an
  /// operation finds its process with one load (bench/README.md).
  std::vector<HistoryProcess> history_procs_;
  uint32_t history_unsent_ = kNoProcess;  // the process of requests never sent (HistoryUnsent)
  /// A process with a new client id, at its first operation.
  [[gnu::cold]] HistoryProcess HistoryFreshProcess();
  int64_t history_t0_ = 0;  // the records' time 0 (HistoryLog::start_ns)
  uint32_t history_run_tag_ = 0;  // HistoryLog::run_tag
  HistoryLog::Batch history_batch_;
  std::unordered_map<std::string, uint16_t> history_errors_;  // error kind -> string id
  std::vector<char> stamp_;  // a write's value being stamped (HistoryStamp)
  std::unique_ptr<ReactorHolder> reactor_;
  /// --io uring, from the common start on; declared after conns_ so that it goes first
  /// (its sends may point into their buffers). A connection closed before (Close)
  /// has its requests cancelled synchronously first, so its buffers may then go.
  std::unique_ptr<Uring> uring_;
  std::vector<Uring::Completion> completions_;
};

/// A load thread speaking one protocol: Session is RespSession, MemcacheSession,
/// EtcdSession or IprotoSession (load/*_session.h), instantiated in worker.cc.
template <LoadSession Session>
class Worker final : public WorkerBase {
 public:
  using Request = typename Session::Request;
  /// `requests`: one per command (by command index), shared by the workers; outlives them.
  Worker(WorkerShared* shared, const std::vector<Request>* requests, int thread_index);
  ~Worker() override;

  void Run() override;

 private:
  struct Conn;
  Conn& conn(size_t slot) { return static_cast<Conn&>(*conns_[slot]); }
  Conn& conn(const Client& cl, int node);

  Status OpenAll();
  Result<Conn*> OpenConn(Client& cl, int node);
  SessionConfig SessionFor(const Client& cl, int node, size_t slots);
  Status Dial(Conn& c, int64_t now);
  Status EnsureNode(int node);
  /// Loop and OnEvent stay out of line, as before the template: put in line with their
  /// callers, they left the compiler no room for their own callees (the epoll wait, the
  /// read), which then cost a call each (bench/count_instructions.sh).
  [[gnu::noinline]] void Loop();
  [[gnu::noinline]] void OnEvent(Conn& c, uint32_t events, int64_t now);
  /// Off the hot path (out of line, so that WaitCompletions' receive path stays as it was).
  [[gnu::noinline, gnu::cold]] void OnConnected(Conn& c);
  /// After the connect (and the TLS handshake): the session's set-up, written ahead of
  /// anything a redirect buffered meanwhile.
  void StartSession(Conn& c);
  void OnReadable(Conn& c);
  /// Bytes received on c's socket, in order (both transports): through TLS if it has
  /// it, then to Deliver.
  void Receive(Conn& c, const char* p, size_t n);
  void ReceiveTls(Conn& c, const char* p, size_t n);
  /// Plaintext received on c, in order: fed to its session, each reply handled. With
  /// --history, by DeliverAs<true>, its own copy, so that each reply's record is made in
  /// line there while the path without the history tests for it once a read, not once a
  /// reply (bench/README.md, "The history's cost").
  void Deliver(Conn& c, const char* p, size_t n);
  template <bool kHistory>
  [[gnu::always_inline]] inline void DeliverAs(Conn& c, const char* p, size_t n);
  /// A reply to request r.tag: redirected (--cluster) or completed (and recorded).
  template <bool kHistory>
  [[gnu::always_inline]] inline void OnReply(Conn& c, const ReplyView& r, int64_t now);
  bool FollowRedirect(Conn& c, const InFlight& f, std::string_view error);
  /// --history: the replies delivered, each recorded (DeliverAs<true>). Not cold: that
  /// would compile it for size, its record's helpers called (+30 a request when the
  /// record had a function of its own, HistoryReplied: bench/README.md, 2026-12-03).
  [[gnu::noinline]] void DeliverRecorded(Conn& c, const char* p, size_t n);
  void Fill(Client& cl, int64_t now);
  /// One request drawn, appended and put in flight, in one piece (flatten): its helpers
  /// (the value pool's Pick, the encoder) are called from every protocol's worker, so
  /// the compiler would no longer put them in line by itself.
  [[gnu::flatten]] void SendOne(Client& cl, int64_t now, int64_t intended);
  /// The drawn request appended to c and put in flight (`pooled`: its value as drawn,
  /// `process`: its history's process, 0 without one; `slot_process`: it runs in its
  /// slot's process instead, Put). Returns its slot in c.ring.
  [[gnu::always_inline]] inline uint64_t Emit(Client& cl, Conn& c, uint32_t cmd, const Draw& d,
                                              std::string_view pooled, uint32_t process, bool measured,
                                              int64_t now, int64_t intended, bool slot_process = false);
  /// --history: SendOne's end for a recorded request.
  [[gnu::always_inline]] inline void SendRecorded(Client& cl, Conn& c, uint32_t cmd, const Draw& d,
                                                  bool measured, int64_t now, int64_t intended);
  /// SendRecorded where a request holds its value as it is: stamped in the request.
  [[gnu::always_inline]] inline void SendStamped(Client& cl, Conn& c, uint32_t cmd, const Draw& d,
                                                 bool measured, int64_t now, int64_t intended);
  /// SendStamped out of line, where S::kRecordedApart says SendOne would grow too much
  /// with it in line. The draw by value, as SendRecordedCopy's: by reference, SendOne
  /// kept it in memory for the call (+8 instructions a request for Tarantool, history off).
  [[gnu::noinline, gnu::flatten]] void SendStampedApart(Client& cl, Conn& c, uint32_t cmd, Draw d, bool measured,
                                                        int64_t now, int64_t intended);
  /// SendRecorded where a request holds its value encoded (S::kValueVerbatim false): a
  /// stamped copy sent. Out of line, so that these protocols' SendOne stays as small as
  /// without the history (put in line, it kept SendOne out of Fill: +18 instructions a
  /// request for Tarantool, history off).
  [[gnu::noinline, gnu::cold]] void SendRecordedCopy(Client& cl, Conn& c, uint32_t cmd, Draw d, bool measured,
                                                     int64_t now, int64_t intended);
  Conn& Route(Client& cl, uint32_t cmd, const Draw& d);
  Conn& SlotOwner(Client& cl, uint32_t cmd, const Draw& d);
  Conn& NextMember(Client& cl);
  /// Puts f in flight on c under its tag, the slots doubled when they are all taken;
  /// `slot_process` (--history): in the process of the slot it takes (its process set
  /// here, after a Grow gave the ring new slots). Returns the slot.
  [[gnu::always_inline]] inline uint64_t Put(Conn& c, uint64_t tag, InFlight f, bool slot_process = false);
  /// Only redirects and ASKING put more in flight than a client's window: the slots double
  /// (--history: with a process each, new ones; those in flight keep theirs).
  [[gnu::noinline, gnu::cold]] void Grow(Conn& c);
  void Fail(ConnIo& c, const Status& why) final;
  /// --reconnect: c is lost (or an attempt to reopen it failed): what it had in flight
  /// ends, its session forgets the connection, and it waits for its next attempt.
  void Lose(Conn& c, const Status& why);
  /// ReopenDue and AdoptMap are kept out of Loop (noinline, cold): put in line, they
  /// gave it a frame pointer (AdoptMap's copy of the slot map is 32 KB of stack) and
  /// cost ~2 instructions a wake-up (bench/count_instructions.sh).
  [[gnu::noinline, gnu::cold]] void ReopenDue(int64_t now);
  void HistoryEndInFlight();
  /// --cluster: the engine's newer slot map: new masters get connections, and the
  /// down connections to nodes that serve no slot any more are given up.
  [[gnu::noinline, gnu::cold]] void AdoptMap();
  void GiveUp(Conn& c);
  /// Ends what c has in flight (no reply), closes it and forgets the connection.
  void Drop(Conn& c, int64_t now);
  void Reopen(Conn& c, int64_t now);
  /// The set-up of c is through: it runs (and a reopened connection is up again).
  void Running(Conn& c);
  uint64_t Pending(const ConnIo& c) const final;
  void SendDue(int64_t now);
  void SendDueTogether(int64_t now);
  void MaybeEnterMeasuredPhase(int64_t now);
  /// Fails the connections past their set-up or oldest request's deadline; sets
  /// next_deadline_ns_, which bounds every wait of the loop.
  void CheckTimeouts(int64_t now);
  int64_t OldestSent(const Conn& c) const;
  /// --io uring: one io_uring_enter submits the queued sends and handles every
  /// completion; *now: the time they were taken. False when the ring failed.
  bool WaitCompletions(int64_t timeout_ns, int64_t* now);
  void OnReceived(Conn& c, const Uring::Completion& e, int64_t now);

  const std::vector<Request>& requests_;
};

}  // namespace memstand

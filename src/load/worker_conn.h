// The Worker's per-connection and per-client state (load/worker.h), shared by the files
// that implement it: worker.cc (the loop over a protocol's session), worker_phase.cc
// (clients, phases, statistics) and worker_transport.cc (socket reads and writes over
// epoll or io_uring). Not a public header: nothing outside those files includes it. One
// worker thread owns all of it.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "core/buffer.h"
#include "core/pacer.h"
#include "core/reactor.h"
#include "core/tls.h"
#include "history/history_format.h"
#include "history/value_tag.h"
#include "load/worker.h"
#include "util/rng.h"
#include "workload/key_pattern.h"

namespace memstand {

class WorkerBase::ReactorHolder : public Reactor {};

/// A request in flight: kept by its connection under its tag (slot tag & (slots - 1)).
struct WorkerBase::InFlight {
  int64_t intended_ns;  // open loop: the pacer's time; closed loop: sent_ns
  int64_t sent_ns;      // the first send (a redirected request keeps it)
  uint64_t key;         // to send it again after a redirect
  const char* data;     // into the value pool, which outlives the run
  uint32_t data_len;
  uint16_t cmd;         // command index, or kAskingCommand
  bool measured;        // sent in the measured phase
  uint8_t redirects;    // MOVED/ASK/TRYAGAIN followed so far
  uint32_t process;     // --history: its client's process (WorkerBase::history_procs_)
};

// A logical client: its own key and value streams, schedule and budget, and up to
// `pipeline` requests in flight over its connection(s) (x masters with --cluster).
struct WorkerBase::Client {
  uint32_t index = 0;             // in clients_
  std::vector<KeySequence> keys;  // by command index
  Rng rng{0};
  uint64_t mix_pos = 0;
  uint64_t seq = 0;               // IPROTO: the next __seq__ (global index + k x clients)
  uint64_t budget = UINT64_MAX;   // measured requests left (requests mode)
  uint32_t next_replica = 0;      // --read-from-replicas, --balance per-request: round robin
  const RedisTarget* target = nullptr;  // its pool member (--cluster: the seed); in opt_
  std::optional<Pacer> pacer;     // open loop only
  int64_t due_queued = -1;        // open loop: the time of this client's live due_ entry
  int64_t last_send_ns = 0;       // open loop: its last measured send (0: none yet)
  size_t in_flight = 0;           // data requests sent and not yet answered
  bool failed = false;            // one of its connections failed (the run stops)
  /// --reconnect: its connections lost and not yet set up again. A closed-loop client
  /// waits for them; an open-loop client's due requests to them fail unsent.
  uint32_t down = 0;
  int pool_index = 0;             // its pool member (moves on when one is lost)
  /// Closed loop: how many of its connections may be down while it sends (--balance
  /// per-request: all members but one; else none).
  uint32_t may_be_down = 0;
  /// Fill sends nothing for it: closed loop, more are down than may_be_down, until one
  /// is up again (SetDown keeps it); --schedule per-thread, always (SendDue sends).
  /// Fill tests it once, not per request.
  bool waits = false;
  std::vector<ConnIo*> conns;     // by node index; one without --cluster
};

/// A connection's socket side and its requests in flight; Worker<Session>::Conn adds
/// the session.
struct WorkerBase::ConnIo {
  virtual ~ConnIo() = default;

  int fd = -1;
  uint32_t slot = 0;  // index in conns_
  int node = 0;       // index in the slot map's nodes (0 without --cluster)
  Client* client = nullptr;
  /// The target its last Dial went to (its client's then; null before the first).
  const RedisTarget* dialed = nullptr;
  enum class State { kConnecting, kSetup, kRunning, kClosed } state = State::kConnecting;
  /// --io uring: counts the slot's Closes; with the slot it makes the token of every
  /// ring request of c, so a completion that comes after c closed never reaches what
  /// reopens in its slot.
  uint8_t generation = 0;
  static constexpr int kTokenSlotBits = 24;  // at most 16,777,216 connections a thread
  static constexpr uint32_t kTokenSlotMask = (uint32_t{1} << kTokenSlotBits) - 1;
  uint32_t token() const { return slot | uint32_t{generation} << kTokenSlotBits; }
  Buffer out;
  /// --io uring: the bytes of the send in flight (out's former contents; out takes
  /// new requests meanwhile); empty: no send in flight. Grows on first use only.
  Buffer sending{0};
  /// TLS: the session (its handshake before StartSession) and the ciphertext waiting to
  /// be written; `out` then holds plaintext. Null without TLS.
  std::unique_ptr<TlsSession> tls;
  Buffer tls_out{0};
  uint64_t received = 0;  // bytes read from the socket: 0 says nothing ever came
  uint64_t received_at_sweep = 0;  // `received` at the last ReleaseIdleBuffers
  /// Requests in flight by tag & (size - 1); the size is a power of two, the session's
  /// slots, doubled when a redirect needs more.
  std::vector<InFlight> ring;
  bool want_write = false;
  bool flush_queued = false;
  bool in_setup = false;  // the session's set-up was written and is not through (setups_)
  int64_t setup_deadline_ns = 0;  // connect + set-up by then (--connect-timeout)
  // --reconnect: a closed connection that waits (waiting, until reopen_at_ns) for its
  // next attempt; reopening until that attempt's set-up is through; down from its loss
  // until then (counted in its client's `down`); attempts: failed ones in a row.
  bool waiting = false;
  bool reopening = false;
  uint16_t history_node = 0;  // --history: the string id of PeerAddress(*this), set at each dial
  /// --history: the first of its processes (WorkerBase::history_procs_), one per slot of
  /// `ring`: the request sent into slot i runs in process history_procs + i.
  uint32_t history_procs = 0;
  bool down = false;
  int attempts = 0;
  int64_t reopen_at_ns = 0;
  // The latest error reply, for the message when the server then closes (a server at
  // maxclients answers one error and hangs up).
  std::string last_error;
};

inline WorkerBase::ConnIo* WorkerBase::TokenConn(uint32_t token) const {
  // A closed connection's generation moved on (Close), so its token no longer matches.
  ConnIo* c = conns_[token & ConnIo::kTokenSlotMask].get();
  return c->token() == token ? c : nullptr;
}

// A connection with bytes to write after this wake-up (FlushQueued writes them). Each
// connection is queued once at most, so the queue has a place for each.
inline void WorkerBase::QueueFlush(ConnIo& c) {
  if (c.flush_queued) return;
  c.flush_queued = true;
  flush_queue_[flushes_++] = &c;
}

inline const RedisTarget& WorkerBase::TargetOf(const Client& cl, int node) const {
  return per_request_ ? opt_.pool_target(node) : *cl.target;
}

// In line with the loop (the socket's read per readable event).
inline size_t WorkerBase::ReadSome(ConnIo& c) {
  ssize_t n = read(c.fd, read_buf_.data(), read_buf_.size());
  ++stats_.read_calls;
  if (n > 0) [[likely]] {
    stats_.socket_bytes_read += static_cast<uint64_t>(n);
    return static_cast<size_t>(n);
  }
  if (n == 0) {
    FailRead(c, 0);
  } else if (errno != EAGAIN && errno != EINTR) {
    FailRead(c, errno);
  }
  return 0;
}

// --history's steps of every operation, in line where a request is sent and its reply
// handled: out of line, passing their arguments cost about as much as their work
// (bench/README.md, "The history's cost"). What is rare (a new process, an error reply,
// a read's tag) stays out of line (worker_history.cc).

inline void WorkerBase::HistoryStampAt(const HistoryProcess& p, char* value) {
  std::memcpy(value, p.tag, sizeof p.tag);
}

template <class LastValue>
inline void WorkerBase::HistoryReply(const ConnIo& c, const InFlight& f, const ReplyView& r, LastValue last_value,
                                     int64_t now) {
  const uint64_t write_ok = history_write_ok_[f.cmd];
  if (r.is_error || write_ok == 0) [[unlikely]] return HistoryReplyOther(c, f, r, last_value(), now);
  HistoryRecordWrite(f, write_ok | c.history_node, now);
}

inline void WorkerBase::HistoryRecordWrite(const InFlight& f, uint64_t tail, int64_t now) {
  HistoryProcess& p = history_procs_[f.process];
  const uint64_t ids = history::TagIdsOf(p.tag);
  // The process first, its record after: the record's stores might alias what the
  // process's update reads, so the other order kept every value in a register across
  // them (6 registers saved and restored a record).
  history::NextSeqTag(p.tag);
  // Version 2's record as it is on disk, each field stored once, by CheckRecord's rules
  // (the writer thread writes it unchecked): (client, seq) from the tag at once, the
  // invoke and the completion as the monotonic clock gave them (the reader takes time 0
  // off, and moves an invoke that precedes its client's previous completion to it), the
  // key, and the tail (node, error, f, outcome, seen, no extras) in one store.
  history::format::StoreBaseV2(history_batch_.Add(), ids, f.sent_ns, now, f.key, tail);
  if (history_batch_.full()) [[unlikely]] HistoryHand();
}

}  // namespace memstand

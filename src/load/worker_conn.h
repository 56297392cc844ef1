// The Worker's per-connection and per-client state (load/worker.h), shared by the files
// that implement it: worker.cc (the loop and the protocol sessions) and
// worker_transport.cc (socket reads and writes over epoll or io_uring). Not a public
// header: nothing outside those files includes it. One worker thread owns all of it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/buffer.h"
#include "core/pacer.h"
#include "core/reactor.h"
#include "core/tls.h"
#include "load/proto_request.h"
#include "load/worker.h"
#include "proto/resp/resp.h"
#include "util/rng.h"
#include "workload/key_pattern.h"

namespace memstand {

class Worker::ReactorHolder : public Reactor {};

struct Worker::InFlight {
  int64_t intended_ns;  // open loop: the pacer's time; closed loop: sent_ns
  int64_t sent_ns;      // the first send (a redirected request keeps it)
  uint64_t key;         // to send it again after a redirect
  const char* data;     // into the value pool, which outlives the run
  uint32_t data_len;
  uint16_t cmd;         // command index, kSetupCommand or kAskingCommand
  bool measured;        // sent in the measured phase
  uint8_t redirects;    // MOVED/ASK/TRYAGAIN followed so far
};

// A logical client: its own key and value streams, schedule and budget, and up to
// `pipeline` requests in flight over its connection(s) (x masters with --cluster).
struct Worker::Client {
  uint32_t index = 0;             // in clients_
  std::vector<KeySequence> keys;  // by command index
  Rng rng{0};
  uint64_t mix_pos = 0;
  uint64_t seq = 0;               // IPROTO: the next __seq__ (global index + k x clients)
  uint64_t budget = UINT64_MAX;   // measured requests left (requests mode)
  uint32_t next_replica = 0;      // --read-from-replicas: round robin
  const RedisTarget* target = nullptr;  // its pool member (--cluster: the seed); in opt_
  std::optional<Pacer> pacer;     // open loop only
  int64_t due_queued = -1;        // open loop: the time of this client's live due_ entry
  size_t in_flight = 0;           // data requests sent and not yet answered
  bool failed = false;            // one of its connections failed
  std::vector<Conn*> conns;       // by node index; one without --cluster
};

struct Worker::Conn {
  int fd = -1;
  uint32_t slot = 0;  // index in conns_
  int node = 0;       // index in the slot map's nodes (0 without --cluster)
  Client* client = nullptr;
  enum class State { kConnecting, kSetup, kRunning, kClosed } state = State::kConnecting;
  Buffer out;
  /// --io uring: the bytes of the send in flight (out's former contents; out takes
  /// new requests meanwhile); empty: no send in flight. Grows on first use only.
  Buffer sending{0};
  /// TLS: the session (its handshake before StartSession) and the ciphertext waiting to
  /// be written; `out` then holds plaintext. Null without TLS.
  std::unique_ptr<TlsSession> tls;
  Buffer tls_out{0};
  uint64_t received = 0;  // bytes read from the socket: 0 says nothing ever came
  resp::Reader reader{resp::Reader::Mode::kSummary};
  std::vector<InFlight> ring;  // FIFO of requests in flight; size a power of two
  size_t head = 0;
  size_t count = 0;
  bool want_write = false;
  bool flush_queued = false;
  std::vector<std::string> setup_names;  // setup commands awaiting replies, in order
  int64_t setup_deadline_ns = 0;         // connect + set-up by then (--connect-timeout)
  // Protocols other than RESP: the reply reader; IPROTO: `ring` is a slot table
  // indexed by sync & (size - 1), slot_sync[i] the sync in flight there (0: free).
  std::unique_ptr<ProtoReader> proto;
  std::vector<uint64_t> slot_sync;
  std::vector<uint32_t> free_slots;
  uint64_t next_seq = 0;
  std::string greeting;  // IPROTO: greeting bytes received so far
  // The latest error reply, for the message when the server then closes (a server at
  // maxclients answers one error and hangs up).
  std::string last_error;

  void Push(const InFlight& f) {
    if (count == ring.size()) Grow();
    ring[(head + count) & (ring.size() - 1)] = f;
    ++count;
  }
  // Puts f before everything in flight (set-up written ahead of buffered requests).
  void PushFront(const InFlight& f) {
    if (count == ring.size()) Grow();
    head = (head - 1) & (ring.size() - 1);
    ring[head] = f;
    ++count;
  }
  InFlight Pop() {
    InFlight f = ring[head];
    head = (head + 1) & (ring.size() - 1);
    --count;
    return f;
  }
  // Only redirects and set-up push past the client's pipeline depth.
  void Grow() {
    std::vector<InFlight> bigger(ring.size() * 2);
    for (size_t i = 0; i < count; ++i) bigger[i] = ring[(head + i) & (ring.size() - 1)];
    ring.swap(bigger);
    head = 0;
  }
};

}  // namespace memstand

// What `memstand run` does, as plain data. Each field carries its default and why.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/cpu_set.h"
#include "core/tls.h"
#include "load/history_events.h"
#include "load/pool.h"
#include "load/protocol.h"
#include "load/target.h"
#include "proto/iproto/call_error.h"
#include "workload/command_template.h"
#include "workload/key_pattern.h"
#include "workload/shard.h"
#include "workload/value_pool.h"

namespace memstand {

/// One command of the mix.
struct CommandSpec {
  CommandTemplate tmpl;
  uint32_t weight = 1;
  KeyPatternSpec key_pattern;  // default R: uniform, as memtier's default for GET
  /// Count null replies as misses and others as hits (GET-like reads).
  bool counts_hits = false;
  std::string label;  // e.g. "SET" or "GET"; unique within a run
  std::string text;   // the template as given (protocols other than RESP parse it again)

  /// IPROTO: a call or eval, i.e. Lua run on the server.
  bool runs_lua() const { return tmpl.name == "CALL" || tmpl.name == "EVAL"; }
};

/// How the load threads move socket data in the measured loop (--io).
enum class IoMode : uint8_t {
  kEpoll,  // readiness: a read and a write system call per connection and wake-up
  kUring,  // completions: one io_uring_enter per wake-up for every connection
};

/// --shard K/N: what this process took of the fleet's workload (load/shard_plan.h).
struct ShardTaken {
  Shard shard;
  bool key_sliced = false;   // S/P patterns: key_min..key_max below is this shard's slice
  uint64_t whole_key_min = 0, whole_key_max = 0;  // the fleet's key range
  uint64_t whole_seed = 0;      // the seed given; LoadOptions::seed is the shard's own
  double whole_rate = 0;        // the fleet's --rate (0: closed loop)
  uint64_t whole_requests = 0;  // the fleet's --requests (0: a duration)
  int whole_pool = 0;           // the pool's size before the split (0: no pool)
  std::vector<int> members;     // indexes into that pool taken: K, K+N, ...
};

/// --reconnect: what a lost connection does (docs/faults.md).
struct ReconnectOptions {
  /// Off (the default, and memtier's): a lost connection ends the run, exit 1. On: the
  /// requests it had in flight end unknown (or fail), it is opened again after a wait,
  /// its set-up replayed, and the run goes on. Nothing is ever sent twice.
  bool enabled = false;
  /// The wait after a loss, doubled after each failed attempt up to the max, each wait
  /// drawn between half and all of it (so thousands of connections do not knock at once).
  int backoff_min_ms = 50;
  int backoff_max_ms = 1000;
  /// Failed attempts in a row on one connection before the run fails; 0: no limit.
  int max_attempts = 0;
};

/// --wait-replicas N[,TIMEOUT]: every write followed by `WAIT N TIMEOUT` on its
/// connection (RESP), one operation that ends with WAIT's reply (docs/faults.md).
struct WaitReplicas {
  int replicas = 0;     // N >= 1; 0: off (the default: a write ends with its own reply)
  int timeout_ms = 0;   // WAIT's timeout, >= 1 (0 would block: WAIT's "forever")
};

struct LoadOptions {
  /// The target; with a pool (several --target), its first member.
  RedisTarget target;
  /// Several --target: the pool, in the order given (pool[0] == target), each with its
  /// own credentials and db; all of one protocol. Empty: `target` alone.
  std::vector<RedisTarget> pool;
  /// A pool: which member each connection goes to (round robin by global client index:
  /// an even split that a server-side count can check).
  Balance balance = Balance::kRoundRobin;
  /// RESP over TLS (rediss:// or --tls; then every target has tls set): the CA, the
  /// client certificate, SNI. Off by default: servers listen in plaintext unless told.
  TlsOptions tls;
  /// The wire protocol; --protocol, else the target's URL scheme, else RESP.
  Protocol protocol = Protocol::kResp;
  int resp = 2;                  // RESP version: 2 (every server) or 3 (HELLO 3)
  int threads = 1;               // one event loop each; 1 leaves the other core to a local server
  int clients = 50;              // connections per thread (memtier and redis-benchmark: 50)
  int pipeline = 1;              // requests in flight per connection (--cluster: per master connection)
  uint64_t requests = 0;         // measured requests in total; 0: run for duration_s
  double duration_s = 0;         // measured time; used when requests == 0
  double warmup_s = 0;           // sent but kept out of every statistic
  /// Open loop: requests per second in total, spread over the connections, each sent at
  /// its intended time whatever the replies do. 0: closed loop (send on each reply).
  double rate = 0;
  /// Open loop: inter-arrival times per connection (per load thread with
  /// schedule_per_thread). Constant by default: reproducible.
  bool poisson = false;
  /// Open loop: whose schedule a request is due on. false (the default, --schedule
  /// per-connection): each connection has its own at rate / connections, and sends its
  /// requests as they come due. true (--schedule per-thread): each load thread has one
  /// at rate / threads, and the requests due at one wake-up go together on one
  /// connection, the next in turn with room under --pipeline: a write (a TCP segment)
  /// for each wake-up instead of one for each connection with a request due, which at
  /// high rates is what makes a wake-up long and the next sends late (bench/README.md,
  /// "Open loop precision"; docs/method.md).
  bool schedule_per_thread = false;
  /// Open loop: a load thread stops sleeping this long before its next send time and
  /// polls its sockets (a wait with no timeout) until the send is due, so that the
  /// wake-up's latency (timer slack, an idle vCPU's wake, the scheduler) is not in the
  /// send lag; the price is up to this much CPU per send, at high rates a whole core
  /// (bench/README.md, "Open loop precision"). 0: sleep until the due time. The CLI's
  /// --spin sets it; the library's default stays 0 (a scenario's background load
  /// spins only when asked). At most kMaxSpinNs (core/pacer.h).
  int64_t spin_ns = 0;
  /// SCHED_FIFO priority (1..99) of the load threads, set by each on itself when it
  /// starts and gone with it at the end of the run (no other thread of the process
  /// changes): woken by its timer or a socket, it preempts whatever else runs on its
  /// core. 0: the default scheduler. Needs root, CAP_SYS_NICE or RLIMIT_RTPRIO; the
  /// kernel's refusal fails the run (the CLI probes it first: --realtime).
  int realtime_priority = 0;
  /// --cpus: the CPUs the load threads run on, one each, round robin: thread i pinned
  /// to cpus[i % cpus.size()], by itself when it starts (the other threads of the
  /// process keep theirs). Empty (the default): not pinned, the threads inherit the
  /// affinity of the thread that calls RunLoad (a scenario pins that one).
  CpuList cpus;
  std::vector<CommandSpec> commands;
  std::string key_prefix = "memtier-";  // memtier's default, so its users' keys match
  uint64_t key_min = 0;                 // memtier's default range
  uint64_t key_max = 9'999'999;
  ValueSpec value;
  uint64_t seed = 1;             // fixed by default: a run is reproducible unless asked
  int connect_timeout_ms = 5000;
  int request_timeout_ms = 10000;  // a reply later than this fails the connection
  int drain_timeout_ms = 2000;     // after the end or an interrupt: wait for in-flight
  ReconnectOptions reconnect;
  std::vector<double> percentiles = {50, 90, 95, 99, 99.9, 99.99};
  /// Redis Cluster: read the slot map from the target (a seed node), connect every
  /// client to every master and route each request by its key's slot. Off: everything
  /// goes to the target, and MOVED replies are counted as errors (a connector that is
  /// not cluster-aware).
  bool cluster = false;
  /// IPROTO --call-errors: which replies to call and eval are application errors
  /// (`return nil, err`, crud's convention). auto: otherwise crud's every error would
  /// count as a success; none restores what IPROTO alone says.
  iproto::CallErrors call_errors = iproto::CallErrors::kAuto;
  /// --cluster: GET-like reads go to the replicas of the slot's master (READONLY on
  /// their connections), round robin per client; writes to the master.
  bool read_from_replicas = false;
  /// Nobody else uses the server: a command count mismatch fails the run.
  bool exclusive_server = false;
  /// --samples: keep raw (time, command, latency) samples of the measured replies, all
  /// of them up to this many, beyond it a uniform reservoir. 0: no raw samples.
  size_t samples_cap = 0;
  /// --io: epoll, or io_uring (run_flags resolves "auto", the CLI's default, to uring
  /// where the kernel allows it). The library's default stays epoll.
  IoMode io = IoMode::kEpoll;
  /// --io auto fell back to epoll: why (for the report).
  std::string io_fallback;

  /// --shard: set by ApplyShard (load/shard_plan.h); the fields above are then already
  /// the shard's part. Empty: an unsharded run.
  std::optional<ShardTaken> shard;
  /// --start-at: the wall-clock instant (Unix seconds) the measured phase starts at;
  /// the warm-up runs before it. 0: start as soon as the connections are set up.
  double start_at_unix_s = 0;
  /// --fleet-check GRACE: after the run, wait GRACE seconds (every other shard ends
  /// within it) and read the server's counters again, for `memstand merge` to check
  /// the fleet's counts over the whole window. < 0: off.
  double fleet_check_grace_s = -1;
  /// A stop asked for from outside the run (a scenario's background load,
  /// scenario/kit/load_handle.h): once true, the workers stop sending and drain as after
  /// an interrupt, but the run is not marked interrupted. Null: none.
  const std::atomic<bool>* stop_request = nullptr;
  /// --history FILE: a record of every operation (docs/history.md), warm-up included.
  /// Empty: none.
  std::string history_path;
  /// --wait-replicas: a WAIT after every write (RESP only). Off by default: Redis's
  /// replication is asynchronous and a write's reply does not wait for it.
  WaitReplicas wait;
  /// With history_path: the nemesis events a scenario adds while the load runs
  /// (load/history_events.h), written into the history beside the operations; added
  /// after the run's end they are not. Null: none.
  std::shared_ptr<HistoryEvents> history_events;

  int connections() const { return threads * clients; }
  /// The pool's size: 1 without one.
  int pool_size() const { return pool.empty() ? 1 : static_cast<int>(pool.size()); }
  /// Pool member i (`target` without a pool). REQUIRES: 0 <= i < pool_size().
  const RedisTarget& pool_target(int i) const { return pool.empty() ? target : pool[i]; }
};

}  // namespace memstand

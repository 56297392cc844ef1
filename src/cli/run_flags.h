// `memstand run` flags: declared on a CLI11 app, then checked and turned into a
// RunConfig. Nothing here connects or runs.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "load/load_options.h"
#include "util/status.h"

namespace memstand::cli {

/// The flags as typed, before checking.
struct RunFlags {
  std::vector<std::string> targets;  // --target, repeatable: several form a pool
  std::string balance = "round-robin";
  std::string server, authenticate, user;
  std::string unix_socket;  // -S/--unix-socket: a Unix socket path instead of host:port
  std::string auth_file;  // --auth-file: the -a value on the file's first line
  bool tls = false;              // --tls: over TLS (as a rediss://, memcache+tls://, etcd+tls:// target)
  bool tls_skip_verify = false;  // --tls-skip-verify
  std::string tls_cert, tls_key, tls_ca, sni;  // --tls-cert, --tls-key, --tls-ca, --sni
  std::string protocol;  // empty: from the target's scheme, else resp
  int port = 0;
  int db = 0;
  int resp = 2;
  int threads = 1, clients = 50, pipeline = 1;
  uint64_t requests = 0;
  std::string duration, warmup = "0";
  std::string rate;                  // empty: closed loop
  std::string arrival = "constant";
  std::string spin;                  // --spin DURATION; empty: the open loop's default
  std::string schedule = "per-connection";  // --schedule: per-connection or per-thread
  int realtime = 0;                  // --realtime P: SCHED_FIFO priority; 0: none
  std::string cpus;                  // --cpus LIST: the load threads' CPUs; empty: not pinned
  std::string ratio = "1:10";
  std::vector<std::string> commands, command_ratios, command_key_patterns;
  std::string key_prefix = "memtier-", key_pattern = "R";
  uint64_t key_min = 0, key_max = 9'999'999;
  double key_stddev = -1, key_median = -1, key_zipf_exp = 0.99;
  std::string data_size = "32", data_size_range;
  bool random_data = false;
  double compress_ratio = 0;
  uint64_t seed = 1;
  std::string connect_timeout = "5s", request_timeout = "10s";
  bool reconnect = false;
  std::string reconnect_min = "50ms", reconnect_max = "1s";
  int reconnect_attempts = 0;
  std::string percentiles = "50,90,95,99,99.9,99.99";
  std::string json_path, hdr_log_path, hgrm_path, metrics_addr;
  std::string metrics_linger = "0s";
  std::string json_format = "memstand";  // or "memtier"
  std::string samples_path;
  std::string history_path;  // --history
  std::string wait_replicas;  // --wait-replicas N[,TIMEOUT]; empty: off
  uint64_t samples_cap = 1'000'000;
  bool exclusive = false;
  bool cluster = false;
  bool read_from_replicas = false;
  bool quiet = false;
  bool strict = false;  // --strict: a run whose statistics are suspect exits 1
  std::string io = "auto";  // --io: epoll, uring or auto (uring where the kernel allows it)
  std::string call_errors = "auto";  // --call-errors: auto, none or second-value (IPROTO)
  std::string redis_server = "redis-server";
  std::string shard;       // --shard K/N or auto; empty: not sharded
  uint64_t shards = 0;     // --shards N: the count with --shard auto and JOB_COMPLETION_INDEX
  std::string start_at;    // --start-at TIME; empty: start when set up
  std::string fleet_check;  // --fleet-check GRACE; empty: off
};

struct RunConfig {
  LoadOptions load;
  bool target_given = false;  // false: memstand starts its own server (redis-server,
                              // memcached, tarantool or etcd by --protocol)
  bool servers_by_caller = false;  // sweep --sweep-set/--sweep-topology: RunSession starts
                                   // none; the caller stands each point's up (UseServers)
  std::string json_path;
  bool json_memtier = false;  // --json-format memtier: memtier_benchmark's key layout
  std::string samples_path;   // raw samples CSV; load.samples_cap is its cap
  std::string hdr_log_path;  // HdrHistogram interval log, one tag per command
  std::string hgrm_path;     // percentile distribution of all commands
  std::string metrics_host;  // empty: no live metrics
  int metrics_port = 0;
  double metrics_linger_s = 0;  // --metrics-linger: /metrics kept up after the run
  bool quiet = false;
  bool strict = false;  // --strict: a suspect validity verdict (report/validity.h) exits 1
  std::string redis_server = "redis-server";
};

void AddRunFlags(CLI::App* app, RunFlags* flags);

/// Checks the flags (ranges, templates, patterns, sizes, keys per protocol) and builds
/// the config. Every fault is an InvalidArgument naming the flag and what it accepts.
/// Passwords: cli/credentials.h.
Result<RunConfig> BuildRunConfig(const CLI::App& app, const RunFlags& flags);

}  // namespace memstand::cli

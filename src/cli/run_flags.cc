#include "cli/run_flags.h"

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "cli/credentials.h"
#include "cli/subcommands.h"
#include "core/clock.h"
#include "core/cpu_set.h"
#include "core/pacer.h"
#include "core/uring.h"
#include "load/command_spec.h"
#include "load/history_ops.h"
#include "load/proto_request.h"
#include "load/shard_plan.h"
#include "load/start_at.h"
#include "proto/iproto/call_error.h"
#include "report/metrics_server.h"
#include "util/output_file.h"
#include "util/parse.h"
#include "util/redact.h"
#include "workload/command_mix.h"

namespace memstand::cli {

namespace {

Status FlagError(const std::string& flag, const Status& s) {
  return Status::InvalidArgument(flag + ": " + s.message());
}

void AddTargetFlags(CLI::App* app, RunFlags* f) {
  app->add_option("--target", f->targets,
                  "redis://[user:pass@]host:port[/db], memcache://host:port, etcd://host:port, "
                  "tarantool://[user:pass@]host:port, unix:///path or "
                  "redis+unix://[user:pass@]/path[?db=N], memcache+unix:///path, "
                  "redis+sentinel://[user:pass@]host:port[,host:port...]/master[?db=N] (the primary Sentinel "
                  "names, followed with --reconnect); none: start a local server; repeated: a "
                  "pool of servers of one protocol, connections spread by --balance");
  app->add_option("--balance", f->balance,
                  "Several --target: round-robin (client i to target i % N), random (a "
                  "draw per connection from --seed) or per-request (every client to every "
                  "target, each request to the next one up)");
  app->add_option("--protocol", f->protocol,
                  "resp, memcache, iproto or etcd (default: the target's scheme, else resp)");
  app->add_option("-s,--server", f->server, "Server host (memtier style)");
  app->add_option("-p,--port", f->port,
                  "Server port (memtier style; default: the protocol's, 6379 for RESP)")
      ->default_str("")
      ->check(CLI::Range(1, 65535));
  app->add_option("-S,--unix-socket", f->unix_socket,
                  "Unix socket path instead of host:port (memtier style; RESP or memcache)");
  app->add_option("-a,--authenticate", f->authenticate,
                  "PASSWORD or USER:PASSWORD (memtier style; every user can read it in "
                  "/proc/PID/cmdline until memstand masks it: prefer --auth-file or "
                  "MEMSTAND_PASSWORD)");
  app->add_option("--auth-file", f->auth_file,
                  "File whose first line is PASSWORD or USER:PASSWORD, as -a; must not be "
                  "readable by group or others (chmod 600)");
  app->add_option("--user", f->user,
                  "ACL user name (with a password from -a, --auth-file or MEMSTAND_PASSWORD)");
  app->add_flag("--tls", f->tls, "Over TLS: RESP, memcached, etcd (as rediss://, memcache+tls://, etcd+tls://; "
                "docs/tls.md)");
  app->add_option("--tls-ca", f->tls_ca,
                  "CA certificates (PEM) that the server's certificate must chain to "
                  "(default: the system's store)");
  app->add_option("--tls-cert", f->tls_cert, "Client certificate (PEM), with --tls-key");
  app->add_option("--tls-key", f->tls_key, "Private key of --tls-cert (PEM, unencrypted)");
  app->add_flag("--tls-skip-verify", f->tls_skip_verify,
                "Do not check the server's certificate or name (test servers only)");
  app->add_option("--sni", f->sni,
                  "Server name sent in the TLS handshake and checked in its certificate "
                  "(default: the target's host when it is a name)");
  app->add_option("--db", f->db, "Database number to SELECT")->check(CLI::Range(0, 1 << 20));
  app->add_option("--resp", f->resp, "RESP protocol version: 2 or 3 (HELLO 3)")
      ->check(CLI::IsMember({2, 3}));
  app->add_option("--redis-server", f->redis_server,
                  "redis-server binary for the local server (no target given)");
  app->add_flag("--cluster", f->cluster,
                "Redis Cluster: slot map from the target, a connection per master per client, "
                "MOVED/ASK followed (without it: all to the target, MOVED counted as errors)");
  app->add_flag("--read-from-replicas", f->read_from_replicas,
                "With --cluster: GET-like reads go to the master's replicas (READONLY)");
  app->add_option("--call-errors", f->call_errors,
                  "Tarantool call/eval replies that are application errors: auto (nil, err "
                  "with err not nil; the default), none (only IPROTO errors) or second-value "
                  "(any reply whose second value is not nil)");
  app->add_flag("--exclusive", f->exclusive,
                "No other client uses the server: a command-count mismatch fails the run");
}

void AddShapeFlags(CLI::App* app, RunFlags* f) {
  app->add_option("-t,--threads", f->threads, "Load threads, one event loop each")
      ->check(CLI::Range(1, 1024));
  app->add_option("-c,--clients", f->clients, "Connections per thread")
      ->check(CLI::Range(1, 100000));
  app->add_option("--pipeline", f->pipeline, "Requests in flight per connection")
      ->check(CLI::Range(1, 65536));
  app->add_option("--io", f->io,
                  "Socket I/O of the measured loop: epoll (a read and a write call per "
                  "connection), uring (io_uring: one call per wake-up for all connections) "
                  "or auto (default: uring where the kernel allows it, else epoll)");
  app->add_option("-n,--requests", f->requests,
                  "Measured requests in total (default: none, --duration)")
      ->default_str("")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 48));
  app->add_option("--duration,--test-time", f->duration,
                  "Measured time, e.g. 30s, 2m (default 10s unless --requests)");
  app->add_option("--warmup", f->warmup, "Time sent but kept out of the statistics, e.g. 2s");
  app->add_option("--rate", f->rate,
                  "Open loop: requests/s in total, e.g. 5000 or 20k; latency counted from each "
                  "request's intended send time");
  app->add_option("--arrival", f->arrival, "Open loop: constant or poisson inter-arrival times")
      ->check(CLI::IsMember({"constant", "poisson"}));
  app->add_option("--schedule", f->schedule,
                  "Open loop: per-connection (each connection its own schedule, rate / connections) "
                  "or per-thread (one per load thread, rate / threads: the requests due at a "
                  "wake-up go together on one connection, the next in turn with room; fewer, "
                  "fuller writes at high rates; docs/method.md)")
      ->capture_default_str()
      ->check(CLI::IsMember({"per-connection", "per-thread"}));
  app->add_option("--spin", f->spin,
                  "Open loop: stop sleeping this long before each send time and poll the sockets "
                  "until it is due, e.g. 50us: the wake-up's latency out of the send lag, for up "
                  "to this much CPU per send (0: sleep to the send time; at most 10ms; "
                  "docs/method.md)")
      ->default_str("0");
  app->add_option("--realtime", f->realtime,
                  "Run the load threads on SCHED_FIFO at this priority (1..99; root, CAP_SYS_NICE "
                  "or ulimit -r): a send time or a reply wakes them at once on a busy core; "
                  "0: the default scheduler")
      ->capture_default_str()
      ->check(CLI::Range(0, 99));
  app->add_option("--cpus", f->cpus,
                  "CPU list the load threads run on, e.g. 1, 2-3 or 0,2-3: thread i pinned to the "
                  "list's i-th CPU, round robin (keep them off the server's CPUs; docs/method.md). "
                  "Default: not pinned");
  app->add_option("--connect-timeout", f->connect_timeout, "Connect + handshake limit, e.g. 5s");
  app->add_option("--request-timeout", f->request_timeout,
                  "A reply later than this fails the run (with --reconnect: the connection), e.g. 10s");
  app->add_flag("--reconnect", f->reconnect,
                "A lost connection is opened again and the run goes on; what it had in flight "
                "ends unknown (docs/faults.md)");
  app->add_option("--reconnect-min", f->reconnect_min,
                  "With --reconnect: the first wait after a loss, doubled per failed attempt (default 50ms)");
  app->add_option("--reconnect-max", f->reconnect_max, "With --reconnect: the longest wait (default 1s)");
  app->add_option("--reconnect-attempts", f->reconnect_attempts,
                  "With --reconnect: failed attempts in a row before the run fails (default 0: no limit)")
      ->check(CLI::Range(0, 1'000'000));
  app->add_option("--wait-replicas", f->wait_replicas,
                  "RESP: every write followed by WAIT N TIMEOUT on its connection, one operation: ok when "
                  "N replicas acknowledged it, unknown when fewer did, e.g. 1 or 1,200ms (TIMEOUT default "
                  "500ms, below --request-timeout; docs/faults.md)");
}

void AddWorkloadFlags(CLI::App* app, RunFlags* f) {
  app->add_option("--ratio", f->ratio, "SET:GET ratio when no --command is given");
  app->add_option("--command", f->commands,
                  "Command template, e.g. \"set __key__ __data__\" (repeatable)");
  app->add_option("--command-ratio", f->command_ratios, "Weight of the preceding --command");
  app->add_option("--command-key-pattern", f->command_key_patterns,
                  "Key pattern of the preceding --command: R, S, G, Z or P");
  app->add_option("--key-prefix", f->key_prefix, "Key prefix");
  app->add_option("--key-minimum,--key-min", f->key_min, "Smallest key index");
  app->add_option("--key-maximum,--key-max", f->key_max, "Largest key index");
  app->add_option("--key-pattern", f->key_pattern,
                  "R uniform, S sequential, G gaussian, Z zipf, P partitioned; SET:GET "
                  "form (e.g. S:R) sets both");
  app->add_option("--key-stddev", f->key_stddev, "G: standard deviation (default range/6)")
      ->default_str("");
  app->add_option("--key-median", f->key_median, "G: median (default middle of the range)")
      ->default_str("");
  app->add_option("--key-zipf-exp", f->key_zipf_exp, "Z: exponent (> 0)");
  app->add_option("-d,--data-size", f->data_size, "Value size in bytes, e.g. 100, 4K");
  app->add_option("--data-size-range", f->data_size_range, "Value sizes MIN-MAX, e.g. 100-1K");
  app->add_flag("-R,--random-data", f->random_data, "Incompressible random values");
  app->add_option(
         "--data-compress-ratio", f->compress_ratio,
         "Values compressible by about this ratio (>= 1; default: a repeated pattern, memtier's)")
      ->default_str("");
  app->add_option("--seed", f->seed, "Seed of every key and value sequence")->check(WholeNumberU64());
}

// Per-command flags attach to the latest --command, in command-line order.
Status AssignPerCommand(const CLI::App& app, const RunFlags& f, std::vector<std::string>* ratios,
                        std::vector<std::string>* patterns) {
  ratios->assign(f.commands.size(), "1");
  patterns->assign(f.commands.size(), "");
  int current = -1;
  size_t ratio_i = 0, pattern_i = 0;
  for (const CLI::Option* opt : app.parse_order()) {
    const std::string& name = opt->get_name();
    if (name == "--command") {
      ++current;
    } else if (name == "--command-ratio" || name == "--command-key-pattern") {
      if (current < 0) return Status::InvalidArgument(name + " must follow a --command");
      if (name == "--command-ratio") {
        (*ratios)[current] = f.command_ratios[ratio_i++];
      } else {
        (*patterns)[current] = f.command_key_patterns[pattern_i++];
      }
    }
  }
  return Status::OK();
}

Result<KeyPatternSpec> KeyPattern(const RunFlags& f, const std::string& letter) {
  auto spec = ParseKeyPattern(letter);
  if (!spec.ok()) return spec.status();
  spec->median = f.key_median;
  spec->stddev = f.key_stddev;
  spec->zipf_exponent = f.key_zipf_exp;
  Status s = ValidateKeyPatternSpec(*spec);
  if (!s.ok()) return s;
  return spec;
}

Status BuildCommands(const CLI::App& app, const RunFlags& f, LoadOptions* o) {
  std::string set_pattern = f.key_pattern, get_pattern = f.key_pattern;
  if (size_t colon = f.key_pattern.find(':'); colon != std::string::npos) {
    set_pattern = f.key_pattern.substr(0, colon);
    get_pattern = f.key_pattern.substr(colon + 1);
  }
  std::vector<std::string> texts = f.commands, ratios, patterns;
  Status s = AssignPerCommand(app, f, &ratios, &patterns);
  if (!s.ok()) return s;
  if (texts.empty()) {
    auto w = ParseRatio(f.ratio, 2);
    if (!w.ok()) return FlagError("--ratio", w.status());
    // A weight of 0 leaves that command out (1:0 is SETs only, as memtier).
    static constexpr const char* kDefaults[][2] = {
        {"SET __key__ __data__", "GET __key__"},
        {"set __key__ __data__", "get __key__"},
        {"replace memstand [__key__, __data__]", "select memstand 0 [__key__]"},
        {"put __key__ __data__", "range __key__"}};
    const auto& defaults = kDefaults[static_cast<int>(o->protocol)];
    if ((*w)[0] > 0) {
      texts.push_back(defaults[0]);
      ratios.push_back(std::to_string((*w)[0]));
      patterns.push_back(set_pattern);
    }
    if ((*w)[1] > 0) {
      texts.push_back(defaults[1]);
      ratios.push_back(std::to_string((*w)[1]));
      patterns.push_back(get_pattern);
    }
  }
  CommandLimits limits;  // REQUIRES: values built
  limits.key_max = f.key_max;
  limits.value_max = o->value.max_size;
  limits.value_flag = f.data_size_range.empty() ? "-d/--data-size" : "--data-size-range";
  for (size_t i = 0; i < texts.size(); ++i) {
    auto w = ParseRatio(ratios[i], 1);
    if (!w.ok()) return FlagError("--command-ratio", w.status());
    bool own_pattern = !f.commands.empty() && !patterns[i].empty();
    auto kp = KeyPattern(f, own_pattern ? patterns[i]
                            : f.commands.empty() ? patterns[i]
                                                 : f.key_pattern.substr(0, 1));
    if (!kp.ok()) return FlagError(own_pattern ? "--command-key-pattern" : "--key-pattern", kp.status());
    auto spec = MakeCommandSpec(o->protocol, texts[i], f.key_prefix, *kp, (*w)[0], limits);
    if (!spec.ok()) return spec.status();
    CommandSpec c = std::move(*spec);
    c.label = c.tmpl.name;
    for (const auto& other : o->commands) {
      if (other.label == c.label) c.label += "#" + std::to_string(i + 1);
    }
    o->commands.push_back(std::move(c));
  }
  uint64_t total = 0;
  for (const auto& c : o->commands) total += c.weight;
  if (total == 0) return Status::InvalidArgument("--command-ratio: every weight is 0");
  return Status::OK();
}

// --protocol, or the target's scheme; the target then carries the protocol's scheme.
Status BuildProtocol(const RunFlags& f, RunConfig* cfg) {
  LoadOptions& o = cfg->load;
  if (f.protocol.empty()) {
    o.protocol = SchemeProtocol(o.target.scheme);
  } else {
    auto p = ParseProtocol(f.protocol);
    if (!p.ok()) return FlagError("--protocol", p.status());
    o.protocol = *p;
  }
  if (o.protocol == Protocol::kResp) return Status::OK();
  o.target.scheme = ProtocolScheme(o.protocol);
  for (RedisTarget& t : o.pool) t.scheme = o.target.scheme;
  if (f.targets.empty() && f.port == 0) {  // the protocol's default port
    o.target.port = o.protocol == Protocol::kMemcache ? 11211 : o.protocol == Protocol::kEtcd ? 2379 : 3301;
  }
  const char* name = ProtocolName(o.protocol);
  bool over_unix = !o.target.unix_path.empty();
  for (const RedisTarget& t : o.pool) over_unix = over_unix || !t.unix_path.empty();
  if (over_unix && o.protocol != Protocol::kMemcache) {
    return Status::InvalidArgument(std::string("--protocol ") + name +
                                   ": not over a Unix socket (Unix sockets are for resp and "
                                   "memcache)");
  }
  if (f.resp != 2) return Status::InvalidArgument(std::string("--resp: not for --protocol ") + name);
  if (f.cluster) return Status::InvalidArgument(std::string("--cluster: not for --protocol ") + name);
  if (f.db != 0) return Status::InvalidArgument(std::string("--db: not for --protocol ") + name);
  return Status::OK();
}

// Several --target: one protocol, no two alike, not with --cluster.
Status BuildPool(const RunFlags& f, LoadOptions* o) {
  auto balance = ParseBalance(f.balance);
  if (!balance.ok()) return FlagError("--balance", balance.status());
  o->balance = *balance;
  if (f.targets.size() < 2) return Status::OK();
  for (const std::string& url : f.targets) {
    if (url.find("+sentinel://") == std::string::npos) continue;
    return Status::InvalidArgument("--target: a Sentinel target (" + Abbreviate(RedactUrl(url)) +
                                   ") is the whole target, not a pool member: give it alone "
                                   "(its Sentinels are the hosts in the URL)");
  }
  if (f.cluster) {
    return Status::InvalidArgument(
        "--cluster: takes one --target (a seed node; the masters come from CLUSTER SLOTS), "
        "not a pool of " + std::to_string(f.targets.size()));
  }
  for (const std::string& url : f.targets) {
    auto t = ParseTargetUrl(url);
    if (!t.ok()) return FlagError("--target", t.status());
    for (const RedisTarget& other : o->pool) {
      if (t->scheme != other.scheme) {
        return Status::InvalidArgument("--target: a pool speaks one protocol, but " +
                                       other.Display() + " is " + other.scheme + ":// and " +
                                       t->Display() + " is " + t->scheme + "://");
      }
      if (t->Address() == other.Address()) {
        return Status::InvalidArgument("--target: " + t->Address() +
                                       " is given twice (a pool's members are different servers)");
      }
    }
    o->pool.push_back(*t);
  }
  return Status::OK();
}

// rediss://, memcache+tls://, etcd+tls:// or --tls, and the --tls-* flags: every target
// TLS or none, RESP, memcached or etcd over TCP to a given target; the files are loaded
// now, so a bad one is a usage error.
Status BuildTls(const CLI::App& app, const RunFlags& f, RunConfig* cfg) {
  LoadOptions& o = cfg->load;
  std::vector<RedisTarget*> all = {&o.target};
  for (RedisTarget& t : o.pool) all.push_back(&t);
  const RedisTarget* plain = nullptr;
  const RedisTarget* tls = nullptr;
  for (const RedisTarget* t : all) (t->tls ? tls : plain) = t;
  o.tls.enabled = f.tls || tls != nullptr;
  for (const char* flag : {"--tls-ca", "--tls-cert", "--tls-key", "--tls-skip-verify", "--sni"}) {
    if (app.count(flag) > 0 && !o.tls.enabled) {
      return Status::InvalidArgument(std::string(flag) + ": needs --tls or a TLS target "
                                     "(rediss://, memcache+tls://, etcd+tls://)");
    }
  }
  if (!o.tls.enabled) return Status::OK();
  if (!f.tls && plain != nullptr) {
    return Status::InvalidArgument("--target: a pool is all TLS or all plaintext, but " +
                                   tls->Display() + " is TLS and " + plain->Display() +
                                   " is not (--tls makes every member TLS)");
  }
  const std::string flag = f.tls ? "--tls" : tls->Display();
  if (!cfg->target_given) {
    return Status::InvalidArgument(flag + ": needs a target (the local server "
                                   "memstand starts listens in plaintext)");
  }
  if (o.protocol == Protocol::kIproto) {
    return Status::InvalidArgument(flag + ": TLS is for RESP, memcached and etcd targets, not "
                                   "--protocol " + ProtocolName(o.protocol) +
                                   " (Tarantool's IPROTO has no TLS in its community edition)");
  }
  if (!o.target.unix_path.empty()) {
    return Status::InvalidArgument(flag + ": TLS is for TCP targets, not the Unix "
                                   "socket " + o.target.unix_path);
  }
  for (RedisTarget* t : all) t->tls = true;
  o.tls.ca_file = f.tls_ca;
  o.tls.cert_file = f.tls_cert;
  o.tls.key_file = f.tls_key;
  o.tls.skip_verify = f.tls_skip_verify;
  o.tls.sni = f.sni;
  if (app.count("--sni") > 0 && f.sni.empty()) return Status::InvalidArgument("--sni: empty name");
  auto ctx = TlsContext::Create(o.tls);
  return ctx.ok() ? Status::OK() : ctx.status();
}

Status BuildTarget(const CLI::App& app, const RunFlags& f, RunConfig* cfg) {
  RedisTarget& t = cfg->load.target;
  if (!f.targets.empty()) {
    if (!f.server.empty() || f.port != 0 || !f.unix_socket.empty()) {
      return Status::InvalidArgument("--target: give either --target or -s/-p/-S, not both");
    }
    auto parsed = ParseTargetUrl(f.targets.front());
    if (!parsed.ok()) return FlagError("--target", parsed.status());
    t = *parsed;
    cfg->target_given = true;
  } else if (!f.unix_socket.empty()) {
    if (!f.server.empty() || f.port != 0) {
      return Status::InvalidArgument("-S/--unix-socket: give either a Unix socket or -s/-p, not both");
    }
    Status s = CheckUnixPath(f.unix_socket);
    if (!s.ok()) return FlagError("-S/--unix-socket", s);
    t.unix_path = f.unix_socket;
    cfg->target_given = true;
  } else if (!f.server.empty() || f.port != 0) {
    if (!f.server.empty()) t.host = f.server;
    if (f.port != 0) t.port = f.port;
    cfg->target_given = true;
  }
  if (t.sentinel() && f.cluster) {
    return Status::InvalidArgument("--cluster: not with a Sentinel target (" + t.Display() +
                                   "): Sentinel watches one primary and its replicas, a cluster "
                                   "has its own failover");
  }
  if (t.sentinel() && !f.protocol.empty() && f.protocol != "resp") {
    return Status::InvalidArgument("--protocol " + Abbreviate(f.protocol) + ": a Sentinel target (" +
                                   t.Display() + ") speaks RESP");
  }
  if (f.cluster && !t.unix_path.empty()) {
    return Status::InvalidArgument(
        "--cluster: needs a TCP target (CLUSTER SLOTS names the masters by host and port), "
        "not the Unix socket " + t.unix_path);
  }
  Status s = BuildPool(f, &cfg->load);
  if (s.ok()) s = BuildProtocol(f, cfg);
  if (!s.ok()) return s;
  s = BuildTls(app, f, cfg);
  if (!s.ok()) return s;
  if (f.db != 0) {  // --db: on the target, or on every member of a pool
    t.db = f.db;
    for (RedisTarget& member : cfg->load.pool) member.db = f.db;
  }
  CredentialFlags cred{app.count("--authenticate") > 0, f.authenticate,
                       app.count("--auth-file") > 0, f.auth_file, f.user, cfg->target_given};
  return ApplyCredentials(cred, &cfg->load);
}

// The numbers CLI11 takes as any double: each refused with the flag, the value and
// what is accepted, before anything reads them.
Status CheckShapeNumbers(const CLI::App& app, const RunFlags& f) {
  auto bad = [](const char* flag, double v, const char* accepted) {
    return Status::InvalidArgument(
        fmt::format("{}: {} is out of range; it takes {}", flag, v, accepted));
  };
  if (app.count("--data-compress-ratio") > 0 &&
      !(std::isfinite(f.compress_ratio) && f.compress_ratio >= 1)) {
    return bad("--data-compress-ratio", f.compress_ratio,
               "a finite ratio >= 1, e.g. 3 (values zstd compresses about 3 times)");
  }
  if (!(std::isfinite(f.key_zipf_exp) && f.key_zipf_exp > 0)) {
    return bad("--key-zipf-exp", f.key_zipf_exp, "a finite exponent > 0, e.g. 0.99");
  }
  if (app.count("--key-stddev") > 0 && !(std::isfinite(f.key_stddev) && f.key_stddev > 0)) {
    return bad("--key-stddev", f.key_stddev, "a finite standard deviation > 0, in keys");
  }
  const bool median_in_range = std::isfinite(f.key_median) &&
                               f.key_median >= static_cast<double>(f.key_min) &&
                               f.key_median <= static_cast<double>(f.key_max);
  if (app.count("--key-median") > 0 && !median_in_range) {
    return Status::InvalidArgument(fmt::format(
        "--key-median: {} is outside the key range; it takes a key index from --key-minimum "
        "{} to --key-maximum {}",
        f.key_median, f.key_min, f.key_max));
  }
  if (app.count("--metrics-addr") > 0 && f.metrics_addr.empty()) {
    return Status::InvalidArgument(
        "--metrics-addr: empty; it takes HOST:PORT, e.g. 127.0.0.1:2112 (leave the flag out "
        "for no metrics)");
  }
  return Status::OK();
}

// A shape flag given for a key pattern no command uses would be ignored.
Status CheckShapesUsed(const CLI::App& app, const LoadOptions& o) {
  auto used = [&](KeyPatternSpec::Kind kind) {
    for (const CommandSpec& c : o.commands) {
      if (c.key_pattern.kind == kind) return true;
    }
    return false;
  };
  const struct {
    const char* flag;
    KeyPatternSpec::Kind kind;
    const char* pattern;
  } kShapes[] = {{"--key-median", KeyPatternSpec::Kind::kGaussian, "G (gaussian)"},
                 {"--key-stddev", KeyPatternSpec::Kind::kGaussian, "G (gaussian)"},
                 {"--key-zipf-exp", KeyPatternSpec::Kind::kZipf, "Z (zipf)"}};
  for (const auto& shape : kShapes) {
    if (app.count(shape.flag) > 0 && !used(shape.kind)) {
      return Status::InvalidArgument(fmt::format(
          "{}: shapes the {} key pattern, which no command uses; give --key-pattern or "
          "--command-key-pattern {}", shape.flag, shape.pattern, shape.pattern[0]));
    }
  }
  return Status::OK();
}

// --wait-replicas N[,TIMEOUT]: RESP, a command WAIT follows (a write), N in 1..100,
// TIMEOUT whole milliseconds from 1 ms, below --request-timeout (WAIT blocks that long).
Status BuildWait(const RunFlags& f, LoadOptions* o) {
  if (f.wait_replicas.empty()) return Status::OK();
  const std::string& text = f.wait_replicas;
  const size_t comma = text.find(',');
  const std::string_view count = std::string_view(text).substr(0, comma);
  int n = 0;
  const auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), n);
  if (ec != std::errc() || end != count.data() + count.size() || n < 1 || n > 100) {
    return Status::InvalidArgument("--wait-replicas: takes N[,TIMEOUT], N replicas from 1 to 100, got '" +
                                   Abbreviate(text) + "'");
  }
  double timeout_s = 0.5;
  if (comma != std::string::npos) {
    auto d = ParseDurationSeconds(text.substr(comma + 1));
    if (!d.ok()) return FlagError("--wait-replicas", d.status());
    timeout_s = *d;
  }
  const double ms = timeout_s * 1000;
  if (ms < 1 || ms != std::floor(ms) || ms >= o->request_timeout_ms) {
    return Status::InvalidArgument(fmt::format(
        "--wait-replicas: TIMEOUT must be whole milliseconds, at least 1ms and below --request-timeout ({} ms), "
        "got '{}'", o->request_timeout_ms, Abbreviate(text)));
  }
  if (o->protocol != Protocol::kResp) {
    return Status::InvalidArgument(std::string("--wait-replicas: Redis's WAIT, not for --protocol ") +
                                   ProtocolName(o->protocol));
  }
  bool writes = false;
  for (const CommandSpec& c : o->commands) writes = writes || !c.counts_hits;
  if (!writes) {
    return Status::InvalidArgument("--wait-replicas: WAIT follows writes, and every command is a read");
  }
  o->wait = {n, static_cast<int>(ms)};
  return Status::OK();
}

// --call-errors: given, it must apply (IPROTO, and a call or eval among the commands).
Status BuildCallErrors(const CLI::App& app, const RunFlags& f, LoadOptions* o) {
  auto mode = iproto::ParseCallErrors(f.call_errors);
  if (!mode) {
    return Status::InvalidArgument("--call-errors: takes auto, none or second-value, got '" +
                                   Abbreviate(f.call_errors) + "'");
  }
  o->call_errors = *mode;
  if (app.count("--call-errors") == 0) return Status::OK();
  if (o->protocol != Protocol::kIproto) {
    return Status::InvalidArgument(std::string("--call-errors: reads Tarantool's call and eval "
                                               "replies, not for --protocol ") +
                                   ProtocolName(o->protocol));
  }
  for (const CommandSpec& c : o->commands) {
    if (c.runs_lua()) return Status::OK();
  }
  return Status::InvalidArgument(
      "--call-errors: reads the replies of call and eval templates, and no --command is one");
}

Status BuildValues(const RunFlags& f, ValueSpec* v) {
  if (!f.data_size_range.empty()) {
    auto r = ParseByteRange(f.data_size_range);
    if (!r.ok()) return FlagError("--data-size-range", r.status());
    v->min_size = r->first;
    v->max_size = r->second;
  } else {
    auto n = ParseByteSize(f.data_size);
    if (!n.ok()) return FlagError("--data-size", n.status());
    v->min_size = v->max_size = *n;
  }
  if (f.random_data && f.compress_ratio > 0) {
    return Status::InvalidArgument("--random-data and --data-compress-ratio exclude each other");
  }
  if (f.random_data) v->content = ValueSpec::Content::kRandom;
  if (f.compress_ratio > 0) {
    v->content = ValueSpec::Content::kCompressible;
    v->compress_ratio = f.compress_ratio;
  }
  Status s = ValidateValueSpec(*v);
  return s.ok() ? s : FlagError("--data-size", s);
}

// --metrics-linger: a duration of 0 .. 1 h, and only with --metrics-addr.
Status BuildLinger(const CLI::App& app, const RunFlags& f, RunConfig* cfg) {
  if (app.count("--metrics-linger") == 0) return Status::OK();
  auto d = ParseDurationSeconds(f.metrics_linger);
  if (!d.ok()) return FlagError("--metrics-linger", d.status());
  if (*d < 0 || *d > 3600) {
    return Status::InvalidArgument("--metrics-linger: must be 0s .. 1h (e.g. 15s)");
  }
  if (*d > 0 && cfg->metrics_host.empty()) {
    return Status::InvalidArgument("--metrics-linger: needs --metrics-addr (nothing to keep up)");
  }
  cfg->metrics_linger_s = *d;
  return Status::OK();
}

Status BuildTimes(const RunFlags& f, LoadOptions* o) {
  auto seconds = [](const std::string& flag, const std::string& text, double* out) {
    auto d = ParseDurationSeconds(text);
    if (!d.ok()) return FlagError(flag, d.status());
    *out = *d;
    return Status::OK();
  };
  double connect = 0, request = 0;
  Status s = seconds("--warmup", f.warmup, &o->warmup_s);
  if (s.ok()) s = seconds("--connect-timeout", f.connect_timeout, &connect);
  if (s.ok()) s = seconds("--request-timeout", f.request_timeout, &request);
  if (s.ok() && !f.duration.empty()) s = seconds("--duration", f.duration, &o->duration_s);
  if (!s.ok()) return s;
  if (connect < 0.001 || request < 0.001) {
    return Status::InvalidArgument("--connect-timeout/--request-timeout: must be at least 1ms");
  }
  o->connect_timeout_ms = static_cast<int>(connect * 1000);
  o->request_timeout_ms = static_cast<int>(request * 1000);
  double min_wait = 0, max_wait = 0;
  s = seconds("--reconnect-min", f.reconnect_min, &min_wait);
  if (s.ok()) s = seconds("--reconnect-max", f.reconnect_max, &max_wait);
  if (!s.ok()) return s;
  if (min_wait < 0.001 || max_wait < min_wait || max_wait > 3600) {
    return Status::InvalidArgument(
        "--reconnect-min/--reconnect-max: need 1ms <= min <= max <= 1h, got " + f.reconnect_min + " and " +
        f.reconnect_max);
  }
  o->reconnect.enabled = f.reconnect;
  o->reconnect.backoff_min_ms = static_cast<int>(min_wait * 1000);
  o->reconnect.backoff_max_ms = static_cast<int>(max_wait * 1000);
  o->reconnect.max_attempts = f.reconnect_attempts;
  if (f.requests > 0 && !f.duration.empty()) {
    return Status::InvalidArgument("--requests and --duration exclude each other");
  }
  if (!f.duration.empty() && o->duration_s <= 0) {
    return Status::InvalidArgument("--duration: must be above 0");
  }
  o->requests = f.requests;
  if (f.requests == 0 && f.duration.empty()) o->duration_s = 10;
  return Status::OK();
}

// "5000", "2.5k", "1M": requests per second.
Result<double> ParseRate(const std::string& text) {
  double scale = 1;
  std::string digits = text;
  if (!digits.empty() && (digits.back() == 'k' || digits.back() == 'K')) scale = 1e3;
  if (!digits.empty() && digits.back() == 'M') scale = 1e6;
  if (scale != 1) digits.pop_back();
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(digits, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (digits.empty() || used != digits.size()) {
    return Status::InvalidArgument("'" + Abbreviate(text) +
                                   "' is not a rate; give requests/s, e.g. 5000 or 20k");
  }
  return v * scale;
}

Status BuildRate(const RunFlags& f, LoadOptions* o) {
  o->poisson = f.arrival == "poisson";
  if (f.rate.empty()) {
    return o->poisson ? Status::InvalidArgument("--arrival: applies to the open loop; give --rate too")
                      : Status::OK();
  }
  auto rate = ParseRate(f.rate);
  if (!rate.ok()) return FlagError("--rate", rate.status());
  Status s = ValidateRate(*rate, o->connections());
  if (!s.ok()) return s;
  o->rate = *rate;
  return Status::OK();
}

// Whether this process may put a thread on SCHED_FIFO at `priority`: a thread made for
// the question tries it on itself and ends, so that no thread is left changed.
Status ProbeRealtime(int priority) {
  int rc = 0;
  std::thread probe([&rc, priority] {
    sched_param param{};
    param.sched_priority = priority;
    rc = pthread_setschedparam(pthread_self(), SCHED_FIFO, &param);
  });
  probe.join();
  if (rc == 0) return Status::OK();
  return Status::InvalidArgument(fmt::format(
      "--realtime {}: the kernel refuses SCHED_FIFO to this process ({}); it needs root, "
      "CAP_SYS_NICE or an RLIMIT_RTPRIO of at least {} (ulimit -r); leave --realtime out to "
      "run on the default scheduler",
      priority, std::strerror(rc), priority));
}

// --schedule, --spin, --cpus and --realtime (after the rate: --schedule and --spin apply
// to the open loop).
Status BuildPacing(const CLI::App& app, const RunFlags& f, LoadOptions* o) {
  if (app.count("--schedule") > 0) {
    if (o->rate <= 0) return Status::InvalidArgument("--schedule: applies to the open loop; give --rate too");
    o->schedule_per_thread = f.schedule == "per-thread";
  }
  if (app.count("--spin") > 0) {
    if (o->rate <= 0) return Status::InvalidArgument("--spin: applies to the open loop; give --rate too");
    auto d = ParseDurationSeconds(f.spin);
    if (!d.ok()) return FlagError("--spin", d.status());
    if (*d * 1e9 > kMaxSpinNs) {
      return Status::InvalidArgument("--spin: at most 10ms, got '" + Abbreviate(f.spin) + "'");
    }
    o->spin_ns = std::llround(*d * 1e9);
  }
  if (app.count("--cpus") > 0) {
    auto cpus = ParseOnlineCpuList(f.cpus, "--cpus");
    if (!cpus.ok()) return cpus.status();
    o->cpus = *cpus;
  }
  o->realtime_priority = f.realtime;
  return f.realtime > 0 ? ProbeRealtime(f.realtime) : Status::OK();
}

// --io. io_uring is tried here, so that a kernel without it is an error before any
// connection (uring) or a stated fall-back to epoll (auto).
Status BuildIo(const RunFlags& f, LoadOptions* o) {
  if (f.io == "epoll") return Status::OK();
  if (f.io != "uring" && f.io != "auto") {
    return Status::InvalidArgument("--io: takes epoll, uring or auto, got '" + Abbreviate(f.io) +
                                   "'");
  }
  std::string why_not;
  if (Result<std::unique_ptr<Uring>> u = Uring::Create(1); !u.ok()) {
    why_not = "io_uring is not available here: " + u.status().message();
  }
  if (why_not.empty()) {
    o->io = IoMode::kUring;
    return Status::OK();
  }
  if (f.io == "uring") return Status::InvalidArgument("--io uring: " + why_not + "; use --io epoll");
  o->io_fallback = why_not;
  return Status::OK();
}

Status CheckFileLimit(int connections) {
  rlimit lim;
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY) return Status::OK();
  const rlim_t needed = static_cast<rlim_t>(connections) + 64;  // + control, server, files
  if (needed <= lim.rlim_cur) return Status::OK();
  return Status::InvalidArgument(
      "--threads x --clients: " + std::to_string(connections) + " connections need about " +
      std::to_string(needed) + " file descriptors, but the limit is " +
      std::to_string(lim.rlim_cur) + " (raise it with ulimit -n)");
}

// An output flag given an empty path (`--json ''`) is refused, not taken as absent.
Status CheckOutputPathsGiven(const CLI::App& app, const RunFlags& f) {
  return RefuseEmptyPaths(app, {{"--json", &f.json_path}, {"--samples", &f.samples_path},
                                {"--hdr-log", &f.hdr_log_path}, {"--hgrm", &f.hgrm_path},
                                {"--history", &f.history_path}});
}

// --json-format, --samples, --samples-cap.
Status BuildFormats(const CLI::App& app, const RunFlags& f, RunConfig* cfg) {
  Status s = CheckOutputPathsGiven(app, f);
  if (!s.ok()) return s;
  if (f.json_format != "memstand" && f.json_format != "memtier") {
    return Status::InvalidArgument("--json-format: '" + Abbreviate(f.json_format) +
                                   "' is not one of memstand, memtier");
  }
  if (f.json_format == "memtier" && f.json_path.empty()) {
    return Status::InvalidArgument("--json-format: needs --json FILE to write to");
  }
  cfg->json_memtier = f.json_format == "memtier";
  if (app.count("--samples-cap") > 0 && f.samples_path.empty()) {
    return Status::InvalidArgument("--samples-cap: needs --samples FILE");
  }
  cfg->samples_path = f.samples_path;
  cfg->load.samples_cap = f.samples_path.empty() ? 0 : static_cast<size_t>(f.samples_cap);
  return Status::OK();
}

std::optional<std::string> GetEnv(const std::string& name) {
  const char* v = std::getenv(name.c_str());
  return v == nullptr ? std::nullopt : std::optional<std::string>(v);
}

// --start-at further ahead or behind, or a --fleet-check longer, is taken for a typo.
constexpr double kMaxStartAheadS = 86400;

// --shard, --shards and --start-at (docs/scale-out.md). After the rate and the pool.
Status BuildFleet(const CLI::App& app, const RunFlags& f, RunConfig* cfg) {
  if (app.count("--shards") > 0 && f.shard != "auto") {
    return Status::InvalidArgument("--shards: goes with --shard auto (else --shard K/N names it)");
  }
  if (!f.start_at.empty()) {
    auto at = ParseStartAt(f.start_at);
    if (!at.ok()) return FlagError("--start-at", at.status());
    if (*at > UnixNowS() + kMaxStartAheadS) {
      return Status::InvalidArgument("--start-at: " + f.start_at +
                                     " is more than 24 h ahead (a typo? the shards would wait)");
    }
    if (*at < UnixNowS() - kMaxStartAheadS) {  // 0 would also read as "no --start-at"
      return Status::InvalidArgument("--start-at: " + f.start_at +
                                     " is more than 24 h ago (a typo? the shard would start at "
                                     "once, not with the others)");
    }
    cfg->load.start_at_unix_s = *at;
  }
  if (!f.fleet_check.empty()) {
    auto grace = ParseDurationSeconds(f.fleet_check);
    if (!grace.ok()) return FlagError("--fleet-check", grace.status());
    if (*grace > kMaxStartAheadS) {
      return Status::InvalidArgument("--fleet-check: " + f.fleet_check +
                                     " is over 24 h (a typo? the run would wait that long after "
                                     "its load)");
    }
    if (!cfg->target_given) return Status::InvalidArgument("--fleet-check: needs --target");
    cfg->load.fleet_check_grace_s = *grace;
  }
  if (f.shard.empty()) return Status::OK();
  if (!cfg->target_given) {
    return Status::InvalidArgument(
        "--shard: needs --target: the shards of a fleet share one server (or pool)");
  }
  auto shard = f.shard == "auto" ? ShardFromEnv(GetEnv, f.shards) : ParseShard(f.shard);
  if (!shard.ok()) return FlagError("--shard", shard.status());
  return ApplyShard(*shard, &cfg->load);
}

void AddFleetFlags(CLI::App* app, RunFlags* f) {
  app->add_option("--shard", f->shard,
                  "K/N: be shard K (0-based) of N processes sharing one workload (key slice, "
                  "seed, rate/N, pool members K, K+N, ...); auto: from JOB_COMPLETION_INDEX "
                  "with --shards, or SLURM_PROCID/SLURM_NTASKS");
  app->add_option("--shards", f->shards, "With --shard auto and JOB_COMPLETION_INDEX: N")
      ->default_str("")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 32));
  app->add_option("--start-at", f->start_at,
                  "Start the measured phase at this whole wall-clock second (RFC 3339 or Unix "
                  "seconds), the warm-up before it; per-second series aligned to it");
  app->add_option("--fleet-check", f->fleet_check,
                  "GRACE, e.g. 5s: after the run wait GRACE for the other shards to end, then "
                  "read the server's counters again (for memstand merge's fleet cross-check)");
}

}  // namespace

void AddRunFlags(CLI::App* app, RunFlags* flags) {
  AddTargetFlags(app, flags);
  AddShapeFlags(app, flags);
  AddWorkloadFlags(app, flags);
  AddFleetFlags(app, flags);
  app->add_option("--percentiles", flags->percentiles, "Latency percentiles to print, e.g. 50,99,99.9");
  app->add_option("--json", flags->json_path, "Write the result as JSON (docs/json-format.md)");
  app->add_option("--json-format", flags->json_format,
                  "memstand (default) or memtier: memtier_benchmark's JSON key layout");
  app->add_option("--samples", flags->samples_path,
                  "Write raw per-request samples as CSV (docs/samples.md)");
  app->add_option("--samples-cap", flags->samples_cap,
                  "Most samples kept; past it a uniform reservoir (default 1000000)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{100'000'000}));
  app->add_option("--hdr-log", flags->hdr_log_path,
                  "Write an HdrHistogram interval log (format 1.3, a tag per command, ms)");
  app->add_option("--history", flags->history_path,
                  "Write a record of every operation for `memstand check` (docs/history.md)");
  app->add_option("--hgrm", flags->hgrm_path,
                  "Write the percentile distribution of all commands (.hgrm, ms)");
  app->add_option("--metrics-addr", flags->metrics_addr,
                  "Serve Prometheus metrics during the run at HOST:PORT, e.g. 127.0.0.1:2112");
  app->add_option("--metrics-linger", flags->metrics_linger,
                  "Keep --metrics-addr serving the final totals this long after the run, e.g. "
                  "15s (at least the scrape interval; Ctrl-C ends it; default 0s)");
  app->add_flag("-q,--quiet", flags->quiet, "Print only the summary table; no progress line");
  app->add_flag("--strict", flags->strict,
                "Exit 1 when the statistics' validity verdict is suspect (block 8, docs/method.md)");
}

namespace {

// An output naming a file run reads (the password file, the TLS files, a Unix socket
// target) would destroy it: refused before anything is opened or sent (exit 2), as
// merge, compare and report refuse theirs.
Status CheckOutputsSpareRunInputs(const RunFlags& f, const RunConfig& cfg) {
  std::vector<std::string> inputs;
  for (const std::string& path : {f.auth_file, f.tls_ca, f.tls_cert, f.tls_key, cfg.load.target.unix_path}) {
    if (!path.empty()) inputs.push_back(path);
  }
  for (const RedisTarget& t : cfg.load.pool) {
    if (!t.unix_path.empty()) inputs.push_back(t.unix_path);
  }
  return CheckOutputsSpareInputs({{"--json", f.json_path},
                                  {"--samples", f.samples_path},
                                  {"--hdr-log", f.hdr_log_path},
                                  {"--hgrm", f.hgrm_path},
                                  {"--history", f.history_path}},
                                 inputs);
}

}  // namespace

Result<RunConfig> BuildRunConfig(const CLI::App& app, const RunFlags& f) {
  RunConfig cfg;
  LoadOptions& o = cfg.load;
  Status s = CheckShapeNumbers(app, f);
  if (s.ok()) s = BuildTarget(app, f, &cfg);
  if (s.ok()) s = BuildTimes(f, &o);
  if (s.ok() && !f.reconnect) {
    for (const char* flag : {"--reconnect-min", "--reconnect-max", "--reconnect-attempts"}) {
      if (app.count(flag) > 0) s = Status::InvalidArgument(std::string(flag) + ": needs --reconnect");
    }
  }
  o.key_prefix = f.key_prefix;
  if (s.ok()) s = BuildValues(f, &o.value);
  if (s.ok()) s = BuildCommands(app, f, &o);
  if (s.ok()) s = CheckShapesUsed(app, o);
  if (s.ok()) s = BuildCallErrors(app, f, &o);
  if (s.ok()) s = BuildWait(f, &o);
  if (!s.ok()) return s;
  if (f.key_min > f.key_max) {
    return Status::InvalidArgument("--key-minimum: must not be above --key-maximum");
  }
  auto pct = ParsePercentiles(f.percentiles);
  if (!pct.ok()) return FlagError("--percentiles", pct.status());
  o.percentiles = *pct;
  o.resp = f.resp;
  o.threads = f.threads;
  o.clients = f.clients;
  o.pipeline = f.pipeline;
  o.key_prefix = f.key_prefix;
  o.key_min = f.key_min;
  o.key_max = f.key_max;
  o.seed = f.seed;
  o.exclusive_server = f.exclusive;
  o.cluster = f.cluster;
  o.read_from_replicas = f.read_from_replicas;
  if (o.read_from_replicas && !o.cluster) {
    return Status::InvalidArgument("--read-from-replicas: needs --cluster");
  }
  if (o.cluster && o.target.db != 0) {
    return Status::InvalidArgument("--cluster: a cluster has database 0 only; drop --db or /db");
  }
  s = BuildRate(f, &o);
  if (s.ok()) s = BuildPacing(app, f, &o);
  if (s.ok()) s = BuildFleet(app, f, &cfg);
  if (s.ok()) s = BuildIo(f, &o);
  if (s.ok()) s = CheckFileLimit(o.connections());
  if (!s.ok()) return s;
  cfg.json_path = f.json_path;
  s = BuildFormats(app, f, &cfg);
  if (s.ok()) s = CheckOutputsSpareRunInputs(f, cfg);
  if (!s.ok()) return s;
  cfg.hdr_log_path = f.hdr_log_path;
  cfg.hgrm_path = f.hgrm_path;
  cfg.load.history_path = f.history_path;
  if (!f.history_path.empty()) {
    auto plan = PlanHistory(cfg.load);  // the engine asks again; a bad mix is a flag error
    if (!plan.ok()) return plan.status();
  }
  if (!f.metrics_addr.empty()) {
    auto addr = ParseListenAddress(f.metrics_addr);
    if (!addr.ok()) return addr.status();
    cfg.metrics_host = addr->first;
    cfg.metrics_port = addr->second;
  }
  s = BuildLinger(app, f, &cfg);
  if (!s.ok()) return s;
  cfg.quiet = f.quiet;
  cfg.strict = f.strict;
  cfg.redis_server = f.redis_server;
  return cfg;
}

}  // namespace memstand::cli

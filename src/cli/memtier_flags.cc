#include "cli/memtier_flags.h"

#include <map>

#include "util/redact.h"

namespace memstand::cli {

namespace {

constexpr const char* kReconnectEvery =
    "memstand opens a connection again only when it is lost (--reconnect-on-error), not every N requests";
constexpr const char* kImport = "memstand generates its data; no import or verification";
constexpr const char* kStatsd = "no StatsD/Graphite; memstand run --metrics-addr serves Prometheus";
constexpr const char* kWait = "no WAIT mix; give --command \"WAIT n t\" with --command-ratio";
constexpr const char* kStair = "no staircase ramp-up; memstand sweep --clients steps the clients";

Status Refuse(const std::string& flag, const std::string& why) {
  return Status::InvalidArgument("memtier flag " + flag + ": " + why);
}

// The flags as given, in order (per-command flags follow their --command).
struct Given {
  std::string name;  // long name
  std::string value;
};

Result<const MemtierFlag*> Lookup(const std::string& arg, bool is_long, const std::string& name) {
  for (const MemtierFlag& f : MemtierFlags()) {
    if (is_long ? name == f.long_name : (name.size() == 1 && name[0] == f.short_name)) return &f;
  }
  return Status::InvalidArgument("'" + Abbreviate(arg) +
                                 "' is not a memtier_benchmark flag (memstand memtier --help lists them)");
}

Result<std::vector<Given>> Split(const std::vector<std::string>& args) {
  std::vector<Given> out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool is_long = a.rfind("--", 0) == 0;
    if (!is_long && (a.size() < 2 || a[0] != '-')) {
      return Status::InvalidArgument("unexpected argument '" + Abbreviate(a) + "'");
    }
    std::string name = is_long ? a.substr(2) : a.substr(1, 1);
    std::string value;
    bool has_value = false;
    if (is_long && name.find('=') != std::string::npos) {
      value = name.substr(name.find('=') + 1);
      name = name.substr(0, name.find('='));
      has_value = true;
    } else if (!is_long && a.size() > 2) {
      value = a.substr(2);
      has_value = true;
    }
    auto flag = Lookup(a, is_long, name);
    if (!flag.ok()) return flag.status();
    const std::string shown = std::string("--") + (*flag)->long_name;
    if ((*flag)->refused != nullptr) return Refuse(shown, (*flag)->refused);
    if ((*flag)->takes_value && !has_value) {
      if (i + 1 >= args.size()) return Refuse(shown, "needs a value");
      value = args[++i];
    } else if (!(*flag)->takes_value && has_value) {
      return Refuse(shown, "takes no value");
    }
    out.push_back({(*flag)->long_name, value});
  }
  return out;
}

Result<uint64_t> Whole(const std::string& flag, const std::string& v) {
  size_t used = 0;
  uint64_t n = 0;
  try {
    n = std::stoull(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (v.empty() || used != v.size() || v[0] == '-') {
    return Refuse("--" + flag, "'" + Abbreviate(v) + "' is not a whole number");
  }
  return n;
}

bool ValidPatternLetter(char c) { return c == 'R' || c == 'S' || c == 'G' || c == 'Z' || c == 'P'; }

Status CheckKeyPattern(const std::string& p) {
  if (p.size() != 3 || p[1] != ':' || !ValidPatternLetter(p[0]) || !ValidPatternLetter(p[2])) {
    return Refuse("--key-pattern", "must be [S/R/G/P/Z]:[S/R/G/P/Z], got '" + Abbreviate(p) + "'");
  }
  if ((p[0] == 'P' || p[2] == 'P') && p[0] != p[2]) {
    return Refuse("--key-pattern", "parallel (P) must be given for both SET and GET (P:P)");
  }
  return Status::OK();
}

// The memtier flags that only shape the output or the runs.
bool TakeOutputFlag(const Given& g, MemtierPlan* plan) {
  if (g.name == "hide-histogram") return plan->hide_histogram = true;
  if (g.name == "show-config") return plan->show_config = true;
  if (g.name == "print-all-runs") return plan->print_all_runs = true;
  if (g.name == "help") return plan->help = true;
  if (g.name == "version") return plan->version = true;
  if (g.name == "json-out-file") {
    plan->json_out_file = g.value;
    return true;
  }
  if (g.name == "out-file") {
    plan->out_file = g.value;
    return true;
  }
  if (g.name == "hdr-file-prefix") {
    plan->hdr_file_prefix = g.value;
    return true;
  }
  return false;
}

}  // namespace

const std::vector<MemtierFlag>& MemtierFlags() {
  static const std::vector<MemtierFlag> kFlags = {
      {"server", 's', true, nullptr},
      {"host", 'h', true, nullptr},
      {"port", 'p', true, nullptr},
      {"unix-socket", 'S', true, nullptr},
      {"ipv4", '4', false, "memstand resolves as the system does; give an IPv4 literal to -s"},
      {"ipv6", '6', false, "memstand resolves as the system does; give an IPv6 literal to -s"},
      {"protocol", 'P', true, nullptr},
      {"authenticate", 'a', true, nullptr},
      {"uri", 'u', true, nullptr},
      {"tls", 0, false, nullptr},
      {"cert", 0, true, nullptr},
      {"key", 0, true, nullptr},
      {"cacert", 0, true, nullptr},
      {"tls-skip-verify", 0, false, nullptr},
      {"tls-protocols", 0, true, "memstand offers TLS 1.2 and later (OpenSSL's choice); no protocol list"},
      {"sni", 0, true, nullptr},
      {"run-count", 'x', true, nullptr},
      {"debug", 'D', false, "no per-request debug trace; memstand run --samples keeps every request"},
      {"cluster-mode", 0, false, nullptr},
      {"help", 0, false, nullptr},
      {"version", 'v', false, nullptr},
      {"out-file", 'o', true, nullptr},
      {"json-out-file", 0, true, nullptr},
      {"client-stats", 0, true, "no per-client statistics files"},
      {"hdr-file-prefix", 0, true, nullptr},
      {"show-config", 0, false, nullptr},
      {"hide-histogram", 0, false, nullptr},
      {"print-percentiles", 0, true, nullptr},
      {"print-all-runs", 0, false, nullptr},
      {"command-stats-breakdown", 0, true, nullptr},
      {"statsd-host", 0, true, kStatsd},
      {"statsd-port", 0, true, kStatsd},
      {"statsd-prefix", 0, true, kStatsd},
      {"statsd-run-label", 0, true, kStatsd},
      {"graphite-port", 0, true, kStatsd},
      {"requests", 'n', true, nullptr},
      {"rate-limiting", 0, true, nullptr},
      {"clients", 'c', true, nullptr},
      {"threads", 't', true, nullptr},
      {"test-time", 0, true, nullptr},
      {"clients-start", 0, true, kStair},
      {"clients-step", 0, true, kStair},
      {"step-duration", 0, true, kStair},
      {"ratio", 0, true, nullptr},
      {"pipeline", 0, true, nullptr},
      {"reconnect-interval", 0, true, kReconnectEvery},
      {"reconnect-on-error", 0, false, nullptr},
      {"max-reconnect-attempts", 0, true, nullptr},
      {"reconnect-backoff-factor", 0, true, nullptr},
      {"connection-timeout", 0, true, nullptr},
      {"thread-conn-start-min-jitter-micros", 0, true, "connections open as fast as they can"},
      {"thread-conn-start-max-jitter-micros", 0, true, "connections open as fast as they can"},
      {"multi-key-get", 0, true,
       "every __key__ of one request is the same key, so an MGET of distinct keys cannot be built"},
      {"select-db", 0, true, nullptr},
      {"distinct-client-seed", 0, false, nullptr},
      {"randomize", 0, false, nullptr},
      {"command", 0, true, nullptr},
      {"command-ratio", 0, true, nullptr},
      {"command-key-pattern", 0, true, nullptr},
      {"monitor-input", 0, true, "no MONITOR replay"},
      {"monitor-pattern", 0, true, "no MONITOR replay"},
      {"scan-incremental-iteration", 0, false, "no SCAN cursor following"},
      {"scan-incremental-max-iterations", 0, true, "no SCAN cursor following"},
      {"data-size", 'd', true, nullptr},
      {"data-offset", 0, true, "no SETRANGE/GETRANGE offsets"},
      {"random-data", 'R', false, nullptr},
      {"data-size-range", 0, true, nullptr},
      {"data-size-list", 0, true, nullptr},
      {"data-size-pattern", 0, true, nullptr},
      {"expiry-range", 0, true, nullptr},
      {"data-import", 0, true, kImport},
      {"data-verify", 0, false, kImport},
      {"verify-only", 0, false, kImport},
      {"generate-keys", 0, false, kImport},
      {"no-expiry", 0, false, kImport},
      {"key-prefix", 0, true, nullptr},
      {"key-minimum", 0, true, nullptr},
      {"key-maximum", 0, true, nullptr},
      {"key-pattern", 0, true, nullptr},
      {"key-stddev", 0, true, nullptr},
      {"key-median", 0, true, nullptr},
      {"key-zipf-exp", 0, true, nullptr},
      {"wait-ratio", 0, true, kWait},
      {"num-slaves", 0, true, kWait},
      {"wait-timeout", 0, true, kWait},
  };
  return kFlags;
}

std::string MemtierTerms(const MemtierPlan& plan, const std::string& message) {
  const std::string parse_prefix = "as memstand run flags: ";  // RunConfigOf's, for CLI11's errors
  const size_t at = message.rfind(parse_prefix, 0) == 0 ? parse_prefix.size() : 0;
  for (const auto& [run, memtier] : plan.run_flag_of) {
    const size_t end = at + run.size();
    if (message.compare(at, run.size(), run) != 0 || end >= message.size() ||
        (message[end] != ':' && message[end] != ' ')) {
      continue;
    }
    const size_t rest = message.find_first_not_of(": ", end);
    return "memtier flag --" + memtier + " (memstand run " + run + "): " +
           (rest == std::string::npos ? std::string() : message.substr(rest));
  }
  return message;
}

namespace {

// A memtier flag passed on as one `memstand run` flag with its value unchanged.
struct Rename {
  const char* memtier;
  const char* run;
};

constexpr Rename kSecurityRenames[] = {{"cert", "--tls-cert"}, {"key", "--tls-key"},
                                       {"cacert", "--tls-ca"}, {"sni", "--sni"}};
constexpr Rename kKeyRenames[] = {{"key-prefix", "--key-prefix"}, {"key-minimum", "--key-minimum"}};
constexpr Rename kKeySpreadRenames[] = {{"key-stddev", "--key-stddev"}, {"key-median", "--key-median"}};

// Builds a MemtierPlan from the flags as given, one concern a step, each step appending
// its `memstand run` flags in the order the plan has always listed them.
class PlanBuilder {
 public:
  // Takes the output flags, gathers --command and its per-command flags in order, and
  // keeps the last value of every other flag (getopt: the last one wins).
  Status Gather(const std::vector<Given>& given) {
    for (const Given& g : given) {
      const bool path = g.name == "out-file" || g.name == "json-out-file" || g.name == "hdr-file-prefix";
      if (path && g.value.empty()) return Refuse("--" + g.name, "needs a file path, got ''");
      if (TakeOutputFlag(g, &plan_)) continue;
      if (g.name == "command" || g.name == "command-ratio" || g.name == "command-key-pattern") {
        commands_.push_back("--" + g.name);
        commands_.push_back(g.value);
        continue;
      }
      last_[g.name == "host" ? "server" : g.name] = g.value;
    }
    return Status::OK();
  }

  Result<MemtierPlan> Build(uint64_t randomize_seed) {
    seed_ = randomize_seed;
    plan_.json_line.out_file = plan_.out_file;
    plan_.json_line.print_all_runs = plan_.print_all_runs;
    for (Status (PlanBuilder::*step)() : {&PlanBuilder::Target, &PlanBuilder::Security, &PlanBuilder::Shape,
                                          &PlanBuilder::Reporting, &PlanBuilder::Keys, &PlanBuilder::Data,
                                          &PlanBuilder::Mix}) {
      Status s = (this->*step)();
      if (!s.ok()) return s;
    }
    return std::move(plan_);
  }

 private:
  bool Has(const char* name) const { return last_.count(name) > 0; }
  const std::string& Value(const char* name) { return last_[name]; }
  std::string ValueOr(const char* name, const char* fallback) { return Has(name) ? last_[name] : fallback; }
  void Add(std::initializer_list<std::string> run_args) {
    plan_.run_args.insert(plan_.run_args.end(), run_args);
  }

  void Pass(const char* memtier, const char* run) {
    if (!Has(memtier)) return;
    Add({run, last_[memtier]});
    plan_.run_flag_of.emplace_back(run, memtier);
  }
  template <size_t N>
  void PassAll(const Rename (&renames)[N]) {
    for (const Rename& r : renames) Pass(r.memtier, r.run);
  }

  // A whole-number flag that must be above 0, or `fallback` when not given.
  Result<uint64_t> Positive(const char* name, const char* fallback) {
    auto n = Whole(name, ValueOr(name, fallback));
    if (n.ok() && *n == 0) return Refuse(std::string("--") + name, "must be above 0");
    return n;
  }

  // -u, -S or -s/-p (memtier's default localhost:6379), then --protocol.
  Status Target() {
    if (Has("uri")) {
      if (Has("server") || Has("port") || Has("unix-socket")) {
        return Refuse("--uri", "give either -u or -s/-h/-p/-S, not both");
      }
      Add({"--target", Value("uri")});
      plan_.json_line.uri_given = true;
    } else if (Has("unix-socket")) {
      Pass("unix-socket", "-S");
    } else {
      Add({"-s", ValueOr("server", "localhost"), "-p", ValueOr("port", "6379")});
    }
    if (!Has("protocol")) return Status::OK();
    const std::string& p = Value("protocol");
    if (p == "resp2" || p == "resp3") {
      Add({"--resp", p.substr(4)});
      plan_.json_line.resp2 = p == "resp2";
    } else if (p == "memcache_text") {
      Add({"--protocol", "memcache"});
    } else if (p == "memcache_binary") {
      return Refuse("--protocol memcache_binary", "memstand speaks memcached's text protocol only");
    } else if (p != "redis") {
      return Refuse("--protocol", "'" + Abbreviate(p) + "' is not redis, resp2, resp3, memcache_text");
    }
    return Status::OK();
  }

  // Password, TLS, cluster mode and database.
  Status Security() {
    Pass("authenticate", "-a");
    if (Has("tls")) plan_.run_args.push_back("--tls");
    if (Has("tls-skip-verify")) plan_.run_args.push_back("--tls-skip-verify");
    PassAll(kSecurityRenames);
    if (Has("cluster-mode")) {
      plan_.run_args.push_back("--cluster");
      plan_.cluster_mode = true;
    }
    if (Has("select-db")) {
      auto db = Whole("select-db", Value("select-db"));
      if (!db.ok()) return db.status();
    }
    Pass("select-db", "--db");
    return Status::OK();
  }

  // Connections, the run's length (memtier's -n is per connection), rate and pipeline.
  Status Shape() {
    auto clients = Whole("clients", ValueOr("clients", "50"));  // memtier: 4 threads of 50 clients
    auto threads = Whole("threads", ValueOr("threads", "4"));
    if (!clients.ok()) return clients.status();
    if (!threads.ok()) return threads.status();
    if (*clients == 0 || *threads == 0) return Refuse("--clients/--threads", "must be above 0");
    const uint64_t connections = *clients * *threads;
    Add({"-c", std::to_string(*clients), "-t", std::to_string(*threads)});
    if (Has("requests") && Has("test-time")) {
      return Refuse("--requests", "--test-time and --requests are mutually exclusive (as in memtier)");
    }
    if (Has("requests") && Value("requests") == "allkeys") {
      auto per_client = AllkeysPerClient(connections);
      if (!per_client.ok()) return per_client.status();
      Add({"--requests", std::to_string(*per_client * connections)});
    } else if (Has("requests")) {
      auto n = Positive("requests", "");
      if (!n.ok()) return n.status();
      Add({"--requests", std::to_string(*n * connections)});
    } else if (Has("test-time")) {
      auto s = Positive("test-time", "");
      if (!s.ok()) return s.status();
      Add({"--duration", std::to_string(*s) + "s"});
      plan_.run_flag_of.emplace_back("--duration", "test-time");
    } else {
      Add({"--requests", std::to_string(10000 * connections)});  // memtier's default
    }
    if (Has("rate-limiting")) {  // memtier: per connection
      auto rate = Positive("rate-limiting", "");
      if (!rate.ok()) return rate.status();
      Add({"--rate", std::to_string(*rate * connections)});
    }
    Pass("pipeline", "--pipeline");
    if (Has("connection-timeout")) {
      auto s = Whole("connection-timeout", Value("connection-timeout"));
      if (!s.ok()) return s.status();
      if (*s == 0) return Refuse("--connection-timeout 0", "memstand always bounds a connect; give 1 or more");
      Add({"--connect-timeout", std::to_string(*s) + "s"});
      plan_.json_line.connection_timeout_s = *s;
    }
    return Reconnect();
  }

  // memtier's loading idiom -n allkeys, as memtier_benchmark.cpp's config_init_defaults
  // counts it: key_maximum - key_minimum requests per client; with --key-pattern P:P
  // (each client walks its own slice of the range) that over the clients, plus one, so
  // the slices together cover every key. A count of 0 becomes memtier's default 10000.
  Result<uint64_t> AllkeysPerClient(uint64_t connections) {
    auto lo = Whole("key-minimum", ValueOr("key-minimum", "0"));
    auto hi = Whole("key-maximum", ValueOr("key-maximum", "10000000"));
    if (!lo.ok()) return lo.status();
    if (!hi.ok()) return hi.status();
    if (*hi < *lo) return Refuse("--requests allkeys", "--key-maximum is below --key-minimum");
    uint64_t n = *hi - *lo;
    if (ValueOr("key-pattern", "R:R") == "P:P") n = n / connections + 1;
    if (n == 0) n = 10000;
    if (n > UINT64_MAX / connections) {
      return Refuse("--requests allkeys", "the key range times the connections is too many requests");
    }
    return n;
  }

  // --reconnect-on-error is --reconnect; its attempts limit passes; memstand's wait
  // doubles per failed attempt (50 ms to 1 s), so a backoff factor of 2 only.
  Status Reconnect() {
    if (!Has("reconnect-on-error")) {
      for (const char* flag : {"max-reconnect-attempts", "reconnect-backoff-factor"}) {
        if (Has(flag)) return Refuse(std::string("--") + flag, "needs --reconnect-on-error");
      }
      return Status::OK();
    }
    Add({"--reconnect"});
    plan_.run_flag_of.emplace_back("--reconnect", "reconnect-on-error");
    if (Has("max-reconnect-attempts")) {
      auto n = Whole("max-reconnect-attempts", Value("max-reconnect-attempts"));
      if (!n.ok()) return n.status();
      Add({"--reconnect-attempts", std::to_string(*n)});
      plan_.run_flag_of.emplace_back("--reconnect-attempts", "max-reconnect-attempts");
    }
    if (Has("reconnect-backoff-factor") && Value("reconnect-backoff-factor") != "2") {
      return Refuse("--reconnect-backoff-factor",
                    "memstand doubles the wait after each failed attempt (from 50 ms up to 1 s): give 2");
    }
    return Status::OK();
  }

  // Runs, percentiles, statistics and the seed.
  Status Reporting() {
    if (Has("run-count")) {
      auto x = Whole("run-count", Value("run-count"));
      if (!x.ok()) return x.status();
      if (*x == 0 || *x > 10000) return Refuse("--run-count", "must be 1 .. 10000");
      plan_.run_count = static_cast<int>(*x);
    }
    Add({"--percentiles", ValueOr("print-percentiles", "50,99,99.9")});
    if (Has("command-stats-breakdown") && Value("command-stats-breakdown") != "command") {
      return Refuse("--command-stats-breakdown", "only 'command' (statistics by command name)");
    }
    if (Has("randomize")) Add({"--seed", std::to_string(seed_)});
    // Has("distinct-client-seed"): memstand seeds every connection on its own anyway.
    return Status::OK();
  }

  Status Keys() {
    PassAll(kKeyRenames);
    Add({"--key-maximum", ValueOr("key-maximum", "10000000")});
    key_pattern_ = ValueOr("key-pattern", "R:R");
    Status s = CheckKeyPattern(key_pattern_);
    if (!s.ok()) return s;
    PassAll(kKeySpreadRenames);
    return Status::OK();
  }

  // Value sizes, and the expiry memtier's own SET carries.
  Status Data() {
    Pass("data-size", "-d");
    if (Has("random-data")) plan_.run_args.push_back("-R");
    Pass("data-size-range", "--data-size-range");
    if (Has("data-size-list")) {
      const std::string& l = Value("data-size-list");
      if (l.find(',') != std::string::npos || l.find(':') == std::string::npos) {
        return Refuse("--data-size-list", "one size:weight only (memstand has no weighted size list)");
      }
      Add({"-d", l.substr(0, l.find(':'))});
      plan_.json_line.data_size_list = l;
    }
    if (Has("data-size-pattern") && Value("data-size-pattern") != "R") {
      return Refuse("--data-size-pattern", "only R (sizes drawn at random from the range)");
    }
    if (!Has("expiry-range") || Value("expiry-range") == "0-0") return Status::OK();
    const std::string& e = Value("expiry-range");
    const size_t dash = e.find('-');
    if (dash == std::string::npos || e.substr(0, dash) != e.substr(dash + 1)) {
      return Refuse("--expiry-range", "one expiry only (MIN-MIN): memstand draws no random expiry");
    }
    if (!commands_.empty() || (Has("protocol") && Value("protocol") == "memcache_text")) {
      return Refuse("--expiry-range", "applies to memtier's RESP SET, not with --command or memcache");
    }
    set_text_ += " EX " + e.substr(0, dash);
    plan_.json_line.expiry_range = e.substr(0, dash) + ":" + e.substr(dash + 1);
    return Status::OK();
  }

  // The mix: memtier's SET:GET by --ratio and --key-pattern, or its --command list.
  Status Mix() {
    bool zipf = key_pattern_[0] == 'Z' || key_pattern_[2] == 'Z';
    if (!commands_.empty()) {
      plan_.arbitrary_commands = true;
      for (size_t i = 0; i < commands_.size(); i += 2) {
        if (commands_[i] == "--command-key-pattern") zipf = zipf || commands_[i + 1] == "Z";
      }
      plan_.run_args.insert(plan_.run_args.end(), commands_.begin(), commands_.end());
    } else if (set_text_ != kPlainSet) {
      Status s = WeightedSetGet();
      if (!s.ok()) return s;
    } else {
      Add({"--ratio", ValueOr("ratio", "1:10"), "--key-pattern", key_pattern_});
    }
    if (Has("key-zipf-exp")) {
      Pass("key-zipf-exp", "--key-zipf-exp");
    } else if (zipf) {
      Add({"--key-zipf-exp", "1"});  // memtier's default exponent
    }
    return Status::OK();
  }

  // SET (with its expiry) and GET as two --command entries weighted by --ratio; a weight
  // of 0 leaves the command out (1:0 is SETs only), as memstand run's --ratio.
  Status WeightedSetGet() {
    std::string set_weight = "1", get_weight = "10";  // memtier's default --ratio
    if (Has("ratio")) {
      const std::string& ratio = Value("ratio");
      const size_t colon = ratio.find(':');
      if (colon == std::string::npos) return Refuse("--ratio", "must be SET:GET, e.g. 1:10");
      set_weight = ratio.substr(0, colon);
      get_weight = ratio.substr(colon + 1);
    }
    if (set_weight != "0") {
      Add({"--command", set_text_, "--command-key-pattern", key_pattern_.substr(0, 1), "--command-ratio",
           set_weight});
    }
    if (get_weight != "0") {
      Add({"--command", "GET __key__", "--command-key-pattern", key_pattern_.substr(2), "--command-ratio",
           get_weight});
    }
    return Status::OK();
  }

  static constexpr const char* kPlainSet = "SET __key__ __data__";
  MemtierPlan plan_;
  uint64_t seed_ = 0;
  std::map<std::string, std::string> last_;
  std::vector<std::string> commands_;  // --command and its per-command flags, in order
  std::string key_pattern_;
  std::string set_text_ = kPlainSet;
};

}  // namespace

Result<MemtierPlan> MapMemtierArgs(const std::vector<std::string>& args, uint64_t randomize_seed) {
  auto given = Split(args);
  if (!given.ok()) return given.status();
  PlanBuilder builder;
  Status s = builder.Gather(*given);
  if (!s.ok()) return s;
  return builder.Build(randomize_seed);
}

}  // namespace memstand::cli

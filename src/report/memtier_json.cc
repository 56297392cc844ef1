// MemtierJson: docs/json-format.md ("memtier layout") is its specification, and
// tests/fixtures/memtier_2_default.json a document of the layout it follows.
#include "report/memtier_json.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>

#include "stats/encoded_histogram.h"
#include "stats/hdr_log.h"

namespace memstand {

namespace {

using Json = nlohmann::ordered_json;

constexpr int64_t kMaxMicros = 3'600'000'000LL;  // one hour, as memstand's histograms

Json PercentilesJson(const HdrHistogram& h, const std::vector<double>& percentiles) {
  Json j = Json::object();
  for (double p : percentiles) {
    j[MemtierPercentileKey(p)] = static_cast<double>(h.ValueAtPercentile(p)) / kMemtierNsPerMs;
  }
  j["Histogram log format"] = {
      {"Compressed Histogram", EncodeCompressedV2Base64(MemtierMicros(h))}};
  return j;
}

// One second of a "Time-Serie": memtier leaves the latencies out of a second without
// replies.
Json SecondJson(const SeriesPoint& p, const HdrHistogram& h, const std::vector<double>& percentiles) {
  Json j;
  j["Bytes RX"] = p.bytes_in;
  j["Bytes TX"] = p.bytes_out;
  j["Count"] = p.ops;
  if (h.total_count() == 0) return j;
  const double mean_ms = h.mean() / kMemtierNsPerMs;
  j["Average Latency"] = mean_ms;
  j["Accumulated Latency"] = std::llround(mean_ms * static_cast<double>(h.total_count()));
  j["Min Latency"] = static_cast<double>(h.min()) / kMemtierNsPerMs;
  j["Max Latency"] = static_cast<double>(h.max()) / kMemtierNsPerMs;
  for (double pct : percentiles) {
    j[MemtierPercentileKey(pct)] = static_cast<double>(h.ValueAtPercentile(pct)) / kMemtierNsPerMs;
  }
  return j;
}

// The per-second series of the commands `indices` together, keyed by the second ("0",
// "1", ...) as memtier's "Time-Serie": counts and bytes summed, the seconds' histograms
// added.
Json TimeSerieJson(const RunResult& r, const std::vector<size_t>& indices,
                   const std::vector<double>& percentiles) {
  std::map<int, std::pair<SeriesPoint, HdrHistogram>> seconds;
  for (size_t i : indices) {
    if (i >= r.series.size()) continue;
    for (const SeriesPoint& p : r.series[i]) {
      auto& [sum, h] = seconds[p.second];
      sum.ops += p.ops;
      sum.bytes_in += p.bytes_in;
      sum.bytes_out += p.bytes_out;
      if (p.latency.v2_base64.empty()) continue;
      auto decoded = DecodeHistogram(p.latency);
      if (decoded.ok() && decoded->counts_len() == h.counts_len()) h.Add(*decoded);
    }
  }
  Json j = Json::object();
  for (const auto& [second, point] : seconds) {
    j[std::to_string(second)] = SecondJson(point.first, point.second, percentiles);
  }
  return j;
}

// One "Sets"/"Gets"/.../"Totals" object.
Json StatsJson(const CommandStats& s, double secs, const std::vector<double>& percentiles,
               uint64_t connection_errors, Json time_serie) {
  const HdrHistogram& h = s.latency_ns;
  const double mean_ms = h.mean() / kMemtierNsPerMs;
  const double kb_rx = MemtierPerSecond(static_cast<double>(s.bytes_in), secs) / 1024;
  const double kb_tx = MemtierPerSecond(static_cast<double>(s.bytes_out), secs) / 1024;
  Json j;
  j["Count"] = s.ops;
  j["Ops/sec"] = MemtierPerSecond(static_cast<double>(s.ops), secs);
  j["Hits/sec"] = MemtierPerSecond(static_cast<double>(s.hits), secs);
  j["Misses/sec"] = MemtierPerSecond(static_cast<double>(s.misses), secs);
  j["Connection Errors/sec"] = MemtierPerSecond(static_cast<double>(connection_errors), secs);
  j["Connection Errors"] = connection_errors;
  j["Latency"] = mean_ms;
  j["Average Latency"] = mean_ms;
  j["Accumulated Latency"] = std::llround(mean_ms * static_cast<double>(h.total_count()));
  j["Min Latency"] = static_cast<double>(h.min()) / kMemtierNsPerMs;
  j["Max Latency"] = static_cast<double>(h.max()) / kMemtierNsPerMs;
  j["KB/sec"] = kb_rx + kb_tx;
  j["KB/sec RX/TX"] = kb_rx + kb_tx;
  j["KB/sec RX"] = kb_rx;
  j["KB/sec TX"] = kb_tx;
  j["Time-Serie"] = std::move(time_serie);
  j["Percentile Latencies"] = PercentilesJson(h, percentiles);
  return j;
}

Json RuntimeJson(const RunResult& r) {
  const int64_t start_ms = std::llround(r.measured_start_unix_s * 1000);
  const int64_t duration_ms = std::llround(r.measured_s * 1000);
  return {{"Start time", start_ms},
          {"Finish time", start_ms + duration_ms},
          {"Total duration", duration_ms},
          {"Time unit", "MILLISECONDS"},
          {"Interrupted", r.interrupted ? "true" : "false"}};
}

// True when every command is SET or GET: memtier's own mode (no --command), whose JSON
// has "Sets", "Gets" and "Waits".
bool MemtierSetGetOnly(const RunReport& rep) {
  for (const MemtierGroup& g : MemtierGroups(rep)) {
    if (g.name != "Sets" && g.name != "Gets") return false;
  }
  return true;
}

Json AllStatsJson(const RunReport& rep, bool histogram) {
  const RunResult& r = *rep.result;
  const std::vector<double>& pct = rep.options->percentiles;
  Json j;
  j["Runtime"] = RuntimeJson(r);
  std::vector<size_t> all;
  for (const MemtierGroup& g : MemtierGroups(rep)) {
    // memtier: connection errors in Totals only
    j[g.name] = StatsJson(g.stats, r.measured_s, pct, 0, TimeSerieJson(r, g.indices, pct));
    all.insert(all.end(), g.indices.begin(), g.indices.end());
  }
  Json totals_serie = TimeSerieJson(r, all, pct);
  if (MemtierSetGetOnly(rep)) {  // memtier's SET/GET mode also reports its WAIT command
    Json waits = Json::object();
    for (const auto& [second, point] : totals_serie.items()) {
      waits[second] = {{"Bytes RX", 0}, {"Bytes TX", 0}, {"Count", 0}};
    }
    const CommandStats none;
    j["Waits"] = StatsJson(none, r.measured_s, pct, 0, std::move(waits));
  }
  j["Totals"] = StatsJson(r.AllCommands(), r.measured_s, pct, r.totals.connection_errors, std::move(totals_serie));
  if (!histogram) return j;
  for (const MemtierGroup& g : MemtierGroups(rep)) {  // memtier's latency distribution arrays
    Json steps = Json::array();
    for (const auto& [msec, percent] : MemtierDistribution(g.stats.latency_ns)) {
      steps.push_back({{"<=msec", msec}, {"percent", percent}});
    }
    j[g.command] = std::move(steps);
  }
  return j;
}

// SET and GET weights as memtier's --ratio, and their key patterns as --key-pattern.
std::pair<std::string, std::string> RatioAndPattern(const LoadOptions& o) {
  const char* letters = "RSGZP";
  uint32_t set_weight = 0, get_weight = 0;
  char set_pattern = 'R', get_pattern = 'R';
  for (const CommandSpec& c : o.commands) {
    char letter = letters[static_cast<int>(c.key_pattern.kind)];
    if (c.tmpl.name == "SET") {
      if (set_weight == 0) set_pattern = letter;
      set_weight += c.weight;
    } else if (c.tmpl.name == "GET") {
      if (get_weight == 0) get_pattern = letter;
      get_weight += c.weight;
    }
  }
  return {fmt::format("{}:{}", set_weight, get_weight),
          fmt::format("{}:{}", set_pattern, get_pattern)};
}

// memtier's --key-stddev, --key-median and --key-zipf-exp: the first Gaussian and Zipf
// key patterns' settings, 0.0 where none is given (memtier's unset value).
struct KeySpread {
  double stddev = 0, median = 0, zipf_exp = 0;
};
KeySpread KeySpreadOf(const LoadOptions& o) {
  KeySpread k;
  bool gaussian = false, zipf = false;
  for (const CommandSpec& c : o.commands) {
    if (c.key_pattern.kind == KeyPatternSpec::Kind::kGaussian && !gaussian) {
      gaussian = true;
      k.stddev = std::max(c.key_pattern.stddev, 0.0);
      k.median = std::max(c.key_pattern.median, 0.0);
    }
    if (c.key_pattern.kind == KeyPatternSpec::Kind::kZipf && !zipf) {
      zipf = true;
      k.zipf_exp = c.key_pattern.zipf_exponent;
    }
  }
  return k;
}

// memtier's name of the protocol (its get_protocol_name); memstand's own name for a
// protocol memtier does not speak.
std::string ProtocolJson(const LoadOptions& o, bool resp2) {
  if (o.protocol == Protocol::kMemcache) return "memcache_text";
  if (o.protocol != Protocol::kResp) return ProtocolName(o.protocol);
  return o.resp == 3 ? "resp3" : resp2 ? "resp2" : "redis";
}

// Every key memtier_benchmark writes under "configuration" (its config_print_to_json),
// in its order and with its types. A value comes from the options, else from the memtier
// line, else it is memtier's unset value (null, "", 0, "false") for a flag memstand
// refuses. A password is never written: "authenticate" says only whether one is set.
Json ConfigurationJson(const LoadOptions& o, const MemtierLine* line) {
  const MemtierLine none;
  const MemtierLine& l = line != nullptr ? *line : none;
  const auto [ratio, key_pattern] = RatioAndPattern(o);
  const uint64_t conns = static_cast<uint64_t>(std::max(o.connections(), 1));
  const bool fixed_size = o.value.min_size == o.value.max_size;
  const auto path_or_null = [](const std::string& path) { return path.empty() ? Json(nullptr) : Json(path); };
  const KeySpread spread = KeySpreadOf(o);
  Json j;
  const bool unix_socket = !o.target.unix_path.empty();  // no host and port then
  j["server"] = unix_socket ? "" : o.target.host;
  j["port"] = unix_socket ? 0 : o.target.port;
  j["uri"] = line == nullptr || l.uri_given ? o.target.Display() : "";  // never the password
  j["unix socket"] = path_or_null(o.target.unix_path);
  j["address family"] = "Unspecified";
  j["protocol"] = ProtocolJson(o, l.resp2);
  j["out_file"] = path_or_null(l.out_file);
  j["tls"] = o.tls.enabled ? "true" : "false";
  j["cert"] = path_or_null(o.tls.cert_file);
  j["key"] = path_or_null(o.tls.key_file);
  j["cacert"] = path_or_null(o.tls.ca_file);
  j["tls_skip_verify"] = o.tls.skip_verify ? "true" : "false";
  j["sni"] = path_or_null(o.tls.sni);
  j["client_stats"] = nullptr;
  j["run_count"] = 1;
  j["debug"] = 0;
  j["requests"] = (o.requests + conns - 1) / conns;  // memtier: per client
  j["rate_limit"] = o.rate > 0 ? std::llround(o.rate / static_cast<double>(conns)) : 0;  // per client
  j["clients"] = o.clients;
  j["threads"] = o.threads;
  j["test_time"] = o.requests > 0 ? 0 : static_cast<uint64_t>(std::llround(o.duration_s));
  j["ratio"] = ratio;
  j["pipeline"] = o.pipeline;
  j["data_size"] = fixed_size && l.data_size_list.empty() ? o.value.min_size : 0;
  j["data_offset"] = 0;
  j["random_data"] = o.value.content == ValueSpec::Content::kRandom ? "true" : "false";
  j["data_size_range"] =
      fixed_size ? std::string("0:0") : fmt::format("{}:{}", o.value.min_size, o.value.max_size);
  j["data_size_list"] = l.data_size_list;
  j["data_size_pattern"] = "R";
  j["expiry_range"] = l.expiry_range;
  j["data_import"] = nullptr;
  j["data_verify"] = "false";
  j["verify_only"] = "false";
  j["generate_keys"] = "false";
  j["key_prefix"] = o.key_prefix;
  j["key_minimum"] = o.key_min;
  j["key_maximum"] = o.key_max;
  j["key_pattern"] = key_pattern;
  j["key_stddev"] = spread.stddev;
  j["key_median"] = spread.median;
  j["key_zipf_exp"] = spread.zipf_exp;
  j["reconnect_interval"] = 0;
  j["connection_timeout"] = line != nullptr ? l.connection_timeout_s : o.connect_timeout_ms / 1000;
  j["thread_conn_start_min_jitter_micros"] = 0;
  j["thread_conn_start_max_jitter_micros"] = 0;
  j["multi_key_get"] = 0;
  j["authenticate"] = o.target.password.empty() ? "" : "***";
  j["select-db"] = o.target.db;
  j["no-expiry"] = "false";
  j["wait-ratio"] = "0:0";
  j["num-slaves"] = "0:0";
  j["wait-timeout"] = "0-0";
  j["print-all-runs"] = l.print_all_runs ? "true" : "false";
  return j;
}

Json RunInformationJson(const LoadOptions& o) {
  Json j;
  j["Threads"] = o.threads;
  j["Connections per thread"] = o.clients;
  if (o.requests > 0) {
    const uint64_t conns = static_cast<uint64_t>(std::max(o.connections(), 1));
    j["Requests per client"] = (o.requests + conns - 1) / conns;
  } else {
    j["Seconds"] = static_cast<uint64_t>(std::llround(o.duration_s));
  }
  j["Format version"] = 2;
  return j;
}

}  // namespace

// memtier records microseconds: the same counts re-binned at each bucket's midpoint, so
// its "Compressed Histogram" decodes to the unit memtier users expect.
HdrHistogram MemtierMicros(const HdrHistogram& ns) {
  HdrHistogram us(1, kMaxMicros, 3);
  for (int i = 0; i < ns.counts_len(); ++i) {
    const int64_t n = ns.count_at_index(i);
    if (n == 0) continue;
    const int64_t lo = ns.ValueFromIndex(i);
    const int64_t hi = ns.HighestEquivalentValue(lo);
    us.RecordN(std::llround((static_cast<double>(lo) + static_cast<double>(hi)) / 2 / 1000), n);
  }
  return us;
}

std::vector<std::pair<double, double>> MemtierDistribution(const HdrHistogram& ns) {
  std::vector<std::pair<double, double>> steps;
  for (const PercentileRow& p : PercentileRows(MemtierMicros(ns), 10)) {  // memtier's granularity
    steps.emplace_back(static_cast<double>(p.value) / 1000, p.percentile);
  }
  return steps;
}

std::vector<MemtierGroup> MemtierGroups(const RunReport& rep) {
  std::vector<MemtierGroup> groups;
  const auto& commands = rep.options->commands;
  for (size_t i = 0; i < commands.size(); ++i) {
    const std::string name = MemtierCommandName(commands[i].tmpl.name);
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const MemtierGroup& g) { return g.name == name; });
    if (it == groups.end()) {
      MemtierGroup g;
      g.name = name;
      g.command = commands[i].tmpl.name;
      it = groups.insert(groups.end(), std::move(g));
    }
    it->stats.Add(rep.result->totals.commands[i]);
    it->indices.push_back(i);
  }
  return groups;
}

std::string MemtierCommandName(const std::string& command) {
  std::string name;
  for (char c : command) name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (!name.empty()) name[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));
  return name + "s";
}

std::string MemtierPercentileKey(double percentile) {
  // memtier printed "p%.3f" into 6 characters; it widens a key only where that one
  // names another number.
  std::string key = fmt::format("p{:.3f}", percentile).substr(0, 6);
  if (std::strtod(key.c_str() + 1, nullptr) == percentile) return key;
  key = fmt::format("p{:.10g}", percentile);
  if (std::strtod(key.c_str() + 1, nullptr) == percentile) return key;
  return fmt::format("p{:.17g}", percentile);
}

nlohmann::ordered_json MemtierJson(const RunReport& rep) {
  return MemtierJson({{"ALL STATS", &rep}}, 1, nullptr);
}

nlohmann::ordered_json MemtierJson(const std::vector<MemtierSection>& sections, int run_count,
                                   const MemtierLine* line) {
  const RunReport& first = *sections.front().report;
  Json j;
  j["configuration"] = ConfigurationJson(*first.options, line);
  j["configuration"]["run_count"] = run_count;
  j["run information"] = RunInformationJson(*first.options);
  for (const MemtierSection& s : sections) j[s.title] = AllStatsJson(*s.report, s.histogram);
  return j;
}

}  // namespace memstand

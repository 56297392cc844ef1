#include "report/choice_map.h"

#include <functional>
#include <tuple>

#include <fmt/format.h>

namespace memstand {
namespace {

using nlohmann::json;

constexpr char kMeasured[] = "measured here";
constexpr char kNotMeasured[] = "not measured here";
constexpr char kJudgment[] = "judgment";

// j[path...], or null when any step is missing.
json At(const json& j, std::initializer_list<const char*> path) {
  const json* at = &j;
  for (const char* key : path) {
    if (!at->is_object() || !at->contains(key)) return nullptr;
    at = &(*at)[key];
  }
  return *at;
}

std::string ValueText(const json& v) {
  if (v.is_null()) return "?";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) return fmt::format("{:.1f}", v.get<double>());
  return v.dump();
}

std::string Ratio(const json& v) { return v.is_number() ? fmt::format("{:.1f}x", v.get<double>()) : "?"; }

const json* Find(const json& list, const std::string& name) {
  if (!list.is_array()) return nullptr;
  for (const json& e : list) {
    if (e.is_object() && e.value("name", "") == name) return &e;
  }
  return nullptr;
}

// A row that the scenario, when given, fills from its JSON; else "not measured here".
struct MeasuredRow {
  const char* scenario;
  const char* task;
  const char* system;
  const char* faster_unmeasured;  // what the row is about, when nothing was measured
  // Fills faster, pay and the figure from the scenario's document; false when the
  // document lacks what the row needs (then: not measured here, with why).
  std::function<bool(const json& doc, ChoiceRow* row, std::string* figure)> fill;
};

// working-set: one row per configuration, from its first run, worded by the outcome it
// measured (evicts, rejects, keeps all), never by the one expected.
bool FillWorkingSet(const std::string& config, const json& doc, ChoiceRow* row, std::string* figure) {
  const json* c = Find(doc["configurations"], config);
  if (c == nullptr || !c->contains("runs") || !(*c)["runs"].is_array() || (*c)["runs"].empty()) return false;
  const json& r = (*c)["runs"][0];
  const std::string outcome = ValueText(At(r, {"outcome"}));
  const std::string n = fmt::format(" (run 1 of {})", (*c)["runs"].size());
  if (outcome == "evicts") {
    row->faster = "keeps taking every write at its memory limit: it evicts to make room";
    row->pay = fmt::format("{} of {} records evicted, {} kept{}", ValueText(At(r, {"evicted"})), ValueText(At(r, {"attempted"})),
                           ValueText(At(r, {"present"})), n);
    *figure = fmt::format("{} evicts, first eviction with write {}", config, ValueText(At(r, {"exact_eviction"})));
  } else if (outcome == "rejects") {
    row->faster = "loses nothing it acknowledged: at the limit it refuses writes";
    row->pay = fmt::format("writes refused from write {} on ('{}'); {} records kept{}",
                           ValueText(At(r, {"first_rejected_write"})), ValueText(At(r, {"first_error"})), ValueText(At(r, {"present"})), n);
    *figure = fmt::format("{} rejects, first rejected write {}", config, ValueText(At(r, {"first_rejected_write"})));
  } else if (outcome == "keeps all") {
    row->faster = "keeps every record: the data lives on disk, memory holds a part";
    const json disk = At(r, {"server_counters", "vinyl_disk_data"});
    row->pay = fmt::format("{} of {} records kept, {} B of data on disk; reads of what is not in memory go to disk "
                           "(their latency is not measured by this scenario){}",
                           ValueText(At(r, {"present"})), ValueText(At(r, {"attempted"})), ValueText(disk), n);
    *figure = config + " keeps all";
  } else {
    return false;
  }
  return true;
}

bool FillMvccEtcd(const json& doc, ChoiceRow* row, std::string* figure) {
  const json e = At(doc, {"etcd"});
  if (!e.is_object() || !e.contains("first_failed_write")) return false;
  row->faster = "every write a new MVCC revision: history, watches and linearizable reads";
  row->pay = fmt::format("with {} hot keys overwritten, writes fail from write {} ('{}') at a database of {} B "
                         "against a {} B quota; back to {} B only after compact, defragment and disarm",
                         ValueText(At(doc, {"profile", "keys"})), ValueText(e["first_failed_write"]), ValueText(At(e, {"error"})),
                         ValueText(At(e, {"db_size_at_failure"})), ValueText(At(doc, {"profile", "quota_bytes"})),
                         ValueText(At(e, {"db_size_after_recovery"})));
  *figure = "etcd first failed write " + ValueText(e["first_failed_write"]);
  return true;
}

bool FillMvccRedis(const json& doc, ChoiceRow* row, std::string* figure) {
  const json r = At(doc, {"redis"});
  if (!r.is_object() || !r.contains("successful")) return false;
  row->faster = "overwrites in place: no history to compact";
  row->pay = fmt::format("no history or watch of past revisions; the same {} writes: {} errors, used memory +{} B "
                         "(etcd's database grew {} as much)",
                         ValueText(At(r, {"attempted"})), ValueText(At(r, {"errors"})), ValueText(At(r, {"used_memory_delta"})),
                         Ratio(At(doc, {"ratio"})));
  *figure = "redis used_memory_delta " + ValueText(At(r, {"used_memory_delta"}));
  return true;
}

// compute-locality: the pair `label` of `system` from the first run.
bool FillLocality(const std::string& system, const std::string& label, const json& doc, ChoiceRow* row,
                  std::string* figure) {
  const json* s = Find(doc["systems"], system);
  if (s == nullptr || s->contains("not_run") || s->contains("failure") || !(*s)["pairs"].is_array()) return false;
  const json* pair = nullptr;
  for (const json& p : (*s)["pairs"]) {
    if (p.value("label", "") == label) pair = &p;
  }
  if (pair == nullptr) return false;
  const std::string ratios = fmt::format("{} fewer objects, {} fewer bytes, {} less time than fetching the "
                                         "category to the client",
                                         Ratio(At(*pair, {"objects"})), Ratio(At(*pair, {"bytes_in"})),
                                         Ratio(At(*pair, {"time"})));
  if (system == "tarantool") {
    row->faster = "a stored Lua function walks an index next to the data: " + ratios;
    std::string scan;
    for (const json& p : (*s)["pairs"]) {
      if (p.value("label", "") == "control 2, aligned algorithm") {
        scan = fmt::format("; the same function scanning and sorting instead of walking the index took {} the time",
                           Ratio(At(p, {"time"})));
      }
    }
    row->pay = "code kept and run on the server (in its one transaction thread)" + scan;
  } else if (system == "redis") {
    row->faster = "a sorted set per category gives the top by score: " + ratios;
    row->pay = "a second structure kept in step with every record write; two round trips (ZREVRANGE, MGET)";
  } else {
    row->faster = "an ordinary ORDER BY ... LIMIT, no stored code: " + ratios;
    row->pay = "an index on (category, views) kept on every write; the same cardinality effect without "
               "colocated compute";
  }
  *figure = fmt::format("{} '{}' objects {}, bytes {}, time {}", system, label, Ratio(At(*pair, {"objects"})),
                        Ratio(At(*pair, {"bytes_in"})), Ratio(At(*pair, {"time"})));
  return true;
}

// stretched-cache: the cell of `client` through the pipelined relay (the model of a
// wire) at the largest distance of the first run.
bool FillStretched(const std::string& client, const json& doc, ChoiceRow* row, std::string* figure) {
  const json* best = nullptr;
  if (!doc.contains("cells") || !doc["cells"].is_array()) return false;
  for (const json& c : doc["cells"]) {
    if (!c.is_object() || c.value("client", "") != client || c.value("relay_mode", "") != "pipelined" ||
        c.value("run", 0) != 1 || !c.contains("median_ns") || !c.contains("one_way_ns")) {
      continue;
    }
    if (best == nullptr || c["one_way_ns"].get<double>() > (*best)["one_way_ns"].get<double>()) best = &c;
  }
  if (best == nullptr) return false;
  const double ms = 1e6;
  const double one_way = (*best)["one_way_ns"].get<double>() / ms, cost = (*best)["median_ns"].get<double>() / ms;
  const double rtt = (*best).value("round_trip_ns", 2 * one_way * ms) / ms;
  row->faster = client == "pipelined" ? "SET and WAIT 1 leave in one write: the acknowledgement costs one round trip"
                                      : "the client waits for SET's reply before it asks for the acknowledgement";
  row->pay = fmt::format("at one-way {:.0f} ms a write acknowledged by the replica took {:.1f} ms (median): the round "
                         "trip {:.1f} ms + {:.1f} ms",
                         one_way, cost, rtt, cost - rtt);
  *figure = fmt::format("{} client, pipelined relay, one-way {:.0f} ms: median {:.1f} ms", client, one_way, cost);
  return true;
}

// durability-overload: SET throughput with the AOF mode against none, per size (the
// durability price), and the runs with errors of that mode's SET cells.
bool FillDurability(const std::string& mode, const json& doc, ChoiceRow* row, std::string* figure) {
  if (!doc.contains("durability_price") || !doc["durability_price"].is_array()) return false;
  std::string prices;
  for (const json& p : doc["durability_price"]) {
    if (!p.is_object() || p.value("mode", "") != mode || !p.contains("ratio") || !p["ratio"].is_number()) continue;
    prices += fmt::format("{}{} B {}: {:.2f}x (N={})", prices.empty() ? "" : ", ", ValueText(At(p, {"size"})),
                          ValueText(At(p, {"payload"})), p["ratio"].get<double>(), ValueText(At(p, {"n"})));
  }
  if (prices.empty()) return false;
  int64_t with_errors = 0, runs = 0;
  if (doc.contains("matrix") && doc["matrix"].is_array()) {
    for (const json& c : doc["matrix"]) {
      if (!c.is_object() || c.value("mode", "") != mode || c.value("op", "") != "SET") continue;
      with_errors += c.value("runs_with_errors", 0);
      runs += c.value("runs", 0);
    }
  }
  row->faster = "every write appended to a log on disk; a restart replays it";
  row->pay = fmt::format("SET throughput against no persistence: {}; SET cells with errors in {} of {} runs", prices,
                         with_errors, runs);
  *figure = mode + " durability price " + prices;
  return true;
}

// replication-cost: path a against path b of `system` at equal concurrency in the first
// run (the throughput ratio per level); a path whose cells all stalled or failed says
// that, which is the measured outcome.
bool FillReplication(const std::string& system, const std::string& a, const std::string& b, const json& doc,
                     ChoiceRow* row, std::string* figure) {
  std::string levels;
  if (doc.contains("ratios") && doc["ratios"].is_array()) {
    for (const json& r : doc["ratios"]) {
      if (!r.is_object() || r.value("run", 0) != 1 || r.value("system", "") != system || r.value("a", "") != a ||
          r.value("b", "") != b || !r.contains("throughput_ratio") || !r["throughput_ratio"].is_number()) {
        continue;
      }
      levels += fmt::format("{}{}: {:.2f}x", levels.empty() ? "" : ", ", ValueText(At(r, {"concurrency"})),
                            r["throughput_ratio"].get<double>());
    }
  }
  int cells = 0, held = 0;
  if (doc.contains("cells") && doc["cells"].is_array()) {
    for (const json& c : doc["cells"]) {
      if (!c.is_object() || c.value("run", 0) != 1 || c.value("system", "") != system || c.value("path", "") != a) {
        continue;
      }
      ++cells;
      held += c.value("ok", false) && !c.value("stalled", false) ? 1 : 0;
    }
  }
  if (levels.empty() && cells == 0) return false;
  if (levels.empty()) {
    row->pay = fmt::format("{} held in {} of its {} cells (stalled or failed: see the scenario's report), so no "
                           "ratio to {}", a, held, cells, b);
    *figure = fmt::format("{} held in {} of {} cells", a, held, cells);
    return true;
  }
  row->pay = fmt::format("throughput {} / {} by connections {}", a, b, levels);
  *figure = fmt::format("{} / {} throughput at equal concurrency {}", a, b, levels);
  return true;
}

const std::vector<MeasuredRow>& MeasuredRows() {
  using namespace std::placeholders;
  static const std::vector<MeasuredRow> kRows = [] {
    std::vector<MeasuredRow> rows;
    const char* ws = "a cache whose working set outgrows its memory";
    for (const auto& [config, system] :
         std::vector<std::pair<const char*, const char*>>{{"redis-allkeys-lru", "Redis, maxmemory-policy allkeys-lru"},
                                                          {"redis-noeviction", "Redis, maxmemory-policy noeviction"},
                                                          {"memcached-8m", "memcached -m 8"},
                                                          {"tarantool-memtx", "Tarantool memtx at its memtx_memory"},
                                                          {"tarantool-vinyl", "Tarantool vinyl"}}) {
      const std::string c = config;
      rows.push_back({"working-set", ws, system, "what it does at the memory limit: evict, reject or keep all",
                      [c](const json& d, ChoiceRow* r, std::string* f) { return FillWorkingSet(c, d, r, f); }});
    }
    const char* mq = "a hot set of keys overwritten all the time";
    rows.push_back({"mvcc-quota", mq, "etcd at its default 64 MiB quota", "MVCC history against the quota",
                    FillMvccEtcd});
    rows.push_back({"mvcc-quota", mq, "Redis", "overwrites in place", FillMvccRedis});
    const char* cl = "the top N of a large category by a field";
    for (const auto& [system, label, text] : std::vector<std::tuple<const char*, const char*, const char*>>{
             {"tarantool", "as published", "Tarantool, a stored Lua function over a TREE index"},
             {"redis", "as published (records in full on both sides)", "Redis, a sorted set per category"},
             {"postgresql", "control 3, no colocated compute (ORDER BY ... LIMIT, full records)",
              "PostgreSQL, ORDER BY ... LIMIT"}}) {
      const std::string sys = system, lab = label;
      rows.push_back({"compute-locality", cl, text, "computing the top on the server instead of the client",
                      [sys, lab](const json& d, ChoiceRow* r, std::string* f) {
                        return FillLocality(sys, lab, d, r, f);
                      }});
    }
    const char* sc = "a write a replica must acknowledge, across distance";
    for (const auto& [client, text] : std::vector<std::pair<const char*, const char*>>{
             {"pipelined", "Redis SET + WAIT 1 in one write"}, {"sequential", "Redis SET, then WAIT 1 after its reply"}}) {
      const std::string c = client;
      rows.push_back({"stretched-cache", sc, text, "what the acknowledgement costs as the replica moves away",
                      [c](const json& d, ChoiceRow* r, std::string* f) { return FillStretched(c, d, r, f); }});
    }
    const char* dur = "writes that must survive a restart, on a cluster";
    for (const auto& [mode, text] : std::vector<std::pair<const char*, const char*>>{
             {"aof-everysec", "Redis Cluster, AOF appendfsync everysec"}, {"aof-always", "Redis Cluster, AOF appendfsync always"}}) {
      const std::string m = mode;
      rows.push_back({"durability-overload", dur, text, "the price of the append-only file",
                      [m](const json& d, ChoiceRow* r, std::string* f) { return FillDurability(m, d, r, f); }});
    }
    const char* rc = "writes the replicas must have before the client hears OK";
    for (const auto& [system, a, b, text, faster] :
         std::vector<std::tuple<const char*, const char*, const char*, const char*, const char*>>{
             {"tarantool", "sync-write", "async-write", "Tarantool, an is_sync space, a majority quorum",
              "a write answered once a majority of the replica set has it"},
             {"tarantool", "sync-write-all", "async-write", "Tarantool, an is_sync space, a quorum of every member",
              "a write answered once every member has it"},
             {"redis", "set+wait1", "set", "Redis SET + WAIT 1", "the client asks for one replica's acknowledgement"},
             {"redis", "set+wait2", "set", "Redis SET + WAIT 2", "the client asks for two replicas' acknowledgement"}}) {
      const std::string sys = system, pa = a, pb = b, fast = faster;
      rows.push_back({"replication-cost", rc, text, faster,
                      [sys, pa, pb, fast](const json& d, ChoiceRow* r, std::string* f) {
                        r->faster = fast;
                        return FillReplication(sys, pa, pb, d, r, f);
                      }});
    }
    rows.push_back({"replication-cost", "reads that may be served by replicas",
                    "Tarantool, reads round robin over 3 replicas", "reads spread over the replicas, off the master",
                    [](const json& d, ChoiceRow* r, std::string* f) {
                      r->faster = "reads spread over the replicas, off the master";
                      return FillReplication("tarantool", "read-replicas", "read-master", d, r, f);
                    }});
    return rows;
  }();
  return kRows;
}

}  // namespace

const std::vector<ChoiceRow>& JudgmentRows() {
  // Kept word for word in docs/choice-map.md (ChoiceMapTest checks it).
  static const std::vector<ChoiceRow> kRows = {
      {"sessions and other data that may be lost, with a TTL", "memcached, or Redis without persistence",
       "no persistence work at all; memcached spreads over threads", "a restart or an eviction loses the data",
       kJudgment, "no scenario yet"},
      {"a queue or a stream between services", "Redis streams (XADD / XREADGROUP)",
       "appends in memory, consumer groups in the server", "memory holds the backlog; durability as configured",
       kJudgment, "no scenario yet"},
      {"configuration, leader election, service discovery", "etcd",
       "linearizable reads and writes with watches, through Raft", "every write goes through a quorum and is kept "
       "as a revision until compaction (see mvcc-quota)", kJudgment, "no scenario yet"},
      {"data far larger than memory with a hot subset", "Tarantool vinyl (an LSM tree)",
       "writes sequential on disk, the hot part in memory", "reads of cold keys go to disk; compaction uses I/O",
       kJudgment, "working-set measures capacity, not cold-read latency"},
  };
  return kRows;
}

std::vector<ChoiceRow> ChoiceMap(const std::vector<ScenarioResult>& results) {
  std::vector<ChoiceRow> out;
  for (const MeasuredRow& m : MeasuredRows()) {
    const ScenarioResult* input = nullptr;
    for (const ScenarioResult& r : results) {
      if (input == nullptr && r.doc.is_object() && r.doc.value("scenario", "") == m.scenario) input = &r;
    }
    ChoiceRow row{m.task, m.system, m.faster_unmeasured, "", kNotMeasured, ""};
    std::string figure;
    if (input == nullptr) {
      row.source = fmt::format("memstand scenario run {} --json FILE, then give FILE", m.scenario);
    } else if (m.fill(input->doc, &row, &figure)) {
      row.support = kMeasured;
      row.source = fmt::format("{}: {} ({})", m.scenario, figure, input->file);
    } else {
      row.faster = m.faster_unmeasured;
      row.pay.clear();
      row.source = fmt::format("{} holds no result for this row (not run, failed or another version)", input->file);
    }
    out.push_back(std::move(row));
  }
  for (const ChoiceRow& j : JudgmentRows()) out.push_back(j);
  return out;
}

std::string ChoiceMapText(const std::vector<ChoiceRow>& rows) {
  std::string out = "The choice map: class of task -> system -> how it goes faster -> what you pay, and what "
                    "supports the row\n";
  std::string task;
  for (const ChoiceRow& r : rows) {
    if (r.task != task) {
      out += "\n" + r.task + "\n";
      task = r.task;
    }
    out += fmt::format("  {}\n    faster: {}\n    pay:    {}\n    support: {}{}\n", r.system, r.faster,
                       r.pay.empty() ? "-" : r.pay, r.support, r.source.empty() ? "" : " — " + r.source);
  }
  out += "\nA measured row describes this platform and this run; a judgment row is the documented opinion of "
         "docs/choice-map.md, not a measurement.\n";
  return out;
}

json ChoiceMapJson(const std::vector<ChoiceRow>& rows) {
  json out = json::array();
  for (const ChoiceRow& r : rows) {
    out.push_back({{"task", r.task}, {"system", r.system}, {"faster", r.faster}, {"pay", r.pay},
                   {"support", r.support}, {"source", r.source}});
  }
  return out;
}

ReportSection ChoiceMapSection(const std::vector<ChoiceRow>& rows) {
  ReportSection section;
  section.title = "choice map";
  section.source = "the scenario inputs above; judgment rows: docs/choice-map.md";
  section.blocks.push_back({"What supports each row",
                            {"measured here: the figures come from the scenario result named in the last column "
                             "(this platform, that run)",
                             "not measured here: the row's scenario was not given, or holds no result for it; no "
                             "figure is shown",
                             "judgment: no scenario covers the row; the documented opinion of docs/choice-map.md"}});
  ReportTable t{"Class of task -> system -> how it goes faster -> what you pay", "choice-map",
                {"class of task", "system and configuration", "how it goes faster", "what you pay", "support",
                 "source"},
                {}};
  for (const ChoiceRow& r : rows) t.rows.push_back({r.task, r.system, r.faster, r.pay, r.support, r.source});
  section.tables.push_back(std::move(t));
  return section;
}

}  // namespace memstand

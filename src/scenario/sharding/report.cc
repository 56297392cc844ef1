// sharding's report: the two sweeps, the operation matrix, the balance over the
// storages, the invariants, ranges over the runs and the verdict.
#include <algorithm>
#include <map>
#include <thread>

#include <fmt/format.h>

#include "scenario/kit/ranges.h"
#include "scenario/sharding/run.h"
#include "stand/shard_lua.h"

namespace memstand {
namespace {

using json = nlohmann::json;

std::string Pct(double share) { return fmt::format("{:.0f}%", share * 100); }

std::string Mb(int64_t bytes) { return fmt::format("{:.0f} MB", double(bytes) / (1024.0 * 1024.0)); }

const ShardRoleFigures* Role(const ShardCell& c, const std::string& role) {
  for (const ShardRoleFigures& f : c.roles) {
    if (f.role == role) return &f;
  }
  return nullptr;
}

// "routers 45% (max 52%) 61 MB, masters ..., replicas ..., client 80%": CPU as each
// process's share of one core (the mean over the role's processes), RSS summed.
std::string CpuLine(const ShardCell& c) {
  std::string out;
  for (const char* role : {"router", "storage-master", "storage-replica"}) {
    const ShardRoleFigures* f = Role(c, role);
    if (f == nullptr || f->processes == 0) continue;
    out += fmt::format("{} x{} {} (max {}) {}, ", role, f->processes, Pct(f->mean_core_share),
                       Pct(f->max_core_share), Mb(f->rss_bytes));
  }
  return out + "client " + Pct(c.client_core_share);
}

std::string CellLine(const ShardCell& c) {
  std::string line = fmt::format("{:>5} conns {:>9.0f} ops/s  p99 {:>8.0f} us  errors {}", c.connections,
                                 c.ops_per_sec, c.p99_us, c.errors);
  if (!c.first_error.empty()) line += " (" + c.first_error + ")";
  if (!c.failure.empty()) line += "  FAILED: " + c.failure;
  return line;
}

std::string BalanceLine(const ShardPoint& p) {
  if (!p.counted) return "not counted";
  std::string sets;
  for (size_t i = 0; i < p.per_set.size(); ++i) {
    const double share = p.storage_requests > 0 ? 100.0 * double(p.per_set[i]) / double(p.storage_requests) : 0;
    sets += fmt::format("{}set {} {} ({:.1f}%)", i == 0 ? "" : ", ", i + 1, p.per_set[i], share);
  }
  return sets;
}

std::string SweepBody(const std::vector<ShardPoint>& points, const std::string& sweep) {
  std::string body;
  for (const ShardPoint& p : points) {
    if (p.sweep != sweep) continue;
    body += fmt::format("  run {}: {} storage(s), {} router(s) ({} per storage)\n", p.run, p.storages, p.routers,
                        p.storages > 0 ? p.routers / p.storages : 0);
    if (!p.ok() && p.cells.empty()) {
      body += "    FAILED: " + p.failure + "\n";
      continue;
    }
    for (size_t i = 0; i < p.cells.size(); ++i) {
      body += "    " + CellLine(p.cells[i]) + (p.knee && *p.knee == i ? "  <- knee" : "") + "\n";
    }
    if (p.cells.empty()) continue;
    const ShardCell& k = p.cells[p.best];
    body += fmt::format("    {} {:.0f} ops/s at {} connections; CPU there: {}\n",
                        p.knee ? "knee:" : "no knee within the steps; the highest step:", k.ops_per_sec,
                        k.connections, CpuLine(k));
    body += "    requests per storage replica set: " + BalanceLine(p) + "\n";
    if (!p.failure.empty()) body += "    FAILED: " + p.failure + "\n";
  }
  return body;
}

std::string MatrixBody(const std::vector<ShardPoint>& points) {
  std::string body;
  for (const ShardPoint& p : points) {
    if (p.sweep != "matrix") continue;
    body += fmt::format("  run {}: {} storage(s), {} router(s), {} connections (the best point's knee, or its "
                        "highest step where it had none)\n",
                        p.run,
                        p.storages, p.routers, p.cells.empty() ? 0 : p.cells[0].connections);
    if (!p.ok() && p.cells.empty()) body += "    FAILED: " + p.failure + "\n";
    body += fmt::format("    {:<8} {:<10} {:<8} {:>9} {:>9} {:>7}  {}\n", "OP", "SPACE", "READS", "OPS/S", "P99 US",
                        "ERRORS", "CPU (per process, of one core) AND RSS");
    for (const ShardCell& c : p.cells) {
      body += fmt::format("    {:<8} {:<10} {:<8} {:>9.0f} {:>9.0f} {:>7}  {}{}\n", c.op, c.space,
                          c.read_from.empty() ? "-" : c.read_from, c.ops_per_sec, c.p99_us, c.errors, CpuLine(c),
                          c.failure.empty() ? "" : "  FAILED: " + c.failure);
    }
    body += "    requests per storage replica set: " + BalanceLine(p) + "\n";
  }
  return body;
}

std::vector<Invariant> InvariantsOf(const ShardPoint& p) {
  if (!p.counted) return {};
  return {MakeInvariant("storages' requests", p.storage_requests, "client's requests", p.client_requests)};
}

std::string PointName(const ShardPoint& p) {
  return fmt::format("run {} {} sweep, {} storage(s), {} router(s)", p.run, p.sweep, p.storages, p.routers);
}

void InvariantBlock(const std::vector<ShardPoint>& points, ScenarioReport* report) {
  std::string body;
  Table table{"invariants", {"run", "sweep", "storages", "routers", "invariant", "lhs", "rhs", "ok"}, {}};
  json ij = json::array();
  for (const ShardPoint& p : points) {
    for (const Invariant& i : InvariantsOf(p)) {
      body += "  " + PointName(p) + ": " + i.Describe() + "\n";
      table.rows.push_back({std::to_string(p.run), p.sweep, std::to_string(p.storages), std::to_string(p.routers),
                            i.name, std::to_string(i.lhs_value), std::to_string(i.rhs_value), i.ok() ? "true" : "false"});
      json j = i.ToJson();
      j["point"] = PointName(p);
      ij.push_back(j);
      if (!i.ok()) report->Mark(ScenarioVerdict::kFailed, PointName(p) + ": invariant broken: " + i.Describe());
    }
  }
  report->blocks.push_back({"Invariants (each point: the requests the storages counted == the client's)",
                            body.empty() ? "  none checked (no point ran to its end)\n" : body});
  report->tables.push_back(table);
  report->json["invariants"] = ij;
}

// Over the runs: each point's throughput at its knee, and the matrix's cells.
void RangesBlock(const std::vector<ShardPoint>& points, int runs, ScenarioReport* report) {
  std::map<std::string, std::vector<double>> knee;
  std::vector<std::string> order;
  for (const ShardPoint& p : points) {
    if (p.cells.empty() || !p.ok()) continue;
    std::vector<std::pair<std::string, double>> figures;
    if (p.sweep == "matrix") {
      for (const ShardCell& c : p.cells) {
        figures.emplace_back(fmt::format("matrix {} {}{}", c.op, c.space, c.read_from.empty() ? "" : " " + c.read_from),
                             c.ops_per_sec);
      }
    } else {
      figures.emplace_back(fmt::format("{} sweep, {} storage(s), {} router(s)", p.sweep, p.storages, p.routers),
                           p.knee_ops_per_sec());
    }
    for (const auto& [name, value] : figures) {
      if (!knee.count(name)) order.push_back(name);
      knee[name].push_back(value);
    }
  }
  std::string body;
  json rj = json::array();
  for (const std::string& name : order) {
    body += fmt::format("  {}: {}\n", name, RangeTextOf(knee[name], "{:.0f}", "ops/s"));
    rj.push_back({{"figure", name}, {"ops_per_sec", RangeJson(RangeOf(knee[name]))}});
  }
  if (runs > 1) report->blocks.push_back({fmt::format("Over the {} runs (ops/s at each point's knee)", runs), body});
  report->json["ranges"] = rj;
}

json CellJson(const ShardCell& c) {
  json roles = json::array();
  for (const ShardRoleFigures& f : c.roles) {
    roles.push_back({{"role", f.role}, {"processes", f.processes}, {"mean_core_share", f.mean_core_share},
                     {"max_core_share", f.max_core_share}, {"rss_bytes", f.rss_bytes}});
  }
  return {{"op", c.op}, {"space", c.space}, {"read_from", c.read_from}, {"connections", c.connections},
          {"failure", c.failure.empty() ? json(nullptr) : json(c.failure)}, {"measured_s", c.measured_s},
          {"requests", c.requests}, {"errors", c.errors}, {"unanswered", c.unanswered},
          {"first_error", c.first_error}, {"ops_per_sec", c.ops_per_sec}, {"p50_us", c.p50_us},
          {"p99_us", c.p99_us}, {"client_core_share", c.client_core_share}, {"roles", roles},
          {"storage_requests", c.storage_requests}};
}

json PointJson(const ShardPoint& p) {
  json cells = json::array();
  for (const ShardCell& c : p.cells) cells.push_back(CellJson(c));
  json per_storage = json::object();
  for (const auto& [node, n] : p.per_storage) per_storage[node] = n;
  return {{"run", p.run}, {"sweep", p.sweep}, {"storages", p.storages}, {"routers", p.routers},
          {"ok", p.ok()}, {"failure", p.failure.empty() ? json(nullptr) : json(p.failure)},
          {"knee", p.knee ? json(*p.knee) : json(nullptr)}, {"best", p.best},
          {"knee_ops_per_sec", p.knee_ops_per_sec()}, {"per_storage", per_storage}, {"per_set", p.per_set},
          {"client_requests", p.client_requests}, {"storage_requests", p.storage_requests},
          {"version", p.version}, {"servers", p.description}, {"cells", cells}};
}

void Verdict(const std::vector<ShardPoint>& points, bool interrupted, ScenarioReport* report) {
  for (const ShardPoint& p : points) {
    if (!p.failure.empty() && p.failure != "interrupted") {
      report->Mark(ScenarioVerdict::kFailed, PointName(p) + ": " + p.failure);
    }
    for (const ShardCell& c : p.cells) {
      if (c.unanswered > 0) {
        report->Mark(ScenarioVerdict::kFailed, fmt::format("{}: {} {}: {} requests unanswered", PointName(p), c.op,
                                                           c.space, c.unanswered));
      }
    }
  }
  if (interrupted) report->Mark(ScenarioVerdict::kInterrupted, "interrupted: the points so far, marked partial");
}

std::string List(const std::vector<uint64_t>& v) {
  std::string out;
  for (uint64_t x : v) out += (out.empty() ? "" : ", ") + std::to_string(x);
  return out;
}

void Describe(const ShardingOptions& o, const std::vector<ShardPoint>& points, ScenarioReport* report) {
  const unsigned cpus = std::thread::hardware_concurrency();
  for (const ShardPoint& p : points) {
    report->configuration_lines.push_back(fmt::format("{}: tarantool {}: {}", PointName(p), p.version, p.description));
  }
  report->procedure = {
      fmt::format("memstand's tarantool-sharded stand (docs/stand.md): storage replica sets of a master and {} "
                  "replica(s), routers with memstand's own Lua layer ({} buckets, bucket = crc32(key) % buckets, "
                  "forwarding over net.box), each point a fresh topology that passes the health check first",
                  o.replicas, kShardBuckets),
      fmt::format("load: `call shard.replace 'test' [__seq__, nil, __rand:{}__]` through every router (round "
                  "robin), one load thread, {} connection(s) per router at the steps, {:g} s each, no warm-up (every "
                  "request counted); the knee by stats/knee.h at {:.0f}% gain",
                  o.value_size, List(o.concurrency), o.step_s, kShardingKneeMinGain * 100),
      fmt::format("sweep 1: routers per storage {} at {} storage(s) (every bucket on one storage when 1)",
                  List(o.ratios), o.ratio_storages),
      fmt::format("sweep 2: storages {} at the ratio with the most throughput at its knee", List(o.storages)),
      "matrix: insert, replace, upsert, update and get on `test` (asynchronous) and `test_sync` (is_sync, quorum = "
      "every member of the set), gets from the master and from a replica (mode 'read'), at the best point of sweep 2 "
      "and its knee's connections",
      fmt::format("about {} s here", ApproxSeconds(ShardingExpectedSeconds(o, report->runs_requested)))};
  report->limits = {
      fmt::format("A toy on this machine: every router and storage and the client share its {} CPU(s) (by default "
                  "the servers all on the same ones, the client on another where there is one: block [1] says which), "
                  "so the sweeps show these processes competing for a few cores, not how a sharded cluster scales. "
                  "The real experiment is the same command on a machine with cores to spare, with --server-cpus and "
                  "--client-cpus (or the client on other hosts: docs/scale-out.md).",
                  cpus),
      "The study this follows published, on its own hardware (640 Tarantool instances: 128 routers, 128 replica "
      "sets of 4): about 7 routers per storage gave the most throughput; throughput grew linearly up to 12 storages "
      "and then bent; routers at 40-50% CPU, storages at 50-70%, its loader at 70-90%. Those are its figures, not "
      "what this run is expected to show.",
      "memstand's router is its own small Lua layer (no vshard, no crud: Debian's Tarantool 2.6 has neither): no "
      "rebalancing, no bucket moves, no failover; a bucket's place is fixed by the number of storages.",
      "CPU is each process's own (utime + stime over the cell's wall time), the mean over a role's processes; RSS "
      "is the sum over them at the cell's end."};
}

}  // namespace

void FillShardingReport(const ShardingOptions& o, const std::vector<ShardPoint>& points, bool interrupted,
                        ScenarioReport* report) {
  Describe(o, points, report);
  report->blocks.push_back({fmt::format("Routers per storage ({} storage(s); each point a fresh topology)",
                                        o.ratio_storages),
                            SweepBody(points, "ratio")});
  report->blocks.push_back({"Storage count (at the best ratio of the first sweep)", SweepBody(points, "storages")});
  report->blocks.push_back({"Operation matrix at the knee", MatrixBody(points)});
  InvariantBlock(points, report);
  RangesBlock(points, report->runs_requested, report);
  Verdict(points, interrupted, report);
  Table cells{"cells", {"run", "sweep", "storages", "routers", "op", "space", "read_from", "connections", "ops_per_sec",
                        "p99_us", "errors", "client_core_share", "router_core_share", "master_core_share",
                        "replica_core_share", "storage_requests"}, {}};
  json pj = json::array();
  for (const ShardPoint& p : points) {
    pj.push_back(PointJson(p));
    for (const ShardCell& c : p.cells) {
      auto share = [&c](const char* role) {
        const ShardRoleFigures* f = Role(c, role);
        return fmt::format("{:.3f}", f == nullptr ? 0.0 : f->mean_core_share);
      };
      cells.rows.push_back({std::to_string(p.run), p.sweep, std::to_string(p.storages), std::to_string(p.routers),
                            c.op, c.space, c.read_from, std::to_string(c.connections),
                            fmt::format("{:.1f}", c.ops_per_sec), fmt::format("{:.1f}", c.p99_us),
                            std::to_string(c.errors), fmt::format("{:.3f}", c.client_core_share), share("router"),
                            share("storage-master"), share("storage-replica"), std::to_string(c.storage_requests)});
    }
  }
  report->tables.insert(report->tables.begin(), cells);
  report->json["points"] = pj;
  report->json["ratios"] = o.ratios;
  report->json["ratio_storages"] = o.ratio_storages;
  report->json["storages"] = o.storages;
  report->json["replicas"] = o.replicas;
  report->json["concurrency_per_router"] = o.concurrency;
  report->json["step_seconds"] = o.step_s;
  report->json["value_size"] = o.value_size;
  report->json["knee_min_gain"] = kShardingKneeMinGain;
}

}  // namespace memstand

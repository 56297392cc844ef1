#include "scenario/durability_overload/report.h"

#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "report/repeat.h"
#include "scenario/kit/ranges.h"
#include "scenario/durability_overload/json.h"

namespace memstand {
namespace {

using nlohmann::json;
namespace key = durability_overload_json;

// Reply errors the issue names; other prefixes are shown as they came.
constexpr const char* kNamedKinds[] = {"CLUSTERDOWN", "MOVED", "TRYAGAIN", "timeout", "connection"};
// A client above this share of one core is the bottleneck (docs/method.md rule 13).
constexpr double kClientBound = 0.9;
constexpr double kCompressesAbove = 1.5;

std::string Size(uint64_t b) {
  if (b >= (1u << 20) && b % (1u << 20) == 0) return fmt::format("{} MiB", b >> 20);
  if (b >= 1024 && b % 1024 == 0) return fmt::format("{} KiB", b >> 10);
  return fmt::format("{} B", b);
}

double Ms(int64_t ns) { return static_cast<double>(ns) / 1e6; }
double MiB(double b) { return b / double(1 << 20); }

// The cells of one matrix position, over the runs.
struct Group {
  std::string mode, op, payload;
  uint64_t size = 0;
  std::vector<const CellResult*> runs;
  int with_errors() const {
    // An interrupted cell's figures are partial: its unanswered requests are the signal's.
    return static_cast<int>(std::count_if(runs.begin(), runs.end(),
                                          [](const CellResult* c) { return c->has_errors() && !c->interrupted; }));
  }
  int skipped() const {
    return static_cast<int>(std::count_if(runs.begin(), runs.end(), [](const CellResult* c) { return c->skipped(); }));
  }
  std::string Name() const { return fmt::format("{} {} {} {}", mode, op, Size(size), payload); }
  // min / median / max of f over the runs that ran (errored ones included: rule 16).
  template <class F>
  Range Of(F f) const {
    std::vector<double> v;
    for (const CellResult* c : runs) {
      if (c->ran) v.push_back(f(*c));
    }
    return v.empty() ? Range{} : RangeOf(v);
  }
  std::map<std::string, uint64_t> Errors() const {
    std::map<std::string, uint64_t> sum;
    for (const CellResult* c : runs) {
      for (const auto& [k, n] : c->errors) sum[k] += n;
    }
    return sum;
  }
};

std::vector<Group> Groups(const std::vector<CellResult>& cells) {
  std::vector<Group> out;
  for (const CellResult& c : cells) {
    const CellPlan& p = c.plan;
    auto it = std::find_if(out.begin(), out.end(), [&](const Group& g) {
      return g.mode == p.mode && g.op == p.op && g.size == p.size && g.payload == p.payload;
    });
    if (it == out.end()) {
      out.push_back({p.mode, p.op, p.payload, p.size, {}});
      it = out.end() - 1;
    }
    it->runs.push_back(&c);
  }
  return out;
}

std::string ErrorsText(const std::map<std::string, uint64_t>& errors) {
  if (errors.empty()) return "none";
  std::vector<std::string> parts;
  for (const char* k : kNamedKinds) {
    auto it = errors.find(k);
    if (it != errors.end()) parts.push_back(fmt::format("{} {}", k, it->second));
  }
  for (const auto& [k, n] : errors) {
    if (std::find_if(std::begin(kNamedKinds), std::end(kNamedKinds), [&](const char* x) { return k == x; }) ==
        std::end(kNamedKinds)) {
      parts.push_back(fmt::format("{} {}", k, n));
    }
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::string RunsWithErrors(const Group& g) {
  const int n = static_cast<int>(g.runs.size());
  const int e = g.with_errors();
  const int skipped = g.skipped();
  std::string out = e == 0 ? fmt::format("no errors in {} run{}", n, n == 1 ? "" : "s")
                           : fmt::format("ERRORS in {} of {} run{}", e, n, n == 1 ? "" : "s");
  return skipped == 0 ? out : fmt::format("{}, {} not run", out, skipped);
}

double ClientShare(const CellResult& c) { return c.seconds > 0 ? c.client_cpu_s / c.seconds : 0; }
double PerRequestUs(double cpu_s, uint64_t ops) { return ops > 0 ? cpu_s * 1e6 / static_cast<double>(ops) : 0; }

std::string MatrixText(const std::vector<Group>& groups) {
  std::string out = fmt::format("    {:<13} {:<4} {:>7} {:<12} {:<24} {:<42} {:>9} {:>9} {:>9} {:>9}\n", "mode", "op",
                                "size", "payload", "runs", "ops/s", "p50 ms", "p95 ms", "p99 ms", "max ms");
  for (const Group& g : groups) {
    Range max = g.Of([](const CellResult& c) { return Ms(c.max_ns); });
    out += fmt::format("    {:<13} {:<4} {:>7} {:<12} {:<24} {:<42} {:>9} {:>9} {:>9} {:>9}\n", g.mode, g.op,
                       Size(g.size), g.payload, RunsWithErrors(g),
                       RangeText(g.Of([](const CellResult& c) { return c.ops_per_s; }), "{:.0f}"),
                       fmt::format("{:.3f}", g.Of([](const CellResult& c) { return Ms(c.p50_ns); }).median),
                       fmt::format("{:.3f}", g.Of([](const CellResult& c) { return Ms(c.p95_ns); }).median),
                       fmt::format("{:.3f}", g.Of([](const CellResult& c) { return Ms(c.p99_ns); }).median),
                       max.n > 0 ? fmt::format("{:.1f}", max.max) : "-");
    out += fmt::format("      errors by kind (summed over the runs): {}\n", ErrorsText(g.Errors()));
    for (const CellResult* c : g.runs) {
      if (!c->not_run.empty()) out += fmt::format("      run {}: {}\n", c->plan.run, c->not_run);
      else if (c->has_errors()) out += fmt::format("      run {}: first error: {}\n", c->plan.run, c->first_error.substr(0, 200));
      if (c->interrupted) out += fmt::format("      run {}: interrupted, partial figures\n", c->plan.run);
    }
  }
  out += "    (ops/s: min median max over the runs that ran, errored runs included, with their N; p50/p95/p99: the "
         "median of the runs' values; max: the largest of any run)\n";
  return out;
}

std::string ResourceText(const std::vector<Group>& groups) {
  std::string out = fmt::format("    {:<13} {:<4} {:>7} {:<12} {:>10} {:>9} {:>10} {:>15} {:>12} {:>13} {:>9}\n", "mode",
                                "op", "size", "payload", "client µs", "client", "server µs", "RSS mean/max",
                                "storage MB/s", "delayed fsync", "rewrites");
  for (const Group& g : groups) {
    Range share = g.Of(ClientShare);
    std::string rss = fmt::format("{:.0f}/{:.0f} MiB", MiB(g.Of([](const CellResult& c) { return double(c.rss_mean); }).median),
                                  MiB(g.Of([](const CellResult& c) { return double(c.rss_max); }).max));
    const bool known = std::all_of(g.runs.begin(), g.runs.end(), [](const CellResult* c) { return !c->ran || c->write_bytes >= 0; });
    out += fmt::format(
        "    {:<13} {:<4} {:>7} {:<12} {:>10.1f} {:>8.0f}% {:>10.1f} {:>15} {:>12} {:>13.0f} {:>9.0f}{}\n", g.mode,
        g.op, Size(g.size), g.payload, g.Of([](const CellResult& c) { return PerRequestUs(c.client_cpu_s, c.ops); }).median,
        share.median * 100, g.Of([](const CellResult& c) { return PerRequestUs(c.server_cpu_s, c.ops); }).median, rss,
        known ? fmt::format("{:.1f}", g.Of([](const CellResult& c) { return c.bytes_per_s() / 1e6; }).median) : "unknown",
        g.Of([](const CellResult& c) { return double(c.aof.count("aof_delayed_fsync") ? c.aof.at("aof_delayed_fsync") : 0); }).max,
        g.Of([](const CellResult& c) { return double(c.aof.count("aof_rewrites") ? c.aof.at("aof_rewrites") : 0); }).max,
        share.max > kClientBound ? "  CLIENT-BOUND: memstand above 90% of a core, the cell measures the client" : "");
  }
  out += "    (client: memstand's CPU per request (getrusage; its samplers included) and as a share of one core; "
         "server: every node's user+sys CPU per request (/proc/PID/stat, 10 ms ticks); RSS: the mean over the nodes "
         "of each node's mean, and the largest sample of any node; storage: write_bytes of /proc/PID/io summed over "
         "the nodes, per measured second; delayed fsync and rewrites: INFO persistence deltas summed over the nodes, "
         "the largest of any run; medians over the runs)\n";
  return out;
}

std::string ClusterText(const std::vector<CellResult>& cells, Table* events) {
  std::string out;
  int samples = 0;
  for (const CellResult& c : cells) {
    samples += c.cluster.samples;
    for (const HeldInterval& i : c.cluster.intervals) {
      out += fmt::format("    run {} {} {} {} {}: {} from {:.1f} s to {:.1f} s ({:.1f} s{})\n", c.plan.run, c.plan.mode,
                         c.plan.op, Size(c.plan.size), c.plan.payload, i.what, i.from_s, i.to_s, i.seconds(),
                         i.open ? ", still at the cell's end" : "");
      events->rows.push_back({std::to_string(c.plan.run), c.plan.mode, c.plan.op, std::to_string(c.plan.size),
                              c.plan.payload, i.what, fmt::format("{:.3f}", i.from_s), fmt::format("{:.3f}", i.to_s),
                              i.open ? "true" : "false"});
    }
  }
  if (out.empty()) {
    out = fmt::format("    every node answered, said cluster_state:ok and flagged no node pfail or fail in all {} "
                      "samples (CLUSTER INFO and CLUSTER NODES on every node, every 1 s during each cell)\n", samples);
  } else {
    out += fmt::format("    ({} samples, every node every 1 s: each interval runs from the first sample that showed "
                       "it to the first that did not, so each end is known to about 1 s)\n", samples);
  }
  return out;
}

bool SameGroup(const Group& a, const std::string& mode, const std::string& op, uint64_t size, const std::string& payload) {
  return a.mode == mode && a.op == op && a.size == size && a.payload == payload;
}

std::string PriceText(const std::vector<std::string>& modes, const std::vector<Group>& groups, Table* table, json* out) {
  std::string text;
  for (const Group& none : groups) {
    if (none.mode != "none" || none.op != "SET") continue;
    const Range base = none.Of([](const CellResult& c) { return c.ops_per_s; });
    for (const std::string& mode : modes) {
      if (mode == "none") continue;
      auto aof = std::find_if(groups.begin(), groups.end(),
                              [&](const Group& g) { return SameGroup(g, mode, "SET", none.size, none.payload); });
      if (aof == groups.end()) continue;
      const Range with = aof->Of([](const CellResult& c) { return c.ops_per_s; });
      if (base.n == 0 || with.n == 0 || base.median <= 0) continue;
      const double ratio = with.median / base.median;
      text += fmt::format("    SET {:>7} {:<12} {}: {:.0f} ops/s (N={}) against none {:.0f} ops/s (N={}): {:.2f}x{}\n",
                          Size(none.size), none.payload, mode, with.median, with.n, base.median, base.n, ratio,
                          aof->with_errors() + none.with_errors() > 0 ? "  (errors in some runs: see the matrix)" : "");
      table->rows.push_back({std::to_string(none.size), none.payload, mode, fmt::format("{:.1f}", with.median),
                             fmt::format("{:.1f}", base.median), fmt::format("{:.4f}", ratio),
                             std::to_string(with.n), std::to_string(base.n)});
      out->push_back({{key::kSize, none.size}, {key::kPayload, none.payload}, {key::kMode, mode},
                      {key::kOpsPerSec, with.median}, {"ops_per_sec_none", base.median}, {key::kRatio, ratio},
                      {key::kN, with.n}, {"n_none", base.n}});
    }
  }
  if (text.empty()) return "    no pair of SET cells to compare\n";
  return text + "    (median SET throughput with AOF / without, the same size and payload, from this scenario run; "
                "the modes ran in alternating order across runs)\n";
}

std::string ProbeText(const DurabilityMeasured& m, Table* table, json* out) {
  if (!m.probe) return m.probe_error.empty() ? "    not run (--probe-size 0)\n" : "    FAILED: " + m.probe_error + "\n";
  const StorageProbeResult& p = *m.probe;
  std::string text = fmt::format("    file {} (created and removed by the probe), chunks of 1 MiB, fdatasync after each\n", p.path);
  int k = 0;
  for (const StoragePass& s : p.passes) {
    std::vector<int64_t> f = s.fsync_ns;
    std::sort(f.begin(), f.end());
    const double p50 = f.empty() ? 0 : Ms(f[f.size() / 2]), mx = f.empty() ? 0 : Ms(f.back());
    const std::string pass = s.warmup ? "warm-up" : std::to_string(++k);
    text += fmt::format(
        "    pass {} {:<8}: {:.0f} MiB in {:.3f} s = {:.1f} MB/s; fdatasync p50 {:.2f} ms, max "
        "{:.2f} ms (N={}){}\n",
        pass, s.content, MiB(double(s.bytes)), s.seconds,
        s.seconds > 0 ? s.bytes / s.seconds / 1e6 : 0, p50, mx, f.size(),
        s.warmup ? " (not counted: it warms the folder's storage)" : "");
    table->rows.push_back({pass, s.content, std::to_string(s.bytes),
                           fmt::format("{:.6f}", s.seconds), fmt::format("{:.3f}", p50),
                           fmt::format("{:.3f}", mx), std::to_string(f.size())});
  }
  const double random = p.BytesPerSecond("random"), repeated = p.BytesPerSecond("repeated");
  const double ratio = random > 0 ? repeated / random : 0;
  text += fmt::format("    random {:.1f} MB/s, repeated {:.1f} MB/s: repeated / random = {:.2f}x\n", random / 1e6,
                      repeated / 1e6, ratio);
  text += StorageCompresses(p)
              ? "    => this storage writes repeated bytes much faster than random ones: it compresses or deduplicates. "
                "Compressible-payload results here then measure the storage, not Redis.\n"
              : "    => no large difference: compressible and random payloads meet the same storage here.\n";
  json passes = json::array();
  for (const StoragePass& s : p.passes) {
    passes.push_back({{"content", s.content},
                      {"warmup", s.warmup},
                      {"bytes", s.bytes},
                      {"seconds", s.seconds},
                      {"fsync_ns", s.fsync_ns}});
  }
  *out = {{"path", p.path}, {"random_bytes_per_sec", random}, {"repeated_bytes_per_sec", repeated},
          {"repeated_over_random", ratio}, {"storage_compresses", StorageCompresses(p)}, {"passes", passes}};
  return text;
}

std::string LegacyText(const DurabilityOverloadOptions& o, const DurabilityMeasured& m, json* out) {
  if (!m.legacy) return "    not run\n";
  const CellResult& c = *m.legacy;
  if (!c.ran) return "    FAILED: " + c.not_run + "\n";
  auto it = c.errors.find("MOVED");
  const uint64_t moved = it != c.errors.end() ? it->second : 0;
  const double share = c.ops > 0 ? double(moved) / double(c.ops) : 0;
  const double expected = double(o.masters - 1) / o.masters;
  const double exact = 1.0 - m.legacy_slots / 16384.0;
  *out = {{"replies", c.ops}, {"moved", moved}, {"moved_share", share}, {"expected_share", expected},
          {"expected_share_by_slots", exact}, {"ok_replies", c.ok_replies}, {"errors", c.errors}};
  return fmt::format(
      "    the engine without cluster mode: SET {} random to master-1 alone, {} clients, for {:.1f} s\n"
      "    replies {}, MOVED {}: share {:.4f}; expected (N-1)/N = {}/{} = {:.4f} (master-1 owns {} of 16384 slots: "
      "1 - {}/16384 = {:.4f})\n    other errors: {}\n",
      Size(c.plan.size), c.plan.clients, c.seconds, c.ops, moved, share, o.masters - 1, o.masters, expected,
      m.legacy_slots, m.legacy_slots, exact, ErrorsText([&] {
        auto e = c.errors;
        e.erase("MOVED");
        return e;
      }()));
}

json CellJson(const CellResult& c) {
  json cl = json::array();
  for (const HeldInterval& i : c.cluster.intervals) {
    cl.push_back({{key::kWhat, i.what}, {key::kFromS, i.from_s}, {key::kToS, i.to_s}, {"open", i.open}});
  }
  return {{key::kRun, c.plan.run}, {key::kMode, c.plan.mode}, {key::kOp, c.plan.op}, {key::kSize, c.plan.size},
          {key::kPayload, c.plan.payload}, {"keys", c.plan.keys}, {key::kRan, c.ran},
          {"not_run", c.not_run.empty() ? json(nullptr) : json(c.not_run)}, {"interrupted", c.interrupted},
          {"has_errors", c.has_errors()}, {"skipped", c.skipped()}, {key::kSeconds, c.seconds}, {"ops", c.ops}, {"ok_replies", c.ok_replies},
          {"error_replies", c.error_replies}, {"unanswered", c.unanswered}, {"hits", c.hits}, {"misses", c.misses},
          {key::kOpsPerSec, c.ops_per_s}, {"p50_ns", c.p50_ns}, {"p95_ns", c.p95_ns}, {key::kP99Ns, c.p99_ns},
          {"max_ns", c.max_ns}, {"errors", c.errors}, {"first_error", c.first_error},
          {"moved_followed", c.moved_followed}, {"tryagain_retried", c.tryagain_retried},
          {key::kClientCpuS, c.client_cpu_s}, {key::kServerCpuS, c.server_cpu_s}, {"rss_mean", c.rss_mean},
          {key::kRssMax, c.rss_max}, {"write_bytes", c.write_bytes < 0 ? json(nullptr) : json(c.write_bytes)},
          {key::kWriteBytesPerSec, c.write_bytes < 0 ? json(nullptr) : json(c.bytes_per_s())}, {"aof", c.aof}, {"aof_settle_ms", c.aof_settle_ms},
          {key::kClusterSamples, c.cluster.samples}, {key::kClusterIntervals, cl},
          {"invariant", c.invariant ? c.invariant->ToJson() : json(nullptr)}};
}

std::vector<std::string> CellRow(const CellResult& c) {
  auto n = [&](const char* k) {
    auto it = c.errors.find(k);
    return std::to_string(it != c.errors.end() ? it->second : 0);
  };
  uint64_t other = 0;
  for (const auto& [k, v] : c.errors) {
    if (std::find_if(std::begin(kNamedKinds), std::end(kNamedKinds), [&](const char* x) { return k == x; }) ==
        std::end(kNamedKinds)) {
      other += v;
    }
  }
  auto aof = [&](const char* k) { return std::to_string(c.aof.count(k) ? c.aof.at(k) : 0); };
  return {std::to_string(c.plan.run), c.plan.mode, c.plan.op, std::to_string(c.plan.size), c.plan.payload,
          c.ran ? "true" : "false", c.has_errors() ? "true" : "false", fmt::format("{:.6f}", c.seconds),
          std::to_string(c.ops), std::to_string(c.ok_replies), fmt::format("{:.1f}", c.ops_per_s),
          std::to_string(c.p50_ns), std::to_string(c.p95_ns), std::to_string(c.p99_ns), std::to_string(c.max_ns),
          n("CLUSTERDOWN"), n("MOVED"), n("TRYAGAIN"), n("timeout"), n("connection"), std::to_string(other),
          std::to_string(c.unanswered), fmt::format("{:.6f}", c.client_cpu_s), fmt::format("{:.6f}", c.server_cpu_s),
          std::to_string(c.rss_mean), std::to_string(c.rss_max), std::to_string(c.write_bytes),
          aof("aof_delayed_fsync"), aof("aof_rewrites"), std::to_string(c.cluster.intervals.size()),
          c.not_run.empty() ? c.first_error : c.not_run};
}

const std::vector<std::string> kCellColumns = {
    "run", "mode", "op", "size", "payload", "ran", "has_errors", "seconds", "ops", "ok_replies", "ops_per_sec",
    "p50_ns", "p95_ns", "p99_ns", "max_ns", "clusterdown", "moved", "tryagain", "timeouts", "connection_failures",
    "other_errors", "unanswered", "client_cpu_s", "server_cpu_s", "rss_mean", "rss_max", "write_bytes",
    "aof_delayed_fsync", "aof_rewrites", "cluster_intervals", "first_error"};

std::string InvariantText(const std::vector<CellResult>& cells, Table* table, ScenarioReport* report) {
  std::string out;
  for (const CellResult& c : cells) {
    if (!c.plan.aof || c.plan.op != "SET") continue;
    const std::string where = fmt::format("run {} {} SET {} {}", c.plan.run, c.plan.mode, Size(c.plan.size), c.plan.payload);
    if (!c.ran) {
      out += fmt::format("    {}: not checked: the cell did not run\n", where);
    } else if (!c.invariant) {
      out += fmt::format("    {}: not checked: /proc/PID/io was unreadable\n", where);
      report->Mark(ScenarioVerdict::kPartial, where + ": the storage invariant could not be checked (/proc/PID/io)");
    } else {
      out += fmt::format("    {}: {}\n", where, c.invariant->Describe());
      table->rows.push_back({std::to_string(c.plan.run), c.plan.mode, std::to_string(c.plan.size), c.plan.payload,
                             c.invariant->name, std::to_string(c.invariant->lhs_value),
                             std::to_string(c.invariant->rhs_value), c.invariant->ok() ? "true" : "false"});
      if (!c.invariant->ok()) {
        report->Mark(ScenarioVerdict::kFailed, fmt::format("{}: invariant broken: {}", where, c.invariant->Describe()));
      }
    }
  }
  return out.empty() ? "    none: no AOF SET cell ran\n" : out;
}

// The blocks, in order, and the tables and JSON fields made beside them.
void FillDurabilityBlocks(const DurabilityOverloadOptions& o, const DurabilityMeasured& m,
                          const std::vector<Group>& groups, ScenarioReport* report) {
  Table cells{"cells", kCellColumns, {}};
  Table events{"cluster_events", {"run", "mode", "op", "size", "payload", "what", "from_s", "to_s", "open"}, {}};
  Table probe{"storage_probe", {"pass", "content", "bytes", "seconds", "fsync_p50_ms", "fsync_max_ms", "fsyncs"}, {}};
  Table price{"durability_price", {"size", "payload", "mode", "ops_per_sec", "ops_per_sec_none", "ratio", "n", "n_none"}, {}};
  Table inv{"invariants", {"run", "mode", "size", "payload", "invariant", "lhs_value", "rhs_value", "ok"}, {}};
  json cells_json = json::array(), price_json = json::array(), probe_json = nullptr, legacy_json = nullptr;
  for (const CellResult& c : m.cells) {
    cells.rows.push_back(CellRow(c));
    cells_json.push_back(CellJson(c));
  }
  report->blocks.push_back({"Storage probe (before the cells)", ProbeText(m, &probe, &probe_json)});
  report->blocks.push_back({"Cells: throughput, latency, errors by kind", MatrixText(groups)});
  report->blocks.push_back({"Cells: client and server resources, storage, AOF", ResourceText(groups)});
  report->blocks.push_back({"The cluster's state during the cells", ClusterText(m.cells, &events)});
  report->blocks.push_back({"The price of durability (SET throughput with AOF / without)",
                            PriceText(m.modes, groups, &price, &price_json)});
  if (o.legacy) report->blocks.push_back({"Legacy client (no cluster mode) against one node", LegacyText(o, m, &legacy_json)});
  report->blocks.push_back({"Invariants (AOF writes every value whole: a broken one fails the run)",
                            InvariantText(m.cells, &inv, report)});
  report->tables = {cells, events, probe, price, inv};
  report->json[key::kCells] = cells_json;
  report->json[key::kDurabilityPrice] = price_json;
  report->json["storage_probe"] = probe_json;
  report->json["legacy"] = legacy_json;
}

// matrix[]: each position over the runs; a position with errors fails the run.
json MatrixJson(const std::vector<Group>& groups, ScenarioReport* report) {
  json out = json::array();
  for (const Group& g : groups) {
    const Range ops = g.Of([](const CellResult& c) { return c.ops_per_s; });
    out.push_back({{key::kMode, g.mode}, {key::kOp, g.op}, {key::kSize, g.size}, {key::kPayload, g.payload},
                   {key::kRuns, g.runs.size()}, {key::kRunsWithErrors, g.with_errors()},
                   {"runs_not_run", g.skipped()}, {"errors", g.Errors()},
                   {key::kOpsPerSec, RangeJson(ops)}});
    if (g.with_errors() > 0) {
      report->Mark(ScenarioVerdict::kFailed, fmt::format("{}: errors in {} of {} runs ({})", g.Name(), g.with_errors(),
                                                         g.runs.size(), ErrorsText(g.Errors())));
    }
  }
  return out;
}

json OptionsJson(const DurabilityOverloadOptions& o, const DurabilityMeasured& m) {
  return {{"masters", o.masters}, {"replicas", o.replicas}, {"modes", m.modes}, {"sizes", o.sizes}, {"payloads", o.payloads},
          {"cell_duration_s", o.cell_duration_s}, {"node_timeout_ms", o.node_timeout_ms},
          {"clients", o.clients}, {"pipeline", o.pipeline}, {"compress_ratio", o.compress_ratio},
          {"probe_bytes", o.probe_bytes}, {"data_bytes", o.data_bytes}, {"threads", o.threads},
          {"keys", o.keys > 0 ? json(o.keys) : json(nullptr)}};
}

std::vector<std::string> DurabilityProcedure(const DurabilityOverloadOptions& o, const DurabilityMeasured& m) {
  return {
      fmt::format("per run and durability mode ({}), a fresh Redis Cluster of {} masters{} through the "
                  "stand, stopped after its cells; the modes' order alternates between runs", fmt::join(m.modes, ", "),
                  o.masters, Replicas(o)),
      fmt::format("cells of {:g} s each: SET of each size ({}) and payload ({}; compressible: zstd about {:g}x; "
                  "pattern: memtier's near-constant default), then GET over that size's keys; keys {}, uniform",
                  o.cell_duration_s, fmt::join(o.sizes, ", "), fmt::join(o.payloads, ", "), o.compress_ratio,
                  o.keys > 0 ? fmt::format("do:<size>:1..{} (--keys)", o.keys)
                             : fmt::format("do:<size>:1..min(20000, {} B / size)", o.data_bytes)),
      fmt::format("the load engine in cluster mode: {} thread(s), {} clients each connected to every master, pipeline "
                  "{}; the engine ends a cell at its first failed connection", o.threads, o.clients, o.pipeline),
      "during each cell: every node's /proc/PID/stat and /proc/PID/io every 0.5 s, and CLUSTER INFO + CLUSTER NODES "
      "on every node every 1 s from a thread of its own; INFO persistence before and after",
      "before the first cells: the storage probe in the servers' folder; after the first run's none cells: the "
      "legacy client (no cluster mode) against master-1"};
}

std::vector<std::string> DurabilityLimits(const DurabilityOverloadOptions& o) {
  return {
      "one machine: all nodes share its disk and its cores, and the client runs beside them; absolute figures "
      "describe this platform (docs/method.md rule 1), the ratios within one scenario run survive it better",
      o.replicas == 0
          ? "no replicas: nothing about failover or replication cost; a node flagged fail here stays without a "
            "replacement"
          : "replicas share the machine with their masters: replication's cost is counted in the servers' CPU and "
            "storage writes, but its network is loopback; a failover during a cell shows as errors and in the "
            "cluster's state, its length only at the sampling period's resolution",
      fmt::format("cells of {:g} s: stalls longer than a cell, and failure detection slower than it "
                  "(cluster-node-timeout {} ms), may not show", o.cell_duration_s, o.node_timeout_ms),
      "bytes written are what the kernel accounts to each node (write_bytes, at page granularity, a forked rewrite "
      "child counted once reaped); the storage's own compression is only inferred from the probe",
      "the cluster's state has the sampling period's resolution (1 s)"};
}

}  // namespace

bool StorageCompresses(const StorageProbeResult& p) {
  const double random = p.BytesPerSecond("random");
  return random > 0 && p.BytesPerSecond("repeated") / random > kCompressesAbove;
}

void FillDurabilityReport(const DurabilityOverloadOptions& o, const DurabilityMeasured& m, ScenarioReport* report) {
  const std::vector<Group> groups = Groups(m.cells);
  FillDurabilityBlocks(o, m, groups, report);
  report->json[key::kMatrix] = MatrixJson(groups, report);
  for (const std::string& f : m.mode_failures) report->Mark(ScenarioVerdict::kFailed, f);
  report->json["options"] = OptionsJson(o, m);
  report->json["mode_failures"] = m.mode_failures;
  report->procedure = DurabilityProcedure(o, m);
  report->limits = DurabilityLimits(o);
  for (const CellResult& c : m.cells) {
    if (!c.validity) continue;
    report->judged.push_back({fmt::format("run {} {} {} {} {}", c.plan.run, c.plan.mode, c.plan.op,
                                          Size(c.plan.size), c.plan.payload),
                              *c.validity});
  }
  if (m.legacy && m.legacy->validity) report->judged.push_back({"legacy client", *m.legacy->validity});
}

}  // namespace memstand

#include "scenario/compute_locality.h"

#include <algorithm>
#include <memory>

#include <fmt/format.h>

#include "core/clock.h"
#include "report/repeat.h"
#include "scenario/locality_paths.h"
#include "scenario/locality_pg.h"
#include "scenario/scenario_server.h"
#include "stats/modality.h"
#include "workload/products.h"

namespace memstand {
namespace {

using nlohmann::json;

constexpr int kLogTailLines = 40;

// One timed call.
struct Sample {
  int pass = 1;      // 1: the paths in order; 2: reversed (--swap-order)
  int rep = 0;       // 1-based within the pass
  int position = 0;  // the path's place in this round, 1-based
  int64_t ns = 0;
  SocketBytes app;
  TcpBytes kernel;
  int64_t objects = 0;
};

struct PathRun {
  LocalityPath path;
  PathCall first;  // the untimed first call: its ids and objects
  Sample first_bytes;
  std::vector<Sample> samples;
  std::string failure;
  std::vector<std::string> id_notes;  // calls with other ids or objects than the first: fail the run
};

struct SystemRun {
  std::string name;  // "tarantool", "redis", "postgresql"
  std::string not_run;  // "not run: tarantool is not installed (apt-get install tarantool)"
  std::string failure;
  std::string description, config_text;
  double load_s = 0;
  std::vector<PathRun> paths;
};

// One call of `p`, with the bytes of both counts over its window and its time.
Result<Sample> Measure(const LocalityPath& p, PathCall* call) {
  const SocketBytes a0 = p.app_bytes();
  auto k0 = p.kernel_bytes();
  if (!k0.ok()) return k0.status().WithContext("TCP_INFO before the call");
  const int64_t t0 = NowNs();
  auto r = p.call();
  const int64_t t1 = NowNs();
  if (!r.ok()) return r.status();
  const SocketBytes a1 = p.app_bytes();
  auto k1 = p.kernel_bytes();
  if (!k1.ok()) return k1.status().WithContext("TCP_INFO after the call");
  Sample s;
  s.ns = t1 - t0;
  s.app = {a1.read - a0.read, a1.written - a0.written};
  s.kernel = {k1->received - k0->received, k1->acked - k0->acked};
  s.objects = r->objects;
  *call = std::move(*r);
  return s;
}

// min and max of one byte count over the timed calls.
std::pair<uint64_t, uint64_t> SpanOf(const PathRun& pr, uint64_t SocketBytes::*field) {
  std::pair<uint64_t, uint64_t> out{pr.first_bytes.app.*field, pr.first_bytes.app.*field};
  for (const Sample& s : pr.samples) {
    out.first = std::min(out.first, s.app.*field);
    out.second = std::max(out.second, s.app.*field);
  }
  return out;
}

// Whether the app and kernel counts of every timed call agree.
bool CountsAgree(const PathRun& pr) {
  return std::all_of(pr.samples.begin(), pr.samples.end(), [](const Sample& s) {
    return s.app.read == s.kernel.received && s.app.written == s.kernel.acked;
  });
}

// A line when the byte counts differ between calls (framing that widens), else "".
std::string BytesSpanNote(const PathRun& pr) {
  const auto in = SpanOf(pr, &SocketBytes::read), out = SpanOf(pr, &SocketBytes::written);
  if (in.first == in.second && out.first == out.second) return "";
  return fmt::format("bytes in {}..{}, out {}..{} over the calls{}", in.first, in.second, out.first, out.second,
                     pr.path.system == "tarantool" ? " (IPROTO's sync grows by one a request; its MessagePack "
                                                     "encoding widens at 128, 256 and 65,536)"
                                                   : "");
}

// One timed round of every path in `order`; a path that fails is skipped from then on.
void Round(std::vector<PathRun>* paths, const std::vector<size_t>& order, int pass, int rep) {
  int position = 0;
  for (size_t i : order) {
    PathRun& pr = (*paths)[i];
    if (!pr.failure.empty()) continue;
    PathCall call;
    auto s = Measure(pr.path, &call);
    if (!s.ok()) {
      pr.failure = s.status().message();
      continue;
    }
    s->pass = pass;
    s->rep = rep;
    s->position = ++position;
    if ((call.ids != pr.first.ids || call.objects != pr.first.objects) && pr.id_notes.size() < 3) {
      pr.id_notes.push_back(fmt::format("pass {} call {}: other ids or objects than the first call", pass, rep));
    }
    pr.samples.push_back(*s);
  }
}

void MeasurePaths(const ComputeLocalityOptions& o, const ScenarioContext& ctx, SystemRun* sr) {
  for (PathRun& pr : sr->paths) {  // the first call: untimed, its ids, objects and bytes
    auto s = Measure(pr.path, &pr.first);
    if (s.ok()) pr.first_bytes = *s;
    else pr.failure = s.status().message();
  }
  std::vector<size_t> order(sr->paths.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  for (int pass = 1; pass <= (o.swap_order ? 2 : 1); ++pass) {
    if (pass == 2) std::reverse(order.begin(), order.end());
    for (int rep = 1; rep <= o.reps && !ctx.interrupted(); ++rep) Round(&sr->paths, order, pass, rep);
  }
}

// Loads the records, builds the paths and measures them: the part every system shares.
template <class Server>
void LoadAndMeasure(const ComputeLocalityOptions& o, const ScenarioContext& ctx, int run, Server load_and_paths,
                    SystemRun* sr) {
  ctx.Progress("compute-locality", fmt::format("run {}: {}: loading {} records", run, sr->name, kProductCount));
  const int64_t t0 = NowNs();
  Result<std::vector<LocalityPath>> paths = load_and_paths();
  sr->load_s = static_cast<double>(NowNs() - t0) / 1e9;
  if (!paths.ok()) {
    sr->failure = paths.status().message();
    return;
  }
  for (LocalityPath& p : *paths) {
    PathRun pr;
    pr.path = std::move(p);
    sr->paths.push_back(std::move(pr));
  }
  ctx.Progress("compute-locality", fmt::format("run {}: {}: {} paths x {} calls x {} pass(es)", run, sr->name, sr->paths.size(), o.reps,
                            o.swap_order ? 2 : 1));
  MeasurePaths(o, ctx, sr);
}

SystemRun RunPostgres(const ComputeLocalityOptions& o, const ScenarioContext& ctx, int run, ScenarioReport* report) {
  SystemRun sr;
  sr.name = "postgresql";
  if (!PostgresInstalled()) {
    sr.not_run = "not run: postgres is not installed (apt-get install postgresql)";
    return sr;
  }
  auto cluster = PgCluster::Start(ctx.interrupt);
  if (!cluster.ok()) {
    sr.failure = "server did not start: " + cluster.status().message();
    return sr;
  }
  sr.description = (*cluster)->Describe();
  sr.config_text = (*cluster)->ConfigText();
  LoadAndMeasure(o, ctx, run, [&]() -> Result<std::vector<LocalityPath>> {
    Status s = (*cluster)->Load(ctx.seed, kProductCount);
    if (!s.ok()) return s;
    return (*cluster)->Paths(o.category, o.top);
  }, &sr);
  report->files[fmt::format("logs/{}-run{}.log", sr.name, run)] = (*cluster)->LogTail(kLogTailLines);
  (*cluster)->Stop();
  return sr;
}

SystemRun RunSystem(const ComputeLocalityOptions& o, const ScenarioContext& ctx, const ServerConfig& config,
                    int run, ScenarioReport* report) {
  SystemRun sr;
  sr.name = config.name;
  if (!SystemInstalled(config.system)) {
    sr.not_run = fmt::format("not run: {} is not installed (apt-get install {})", SystemBinary(config.system),
                             SystemPackage(config.system));
    return sr;
  }
  auto server = StartLocalityServer(config, ctx.interrupt);
  if (!server.ok()) {
    sr.failure = "server did not start: " + server.status().message();
    return sr;
  }
  sr.description = (*server)->Describe();
  sr.config_text = (*server)->ConfigText();
  LoadAndMeasure(o, ctx, run, [&]() -> Result<std::vector<LocalityPath>> {
    Status s = LoadLocalityRecords(server->get(), ctx.seed, kProductCount, o.load_batch);
    if (!s.ok()) return s;
    return LocalityPaths(server->get(), o.category, o.top);
  }, &sr);
  if (!sr.failure.empty() && !(*server)->Alive()) sr.failure += " (the server is gone)";
  report->files[fmt::format("logs/{}-run{}.log", sr.name, run)] = (*server)->LogTail(kLogTailLines);
  (*server)->Stop();
  return sr;
}

std::vector<double> Times(const PathRun& pr, int pass) {
  std::vector<double> out;
  for (const Sample& s : pr.samples) {
    if (pass == 0 || s.pass == pass) out.push_back(static_cast<double>(s.ns));
  }
  return out;
}

std::string Ms(double ns) { return fmt::format("{:.3f}", ns / 1e6); }

// Per path: its figures, and its ratios against `base` (the system's naive path).
struct PathFigures {
  const PathRun* pr = nullptr;
  Range all, pass1, pass2;
  bool timed = false;
  double bytes_per_object = 0;
};

PathFigures FiguresOf(const PathRun& pr) {
  PathFigures f;
  f.pr = &pr;
  if (!pr.samples.empty()) {
    f.timed = true;
    f.all = RangeOf(Times(pr, 0));
    auto p1 = Times(pr, 1), p2 = Times(pr, 2);
    if (!p1.empty()) f.pass1 = RangeOf(p1);
    if (!p2.empty()) f.pass2 = RangeOf(p2);
  }
  if (pr.first.objects > 0) f.bytes_per_object = double(pr.first_bytes.app.read) / double(pr.first.objects);
  return f;
}

struct Ratios {
  double objects = 0, bytes_in = 0, bytes_per_object = 0, time = 0;
};

Ratios RatiosOf(const PathFigures& base, const PathFigures& p) {
  Ratios r;
  if (p.pr->first.objects > 0) r.objects = double(base.pr->first.objects) / double(p.pr->first.objects);
  if (p.pr->first_bytes.app.read > 0) {
    r.bytes_in = double(base.pr->first_bytes.app.read) / double(p.pr->first_bytes.app.read);
  }
  if (p.bytes_per_object > 0) r.bytes_per_object = base.bytes_per_object / p.bytes_per_object;
  if (base.timed && p.timed && p.all.median > 0) r.time = base.all.median / p.all.median;
  return r;
}

// "bytes in 5012.3x = objects 3327.6x x bytes per object 1.5x"
std::string Identity(const Ratios& r) {
  return fmt::format("bytes in {:.1f}x = objects {:.1f}x * bytes per object {:.3f}x", r.bytes_in, r.objects,
                     r.bytes_per_object);
}

const PathRun* Find(const SystemRun& sr, const std::string& name) {
  for (const PathRun& pr : sr.paths) {
    if (pr.path.name == name) return &pr;
  }
  return nullptr;
}

// The comparisons that answer the question, per system: each a (naive-side, local-side) pair.
struct Pair {
  const char* label;
  const char* a;
  const char* b;
  const char* reading;
};

std::vector<Pair> PairsOf(const std::string& system) {
  if (system == "tarantool") {
    return {{"as published", "naive", "local",
             "five things differ at once: where, algorithm, cardinality, shape, serialization"},
            {"control 1a, aligned shape (id, title, views)", "naive-short", "local",
             "bytes per object about 1: what remains is cardinality"},
            {"control 1b, aligned shape (full records)", "naive", "local-full",
             "bytes per object about 1: what remains is cardinality"},
            {"control 2, aligned algorithm", "local-scan", "local",
             "both on the server, same output: index walk vs scan and sort, the time of the algorithm"}};
  }
  if (system == "postgresql") {
    return {{"control 3, no colocated compute (ORDER BY ... LIMIT, full records)", "naive", "local",
             "the cardinality effect of a classic DBMS's own query, without stored code"},
            {"control 3 with the short shape (id, title, views)", "naive-short", "local-short",
             "the same on a smaller record"}};
  }
  return {{"as published (records in full on both sides)", "naive", "local",
           "the shape is already aligned: the bytes ratio is cardinality"},
          {"control 1, aligned shape (id, title, views)", "naive-short", "local-short",
           "bytes per object about 1 again, on a smaller record"}};
}

std::string PathTable(const SystemRun& sr) {
  std::string out = fmt::format("      {:<12} {:>7} {:>22} {:>18} {:>10} {:>10} {:>19} {:>30}\n", "path", "objects",
                                "bytes in (app/kernel)", "bytes out (app/k)", "median ms", "A-B / B-A",
                                "min / max ms", "vs naive: obj  bytes  b/obj  time");
  const PathRun* naive = Find(sr, "naive");
  const PathFigures base = naive != nullptr ? FiguresOf(*naive) : PathFigures{};
  for (const PathRun& pr : sr.paths) {
    if (!pr.failure.empty()) {
      out += fmt::format("      {:<12} FAILED: {}\n", pr.path.name, pr.failure);
      continue;
    }
    const PathFigures f = FiguresOf(pr);
    const Ratios r = naive != nullptr ? RatiosOf(base, f) : Ratios{};
    out += fmt::format("      {:<12} {:>7} {:>22} {:>18} {:>10} {:>10} {:>19} {:>11.1f}x {:>6.1f}x {:>5.2f}x {:>5.2f}x\n",
                       pr.path.name, pr.first.objects,
                       fmt::format("{}/{}", pr.first_bytes.app.read, pr.first_bytes.kernel.received),
                       fmt::format("{}/{}", pr.first_bytes.app.written, pr.first_bytes.kernel.acked),
                       f.timed ? Ms(f.all.median) : "-",
                       f.timed ? Ms(f.pass1.median) + "/" + (f.pass2.n > 0 ? Ms(f.pass2.median) : "-") : "-",
                       f.timed ? Ms(f.all.min) + " / " + Ms(f.all.max) : "-", r.objects, r.bytes_in,
                       r.bytes_per_object, r.time);
  }
  return out;
}

std::string PathLegend(const SystemRun& sr) {
  std::string out;
  for (const PathRun& pr : sr.paths) {
    out += fmt::format("      {:<12} {}; {}; top computed by the {}; {} round trip{}\n", pr.path.name,
                       pr.path.request, pr.path.shape, pr.path.where, pr.path.round_trips,
                       pr.path.round_trips == 1 ? "" : "s");
    for (const std::string& n : pr.id_notes) out += "        FAILED: " + n + "\n";
    const std::string span = BytesSpanNote(pr);
    if (!span.empty()) out += "        note: " + span + "\n";
  }
  return out;
}

std::string PairsText(const SystemRun& sr) {
  std::string out;
  for (const Pair& p : PairsOf(sr.name)) {
    const PathRun* a = Find(sr, p.a);
    const PathRun* b = Find(sr, p.b);
    if (a == nullptr || b == nullptr || !a->failure.empty() || !b->failure.empty()) continue;
    const PathFigures fa = FiguresOf(*a), fb = FiguresOf(*b);
    const Ratios r = RatiosOf(fa, fb);
    out += fmt::format("      {} ({} / {}): {}; time {:.2f}x\n        {}\n", p.label, p.a, p.b, Identity(r), r.time,
                       p.reading);
  }
  return out;
}

std::string BytesAgreement(const SystemRun& sr) {
  std::string out;
  for (const PathRun& pr : sr.paths) {
    if (!pr.failure.empty()) continue;
    const Sample& s = pr.first_bytes;
    const int64_t in = int64_t(s.kernel.received) - int64_t(s.app.read);
    const int64_t o = int64_t(s.kernel.acked) - int64_t(s.app.written);
    if (in != 0 || o != 0 || !CountsAgree(pr)) {
      out += fmt::format("      {}: kernel - app = {} bytes in, {} bytes out on the first call{} (the kernel "
                         "counts TCP payload; a difference means bytes outside the call's window)\n",
                         pr.path.name, in, o, CountsAgree(pr) ? "" : "; some timed calls differ too (samples.csv)");
    }
  }
  return out.empty() ? "      both counts agree to the byte on every path (TCP payload == what memstand read "
                       "and wrote; the protocols' framing is in both)\n"
                     : out;
}

std::string ModalityText(const SystemRun& sr) {
  std::string out;
  for (const PathRun& pr : sr.paths) {
    const ModalityResult m = DetectModes(Times(pr, 0));
    if (m.modes == 0) continue;
    if (m.multimodal) {
      std::string modes;
      for (double v : m.mode_values) modes += (modes.empty() ? "" : ", ") + Ms(v) + " ms";
      out += fmt::format("      {}: {} modes ({}): the median lands in one of them\n", pr.path.name, m.modes, modes);
    }
  }
  return out;
}

std::string SystemBlock(const SystemRun& sr, const std::string& tag) {
  std::string out = fmt::format("    {}{} — {}\n", tag, sr.name,
                                sr.not_run.empty() ? sr.description : sr.not_run);
  if (!sr.not_run.empty()) return out;
  if (!sr.failure.empty()) return out + "      FAILED: " + sr.failure + "\n";
  out += fmt::format("      loaded {} records in {:.1f} s\n", kProductCount, sr.load_s);
  out += PathTable(sr) + PathLegend(sr) + "    bytes, both counts:\n" + BytesAgreement(sr) +
         "    the ratios, and the identity (each factor measured, the product exact):\n" + PairsText(sr);
  const std::string modes = ModalityText(sr);
  if (!modes.empty()) out += "    multimodal timings (METHOD.md rule 9):\n" + modes;
  return out;
}

std::string IdsText(const std::vector<uint32_t>& ids) {
  std::string out;
  for (uint32_t id : ids) out += (out.empty() ? "" : ", ") + std::to_string(id);
  return out;
}

json PathJson(const PathRun& pr, const PathFigures& base, bool has_base) {
  const PathFigures f = FiguresOf(pr);
  json j{{"name", pr.path.name},         {"request", pr.path.request}, {"shape", pr.path.shape},
         {"top_computed_by", pr.path.where}, {"round_trips", pr.path.round_trips}};
  if (!pr.failure.empty()) j["failure"] = pr.failure;
  j["objects"] = pr.first.objects;
  j["ids"] = pr.first.ids;
  j["bytes_in"] = pr.first_bytes.app.read;
  j["bytes_out"] = pr.first_bytes.app.written;
  j["kernel_bytes_received"] = pr.first_bytes.kernel.received;
  j["kernel_bytes_acked"] = pr.first_bytes.kernel.acked;
  j["samples"] = pr.samples.size();
  if (f.timed) {
    j["median_ns"] = f.all.median;
    j["min_ns"] = f.all.min;
    j["max_ns"] = f.all.max;
    j["median_ns_pass1"] = f.pass1.median;
    j["median_ns_pass2"] = f.pass2.n > 0 ? json(f.pass2.median) : json(nullptr);
  }
  if (has_base) {
    const Ratios r = RatiosOf(base, f);
    j["vs_naive"] = {{"objects", r.objects}, {"bytes_in", r.bytes_in}, {"bytes_per_object", r.bytes_per_object},
                     {"time", r.time}};
  }
  const auto in = SpanOf(pr, &SocketBytes::read), out = SpanOf(pr, &SocketBytes::written);
  j["bytes_in_span"] = {in.first, in.second};
  j["bytes_out_span"] = {out.first, out.second};
  j["counts_agree_every_call"] = CountsAgree(pr);
  j["differing_calls"] = pr.id_notes;
  return j;
}

json SystemJson(const SystemRun& sr, int run) {
  json j{{"name", sr.name}, {"run", run}, {"server", sr.description}};
  if (!sr.not_run.empty()) j["not_run"] = sr.not_run;
  if (!sr.failure.empty()) j["failure"] = sr.failure;
  j["load_seconds"] = sr.load_s;
  const PathRun* naive = Find(sr, "naive");
  const PathFigures base = naive != nullptr ? FiguresOf(*naive) : PathFigures{};
  json paths = json::array();
  for (const PathRun& pr : sr.paths) paths.push_back(PathJson(pr, base, naive != nullptr));
  j["paths"] = paths;
  json pairs = json::array();
  for (const Pair& p : PairsOf(sr.name)) {
    const PathRun* a = Find(sr, p.a);
    const PathRun* b = Find(sr, p.b);
    if (a == nullptr || b == nullptr) continue;
    const Ratios r = RatiosOf(FiguresOf(*a), FiguresOf(*b));
    pairs.push_back({{"label", p.label}, {"a", p.a}, {"b", p.b}, {"objects", r.objects}, {"bytes_in", r.bytes_in},
                     {"bytes_per_object", r.bytes_per_object}, {"time", r.time}, {"reading", p.reading}});
  }
  j["pairs"] = pairs;
  return j;
}

void FillTables(const std::vector<std::vector<SystemRun>>& runs, const std::vector<Invariant>& invariants,
                ScenarioReport* report) {
  Table samples{"samples",
                {"run", "system", "path", "pass", "rep", "position", "ns", "objects", "bytes_in", "bytes_out",
                 "kernel_bytes_received", "kernel_bytes_acked"},
                {}};
  Table paths{"paths",
              {"run", "system", "path", "objects", "bytes_in", "bytes_out", "kernel_bytes_received",
               "kernel_bytes_acked", "median_ns", "min_ns", "max_ns", "round_trips", "ids", "status"},
              {}};
  for (size_t k = 0; k < runs.size(); ++k) {
    const std::string run = std::to_string(k + 1);
    for (const SystemRun& sr : runs[k]) {
      if (!sr.not_run.empty() || !sr.failure.empty()) {
        paths.rows.push_back({run, sr.name, "", "", "", "", "", "", "", "", "", "", "",
                              sr.not_run.empty() ? "failed: " + sr.failure : sr.not_run});
      }
      for (const PathRun& pr : sr.paths) {
        const PathFigures f = FiguresOf(pr);
        const Sample& b = pr.first_bytes;
        paths.rows.push_back({run, sr.name, pr.path.name, std::to_string(pr.first.objects),
                              std::to_string(b.app.read), std::to_string(b.app.written),
                              std::to_string(b.kernel.received), std::to_string(b.kernel.acked),
                              f.timed ? fmt::format("{:.0f}", f.all.median) : "",
                              f.timed ? fmt::format("{:.0f}", f.all.min) : "",
                              f.timed ? fmt::format("{:.0f}", f.all.max) : "", std::to_string(pr.path.round_trips),
                              IdsText(pr.first.ids), pr.failure.empty() ? "ok" : "failed: " + pr.failure});
        for (const Sample& s : pr.samples) {
          samples.rows.push_back({run, sr.name, pr.path.name, std::to_string(s.pass), std::to_string(s.rep),
                                  std::to_string(s.position), std::to_string(s.ns), std::to_string(s.objects),
                                  std::to_string(s.app.read), std::to_string(s.app.written),
                                  std::to_string(s.kernel.received), std::to_string(s.kernel.acked)});
        }
      }
    }
  }
  Table inv{"invariants", {"invariant", "lhs_value", "rhs_value", "ok"}, {}};
  for (const Invariant& i : invariants) {
    inv.rows.push_back({i.name, std::to_string(i.lhs_value), std::to_string(i.rhs_value), i.ok() ? "true" : "false"});
  }
  report->tables = {paths, samples, inv};
}

// Time ratios against naive over the runs (METHOD.md rule 8: the range carries its N).
std::string RangesText(const std::vector<std::vector<SystemRun>>& runs) {
  std::map<std::string, std::vector<double>> by_path;
  std::map<std::string, std::vector<int64_t>> objects;
  std::vector<std::string> order;
  for (const auto& run : runs) {
    for (const SystemRun& sr : run) {
      const PathRun* naive = Find(sr, "naive");
      if (naive == nullptr || !sr.failure.empty()) continue;
      const PathFigures base = FiguresOf(*naive);
      for (const PathRun& pr : sr.paths) {
        const Ratios r = RatiosOf(base, FiguresOf(pr));
        if (r.time <= 0) continue;
        const std::string key = sr.name + " " + pr.path.name;
        objects[key].push_back(pr.first.objects);
        if (by_path[key].empty()) order.push_back(key);
        by_path[key].push_back(r.time);
      }
    }
  }
  std::string out;
  for (const std::string& key : order) {
    const Range r = RangeOf(by_path[key]);
    const std::vector<int64_t>& o = objects[key];
    const bool same = std::all_of(o.begin(), o.end(), [&](int64_t v) { return v == o[0]; });
    out += fmt::format("    {}: time vs naive {:.2f}x {:.2f}x {:.2f}x (min median max, N={}); objects {}\n", key,
                       r.min, r.median, r.max, r.n,
                       same ? fmt::format("{} in every run", o[0]) : "DIFFER between runs (samples.csv)");
  }
  return out;
}

std::vector<Invariant> CheckIds(const std::vector<std::vector<SystemRun>>& runs, const std::vector<uint32_t>& ref,
                                ScenarioReport* report) {
  std::vector<Invariant> out;
  for (size_t k = 0; k < runs.size(); ++k) {
    for (const SystemRun& sr : runs[k]) {
      for (const PathRun& pr : sr.paths) {
        if (!pr.failure.empty()) continue;
        const std::string name = fmt::format("run {} {} {}", k + 1, sr.name, pr.path.name);
        out.push_back(SameIdsInvariant(name, pr.first.ids, "the dataset's", ref));
        for (const std::string& n : pr.id_notes) {
          report->Mark(ScenarioVerdict::kFailed, name + ": " + n);
        }
      }
    }
  }
  return out;
}

void FillVerdict(const std::vector<std::vector<SystemRun>>& runs, const std::vector<Invariant>& invariants,
                 bool interrupted, ScenarioReport* report) {
  for (size_t k = 0; k < runs.size(); ++k) {
    for (const SystemRun& sr : runs[k]) {
      if (!sr.not_run.empty()) {
        if (k == 0) report->Mark(ScenarioVerdict::kPartial, sr.name + ": " + sr.not_run);
        continue;
      }
      if (!sr.failure.empty()) {
        report->Mark(ScenarioVerdict::kFailed, fmt::format("{} run {}: {}", sr.name, k + 1, sr.failure));
      }
      for (const PathRun& pr : sr.paths) {
        if (!pr.failure.empty()) {
          report->Mark(ScenarioVerdict::kFailed,
                       fmt::format("{} run {} {}: {}", sr.name, k + 1, pr.path.name, pr.failure));
        }
      }
    }
  }
  for (const Invariant& i : invariants) {
    if (!i.ok()) report->Mark(ScenarioVerdict::kFailed, "invariant broken: " + i.Describe());
  }
  if (interrupted) report->Mark(ScenarioVerdict::kInterrupted, "interrupted: the figures so far, marked partial");
}

bool Wanted(const ComputeLocalityOptions& o, const std::string& name) {
  return o.systems.empty() || std::find(o.systems.begin(), o.systems.end(), name) != o.systems.end();
}

// One run: each wanted system in turn, on a fresh server.
std::vector<SystemRun> RunOnce(const ComputeLocalityOptions& o, const ScenarioContext& ctx, int run,
                               ScenarioReport* report) {
  std::vector<SystemRun> out;
  for (const ServerConfig& c : {LocalityTarantoolConfig(), LocalityRedisConfig()}) {
    if (!ctx.interrupted() && Wanted(o, c.name)) out.push_back(RunSystem(o, ctx, c, run, report));
  }
  if (!ctx.interrupted() && Wanted(o, "postgresql")) out.push_back(RunPostgres(o, ctx, run, report));
  return out;
}

void Describe(const ComputeLocalityOptions& o, const ScenarioContext& ctx, ScenarioReport* report) {
  report->procedure = {
      fmt::format("one system at a time, a fresh server each: load products 1..{} (seed {}), {} records per "
                  "request (Tarantool: one EVAL of a msgpack array of field-wise tuples; Redis: MSET of the "
                  "records, MSET of their (id, title, views) form, ZADD per category)",
                  kProductCount, ctx.seed, o.load_batch),
      fmt::format("every path is called once untimed (its ids, objects and bytes), then {} times per pass, "
                  "paths interleaved (A B C ... A B C ...){}, all on the one control connection",
                  o.reps, o.swap_order ? ", then a second pass in reverse order (--swap-order)" : ""),
      "bytes per call: what memstand read and wrote on its own socket, and TCP_INFO tcpi_bytes_received / "
      "tcpi_bytes_acked of the same socket, before and after the call; time: the call and the client's "
      "part (decoding the reply, sorting on the naive paths)",
      fmt::format("ties: views descending, then id ascending, on every path; the reference is the top {} "
                  "computed from the dataset itself",
                  o.top)};
  report->limits = {
      "one client on loopback on this machine: nothing about a network with a real round-trip time, where "
      "the naive paths' bytes would cost far more",
      "absolute times describe this platform (METHOD.md rule 1); the ratios of two paths on one connection "
      "in one run are what survives",
      "the bytes ratio factors exactly into objects x bytes per object; neither factor is the price of "
      "locality: the controls show what each one is",
      "Redis's local path is two round trips (ZREVRANGE, MGET); on loopback a round trip is microseconds",
      "PostgreSQL runs with fsync=off in a throwaway cluster: nothing here is about its durability"};
}

}  // namespace

Invariant SameIdsInvariant(const std::string& name, const std::vector<uint32_t>& ids,
                           const std::string& reference, const std::vector<uint32_t>& reference_ids) {
  int64_t agree = 0;
  for (size_t i = 0; i < std::min(ids.size(), reference_ids.size()); ++i) agree += ids[i] == reference_ids[i] ? 1 : 0;
  if (ids.size() != reference_ids.size()) agree = -static_cast<int64_t>(ids.size());
  Invariant inv = MakeInvariant("positions agreeing", agree, "ids of " + reference,
                                static_cast<int64_t>(reference_ids.size()));
  inv.name = name + " ids == " + reference + " ids, in order";
  return inv;
}

Status ValidateComputeLocality(const ComputeLocalityOptions& o) {
  if (o.reps < 1 || o.reps > 10000) return Status::InvalidArgument(fmt::format("--reps must be 1..10000, got {}", o.reps));
  if (o.top < 1 || o.top > 1000) return Status::InvalidArgument(fmt::format("--top must be 1..1000, got {}", o.top));
  if (ProductCategoryCount(o.category) == 0) {
    std::string known;
    for (const std::string& c : ProductCategories()) known += (known.empty() ? "" : ", ") + c;
    return Status::InvalidArgument("--category: no category '" + o.category.substr(0, 40) + "'; known: " + known);
  }
  if (o.load_batch < 1 || o.load_batch > 10000) {
    return Status::InvalidArgument(fmt::format("load batch must be 1..10000, got {}", o.load_batch));
  }
  for (const std::string& s : o.systems) {
    if (s != "tarantool" && s != "redis" && s != "postgresql") {
      return Status::InvalidArgument("--only: no system '" + s.substr(0, 40) + "'; known: tarantool, redis, postgresql");
    }
  }
  return Status::OK();
}

Result<ScenarioReport> RunComputeLocality(const ComputeLocalityOptions& o, const ScenarioContext& ctx) {
  Status valid = ValidateComputeLocality(o);
  if (!valid.ok()) return valid;
  ScenarioReport report;
  report.scenario = "compute-locality";
  report.question = fmt::format("What does moving the computation to the data save? The top {} products of '{}' "
                                "by views, fetched to the client or computed by the server",
                                o.top, o.category);
  report.runs_requested = ctx.runs;
  const std::vector<uint32_t> ref = DatasetTopIds(ctx.seed, o.category, static_cast<size_t>(o.top));
  std::vector<std::vector<SystemRun>> runs;
  for (int run = 1; run <= ctx.runs && !ctx.interrupted(); ++run) {
    runs.push_back(RunOnce(o, ctx, run, &report));
    report.runs_made = run;
  }
  const std::vector<Invariant> invariants = CheckIds(runs, ref, &report);
  Describe(o, ctx, &report);
  if (!runs.empty()) {
    for (const SystemRun& sr : runs[0]) {
      report.configuration_lines.push_back(sr.name + ": " + (sr.not_run.empty() ? sr.description : sr.not_run));
      if (!sr.config_text.empty()) report.files["servers/" + sr.name + ".conf"] = sr.config_text;
    }
  }
  std::string results;
  json systems = json::array();
  for (size_t k = 0; k < runs.size(); ++k) {
    for (const SystemRun& sr : runs[k]) {
      results += SystemBlock(sr, runs.size() > 1 ? fmt::format("run {}: ", k + 1) : "");
      systems.push_back(SystemJson(sr, static_cast<int>(k + 1)));
    }
  }
  report.blocks.push_back({fmt::format("Per system: {} reps per pass; ratios are naive / path", o.reps),
                           results.empty() ? "    nothing ran\n" : results});
  if (runs.size() > 1) report.blocks.push_back({"Ranges over the runs", RangesText(runs)});
  std::string inv_text = fmt::format("    the top {} of '{}' (views descending, then id ascending): {}\n", o.top,
                                     o.category, IdsText(ref));
  for (const Invariant& i : invariants) inv_text += "    " + i.Describe() + "\n";
  report.blocks.push_back({"Invariant: every path returns the same ids in the same order (a broken one fails "
                           "the run)",
                           inv_text});
  json inv = json::array();
  for (const Invariant& i : invariants) inv.push_back(i.ToJson());
  report.json["category"] = o.category;
  report.json["category_records"] = ProductCategoryCount(o.category);
  report.json["top"] = o.top;
  report.json["reps"] = o.reps;
  report.json["swap_order"] = o.swap_order;
  report.json["reference_ids"] = ref;
  report.json["systems"] = systems;
  report.json["invariants"] = inv;
  FillTables(runs, invariants, &report);
  FillVerdict(runs, invariants, ctx.interrupted(), &report);
  return report;
}

}  // namespace memstand

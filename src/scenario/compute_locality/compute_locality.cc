#include "scenario/compute_locality/compute_locality.h"

#include <algorithm>
#include <memory>

#include <fmt/format.h>

#include "core/clock.h"
#include "scenario/compute_locality/paths.h"
#include "scenario/compute_locality/pg.h"
#include "scenario/compute_locality/report.h"
#include "scenario/compute_locality/run.h"
#include "scenario/kit/scenario_server.h"
#include "workload/products.h"

namespace memstand {
namespace {

using nlohmann::json;


// One call of `p`, with the bytes of both counts over its window and its time.
Result<PathSample> Measure(const LocalityPath& p, PathCall* call) {
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
  PathSample s;
  s.ns = t1 - t0;
  s.app = {a1.read - a0.read, a1.written - a0.written};
  s.kernel = {k1->received - k0->received, k1->acked - k0->acked};
  s.objects = r->objects;
  *call = std::move(*r);
  return s;
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
  for (PathRun& pr : sr->paths) {  // the check through the standard client library, untimed
    if (!pr.path.reference || !pr.failure.empty() || ctx.interrupted()) continue;
    auto r = pr.path.reference();
    if (r.ok()) {
      pr.referenced = true;
      pr.reference = std::move(*r);
    } else {
      pr.reference_failure = r.status().message();
    }
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
  if (const std::string missing = PostgresMissing(); !missing.empty()) {
    sr.not_run = "not run: " + missing;
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
  if (!sr.failure.empty()) sr.failure = (*server)->ExplainFailure(sr.failure);
  report->files[fmt::format("logs/{}-run{}.log", sr.name, run)] = (*server)->LogTail(kLogTailLines);
  (*server)->Stop();
  return sr;
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
        if (pr.referenced) {
          const std::string via = name + " via " + pr.path.reference_library;
          out.push_back(SameIdsInvariant(via, pr.reference.call.ids, "the dataset's", ref));
          Invariant objects = MakeInvariant("objects via " + pr.path.reference_library, pr.reference.call.objects,
                                            "objects via memstand's reader", pr.first.objects);
          objects.name = via + " objects == memstand's";
          out.push_back(objects);
        }
        if (!pr.reference_failure.empty()) {
          report->Mark(ScenarioVerdict::kFailed,
                       fmt::format("{} via {}: {}", name, pr.path.reference_library, pr.reference_failure));
        }
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
      "absolute times describe this platform (docs/method.md rule 1); the ratios of two paths on one "
      "connection in one run are what survives",
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

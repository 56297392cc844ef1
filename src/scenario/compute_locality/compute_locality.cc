#include "scenario/compute_locality/compute_locality.h"

#include <algorithm>
#include <memory>

#include <fmt/format.h>

#include "core/clock.h"
#include "scenario/compute_locality/paths.h"
#include "scenario/compute_locality/pg.h"
#include "scenario/compute_locality/report.h"
#include "scenario/compute_locality/run.h"
#include "scenario/kit/evidence.h"
#include "scenario/kit/runs.h"
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
    // "interrupted" when the signal cut the start short: not failed (FillVerdict)
    sr.failure = StartFailure(ctx, "compute-locality", fmt::format("run {}: {}", run, sr.name),
                              "server did not start: ", cluster.status());
    return sr;
  }
  sr.description = (*cluster)->Describe();
  sr.config_text = (*cluster)->ConfigText();
  LoadAndMeasure(o, ctx, run, [&]() -> Result<std::vector<LocalityPath>> {
    Status s = (*cluster)->Load(ctx.seed, kProductCount);
    if (!s.ok()) return s;
    return (*cluster)->Paths(o.category, o.top);
  }, &sr);
  KeepLogTail(sr.name, run, (*cluster)->log_path(), &report->files);
  (*cluster)->Stop();
  return sr;
}

SystemRun RunSystem(const ComputeLocalityOptions& o, const ScenarioContext& ctx, const ServerConfig& config,
                    int run, ScenarioReport* report) {
  SystemRun sr;
  sr.name = config.name;
  sr.not_run = NotInstalledLine(config.system);
  if (!sr.not_run.empty()) return sr;
  auto server = StartLocalityServer(config, ctx.interrupt);
  if (!server.ok()) {
    // "interrupted" when the signal cut the start short: not failed (FillVerdict)
    sr.failure = StartFailure(ctx, "compute-locality", fmt::format("run {}: {}", run, sr.name),
                              "server did not start: ", server.status());
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
  KeepLogTail(sr.name, run, (*server)->log_path(), &report->files);
  (*server)->Stop();
  return sr;
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
  ForEachRun(ctx, &report, [&](int run) { runs.push_back(RunOnce(o, ctx, run, &report)); });
  FillComputeLocalityReport(o, ctx, ref, runs, &report);
  return report;
}

}  // namespace memstand

// `memstand sweep`: the run's flags plus one knob swept over a list of values; a run
// per value against one server, a row per step, and the knee (docs/method.md rule 14).
#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include "cli/cli.h"
#include "cli/run_flags.h"
#include "cli/run_session.h"
#include "cli/subcommands.h"
#include "report/sweep_report.h"
#include "util/parse.h"

namespace memstand::cli {

namespace {

struct SweepFlags {
  std::string clients, pipeline, rate;
  std::string runs;  // `run`'s --runs, declared only to be refused with a reason
};

struct Axis {
  std::string knob;  // "clients", "pipeline" or "rate"
  std::vector<uint64_t> values;
};

Result<Axis> ParseAxis(const SweepFlags& f) {
  const std::pair<const char*, const std::string*> knobs[] = {
      {"clients", &f.clients}, {"pipeline", &f.pipeline}, {"rate", &f.rate}};
  Axis axis;
  int given = 0;
  for (const auto& [knob, text] : knobs) {
    if (text->empty()) continue;
    ++given;
    auto values = ParseIncreasingList(*text);
    std::string flag = std::string("--sweep-") + knob;
    if (!values.ok()) return Status::InvalidArgument(flag + ": " + values.status().message());
    axis = {knob, *values};
  }
  if (given != 1) {
    return Status::InvalidArgument(
        "give exactly one of --sweep-clients, --sweep-pipeline, --sweep-rate");
  }
  return axis;
}

// The limits of the run's own flags (run_flags.cc) hold for swept values too.
Status CheckAxis(const Axis& axis) {
  const uint64_t limit = axis.knob == "clients" ? 100000 : axis.knob == "pipeline" ? 65536 : 0;
  if (limit != 0 && axis.values.back() > limit) {
    return Status::InvalidArgument(fmt::format("--sweep-{}: {} is above the limit {}", axis.knob,
                                               axis.values.back(), limit));
  }
  return Status::OK();
}

// Outputs that describe one run: a sweep has no place for them (it used to accept
// --samples and --json-format memtier and write nothing, or an empty file).
Status CheckOneRunOutputs(const RunConfig& cfg) {
  if (!cfg.hgrm_path.empty()) {
    return Status::InvalidArgument("--hgrm: not available with sweep (the steps' "
                                   "distributions differ; --json has each step's)");
  }
  if (!cfg.samples_path.empty()) {
    return Status::InvalidArgument("--samples: not available with sweep (samples describe one "
                                   "run; use memstand run at the step's value)");
  }
  if (cfg.json_memtier) {
    return Status::InvalidArgument("--json-format memtier: not available with sweep (its "
                                   "--json is memstand.sweep, docs/json-format.md)");
  }
  return Status::OK();
}

LoadOptions AtStep(const LoadOptions& base, const Axis& axis, uint64_t x) {
  LoadOptions o = base;
  if (axis.knob == "clients") o.clients = static_cast<int>(x);
  if (axis.knob == "pipeline") o.pipeline = static_cast<int>(x);
  if (axis.knob == "rate") o.rate = static_cast<double>(x);
  return o;
}

void PrintIntro(const RunSession& session, const RunConfig& cfg, const Axis& axis) {
  const LoadOptions& o = cfg.load;
  std::string values;
  for (uint64_t v : axis.values) values += (values.empty() ? "" : ",") + std::to_string(v);
  fmt::print("memstand {} sweep over {}: {}\n", MEMSTAND_VERSION, axis.knob, values);
  if (cfg.quiet) return;
  fmt::print("    target {} — {}\n", o.target.Display(), session.server_note());
  fmt::print("    {}\n", session.platform().Describe());
  std::string length = o.requests > 0 ? fmt::format("{} requests", o.requests)
                                      : fmt::format("{:g} s", o.duration_s);
  fmt::print("    each step: {} thread(s) x {} clients x pipeline {}{}, {} after {:g} s warm-up\n",
             o.threads, o.clients, o.pipeline,
             o.rate > 0 ? fmt::format(", rate {:g}/s", o.rate) : "", length, o.warmup_s);
  fmt::print("    (the swept knob replaces its flag; client core: load threads' CPU s / "
             "measured s)\n");
}

SweepOutcome Sweep(RunSession& session, const RunConfig& cfg, const Axis& axis) {
  SweepOutcome out;
  out.knob = axis.knob;
  out.values = axis.values;
  PrintSweepHeader(stdout, axis.knob);
  for (size_t i = 0; i < axis.values.size() && !session.interrupted(); ++i) {
    uint64_t x = axis.values[i];
    std::string label = fmt::format("{}={} ({}/{})", axis.knob, x, i + 1, axis.values.size());
    auto run = session.Measure(AtStep(cfg.load, axis, x), label);
    out.steps.push_back(run.ok() ? StepOf(x, (*run)->report) : UnmeasuredStep(x, run.status().message()));
    PrintSweepRow(stdout, out.steps.back());
  }
  out.interrupted = session.interrupted();
  Conclude(&out);
  return out;
}

int SweepBody(const CLI::App& app, const RunFlags& flags, const SweepFlags& sweep) {
  if (app.count("--runs") > 0) {
    return Fail("sweep", Status::InvalidArgument(
                             "--runs: sweep takes no --runs (it makes one run per step); "
                             "repeat a configuration with memstand run --runs N"));
  }
  auto axis = ParseAxis(sweep);
  Status s = axis.ok() ? CheckAxis(*axis) : axis.status();
  if (!s.ok()) return Fail("sweep", s);
  auto cfg = BuildRunConfig(app, flags);
  if (!cfg.ok()) return Fail("sweep", cfg.status());
  if (cfg->load.start_at_unix_s > 0) {
    return Fail("sweep", Status::InvalidArgument("--start-at: starts one run; not for sweep"));
  }
  s = CheckOneRunOutputs(*cfg);
  if (!s.ok()) return Fail("sweep", s);
  auto session = RunSession::Open(&*cfg);
  if (!session.ok()) return Fail("sweep", session.status());
  PrintIntro(**session, *cfg, *axis);
  SweepOutcome out = Sweep(**session, *cfg, *axis);
  PrintSweepEnd(stdout, out);
  s = (*session)->FinishHdrLog();
  if (s.ok() && !cfg->json_path.empty()) s = (*session)->WriteJson(SweepJson(out));
  if (!s.ok()) return Fail("sweep", s);
  (*session)->LingerMetrics(*cfg);
  return out.exit_code;
}

}  // namespace

SubcommandBody SetupSweep(CLI::App* app) {
  auto flags = std::make_shared<RunFlags>();
  auto sweep = std::make_shared<SweepFlags>();
  AddRunFlags(app, flags.get());
  app->add_option("--sweep-clients", sweep->clients,
                  "Connections per thread at each step, increasing, e.g. 1,2,4,8");
  app->add_option("--sweep-pipeline", sweep->pipeline,
                  "Requests in flight per connection at each step, e.g. 1,4,16,64");
  app->add_option("--sweep-rate", sweep->rate,
                  "Open-loop requests/s in total at each step, e.g. 1000,5000");
  app->add_option("--runs", sweep->runs, "Not for sweep (one run per step): see run --runs")
      ->group("");  // hidden
  return [app, flags, sweep] { return SweepBody(*app, *flags, *sweep); };
}

}  // namespace memstand::cli

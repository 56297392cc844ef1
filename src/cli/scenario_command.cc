// `memstand scenario list | run NAME`: the experiments (docs/scenarios.md), one
// subcommand per row of the scenario registry (scenario/registry.h): the flags every
// scenario takes here, its own flags, run function and question from its row.
#include <cstdio>
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "cli/cli.h"
#include "cli/interrupt.h"
#include "cli/subcommands.h"
#include "core/clock.h"
#include "core/cpu_set.h"
#include "scenario/kit/cpu_placement.h"
#include "scenario/output.h"
#include "scenario/registry.h"
#include "util/output_file.h"
#include "util/redact.h"

namespace memstand::cli {

namespace {

// Flags every scenario takes.
struct CommonFlags {
  int runs = 1;
  uint64_t seed = 1;
  std::string json, evidence;
  bool quiet = false;
  std::string client_cpus = "auto", server_cpus = "auto";
};

void AddCommonFlags(CLI::App* app, CommonFlags* f) {
  app->add_option("--runs", f->runs, "Repeat the whole procedure N times; every figure becomes "
                                     "min / median / max with its N")->capture_default_str();
  app->add_option("--seed", f->seed, "Seed of the dataset and the values")
      ->capture_default_str()
      ->check(WholeNumberU64());
  app->add_option("--json", f->json, "Write the result as JSON (docs/scenarios.md)");
  app->add_option("--evidence", f->evidence, "Write the evidence folder: scenario.json, CSV tables, "
                                             "server configurations, log tails, README.txt");
  app->add_flag("-q,--quiet", f->quiet, "No progress lines on stderr");
  app->add_option("--client-cpus", f->client_cpus,
                  "CPU list (e.g. 1, 2-3, 0,2-3) memstand's load runs on, or none (not pinned); auto: the "
                  "last CPU not the servers', where there is more than one (docs/method.md)")
      ->capture_default_str();
  app->add_option("--server-cpus", f->server_cpus,
                  "CPU list every server runs on, or none (not pinned); auto: the CPUs not the client's, "
                  "where there is more than one")
      ->capture_default_str();
}

// --client-cpus and --server-cpus: the plan set for the kit (scenario/kit/cpu_placement.h)
// and this thread, the scenario's, pinned to the client's CPUs (the load threads it
// starts inherit them). InvalidArgument naming the flag.
Status PlaceScenario(const CommonFlags& f) {
  auto client = ParseCpuChoice(f.client_cpus, "--client-cpus");
  if (!client.ok()) return client.status();
  auto servers = ParseCpuChoice(f.server_cpus, "--server-cpus");
  if (!servers.ok()) return servers.status();
  auto usable = ThisThreadCpus();
  if (!usable.ok()) return usable.status();
  const CpuPlan plan = PlanCpus(*client, *servers, *usable);
  if (!plan.client.empty()) {
    Status s = PinThisThread(plan.client);
    if (!s.ok()) return Status::InvalidArgument(s.WithContext("--client-cpus").message());
  }
  SetScenarioCpuPlan(plan);
  return Status::OK();
}

// A --json inside the --evidence folder (through "..", "." or a symlink too) would be
// overwritten or mixed with the evidence, which is written after it: refused up front.
Status CheckJsonOutsideEvidence(const std::string& json, const std::string& evidence) {
  namespace fs = std::filesystem;
  if (json.empty() || evidence.empty()) return Status::OK();
  std::error_code ec;
  const fs::path folder = fs::weakly_canonical(fs::absolute(evidence, ec), ec);
  if (ec) return Status::OK();
  const fs::path file = fs::weakly_canonical(fs::absolute(json, ec), ec);
  if (ec) return Status::OK();
  auto f = file.begin();
  for (auto e = folder.begin(); e != folder.end(); ++e, ++f) {
    if (e->empty()) continue;  // a trailing "/"
    if (f == file.end() || *f != *e) return Status::OK();
  }
  return Status::InvalidArgument("--json '" + json + "' is inside the --evidence folder '" + evidence +
                                 "', which memstand writes after it (scenario.json, README.txt, tables); give "
                                 "--json a path outside it");
}

// Runs the scenario `def`, bound to its options as `run`, and writes what it produced.
// Returns the exit code.
int RunScenario(const CLI::App* app, const CommonFlags& f, const ScenarioDef& def, const ScenarioRun& run) {
  if (f.runs < 1 || f.runs > 1000) {
    fmt::print(stderr, "memstand: --runs must be 1..1000, got {}\n", f.runs);
    return kExitUsage;
  }
  for (const auto& [flag, path] : {std::pair{"--json", &f.json}, std::pair{"--evidence", &f.evidence}}) {
    if (app->count(flag) > 0 && path->empty()) {
      fmt::print(stderr, "memstand: {}: an empty path\n", flag);
      return kExitUsage;
    }
  }
  if (!f.evidence.empty()) {
    Status s = CheckJsonOutsideEvidence(f.json, f.evidence);
    if (s.ok()) s = CheckEvidenceDir(f.evidence);
    if (!s.ok()) {
      fmt::print(stderr, "memstand: {}\n", RedactSecrets(s.message()));
      return kExitUsage;
    }
  }
  std::unique_ptr<OutputFile> json;
  if (!f.json.empty()) {
    auto opened = OutputFile::Open("--json", f.json);
    if (!opened.ok()) {
      fmt::print(stderr, "memstand: {}\n", RedactSecrets(opened.status().message()));
      return kExitUsage;
    }
    json = std::move(*opened);
  }
  if (Status s = PlaceScenario(f); !s.ok()) {
    fmt::print(stderr, "memstand: {}\n", s.message());
    return kExitUsage;
  }
  InstallInterruptHandlers();
  ScenarioContext ctx;
  ctx.seed = f.seed;
  ctx.runs = f.runs;
  ctx.interrupt = InterruptFlag();
  ctx.progress = f.quiet ? nullptr : stderr;
  ScenarioRunInfo info;
  info.command_line = CommandLine();
  info.started_at = WallClockIso();
  info.platform = Platform::Detect();
  Result<ScenarioReport> report = run(ctx);
  info.cpus = CollectCpuReport();
  if (!report.ok()) {
    fmt::print(stderr, "memstand: {}\n", RedactSecrets(report.status().message()));
    return report.status().code() == Status::Code::kInvalidArgument ? kExitUsage : kExitFailed;
  }
  report->question = def.question;  // the one copy, the row's
  PrintScenarioReport(stdout, *report, info);
  std::fflush(stdout);
  int code = report->ExitCode();
  if (json != nullptr) {
    Status s = json->Write(ScenarioJson(*report, info).dump(2) + "\n");
    if (s.ok()) s = json->Commit();
    if (!s.ok()) {
      fmt::print(stderr, "memstand: {}\n", RedactSecrets(s.message()));
      code = kExitFailed;
    }
  }
  if (!f.evidence.empty()) {
    Status s = WriteEvidence(f.evidence, *report, info);
    if (!s.ok()) {
      fmt::print(stderr, "memstand: {}\n", s.message());  // it names --evidence and the path
      code = kExitFailed;
    }
  }
  return code;
}

// A row of the registry as a subcommand of `scenario run`.
struct ScenarioCommand {
  const ScenarioDef* def;
  CLI::App* app;
  std::shared_ptr<CommonFlags> common;
  ScenarioPrepare prepare;
};

}  // namespace

SubcommandBody SetupScenario(CLI::App* app) {
  app->require_subcommand(1);
  CLI::App* list = app->add_subcommand("list", "Each scenario, its question, and whether its servers are installed");
  CLI::App* run = app->add_subcommand("run", "Run one scenario: memstand scenario run NAME [flags]");
  // Not require_subcommand: its error would not name the word it did not know.
  auto other = std::make_shared<std::string>();
  run->add_option("scenario", *other, "The scenario to run (memstand scenario list)");
  auto commands = std::make_shared<std::vector<ScenarioCommand>>();
  for (const ScenarioDef& def : Scenarios()) {
    ScenarioCommand c{&def, run->add_subcommand(def.name, def.question), std::make_shared<CommonFlags>(), nullptr};
    c.common->runs = def.default_runs;
    AddCommonFlags(c.app, c.common.get());
    c.prepare = def.setup(c.app);
    commands->push_back(std::move(c));
  }
  return [list, commands, other]() -> int {
    if (list->parsed()) {
      fmt::print("{}", DescribeScenarios());
      return kExitOk;
    }
    for (const ScenarioCommand& c : *commands) {
      if (!c.app->parsed()) continue;
      Result<ScenarioRun> bound = c.prepare();
      if (!bound.ok()) {
        fmt::print(stderr, "memstand: {}\n", bound.status().message());  // redacted by the scenario
        return kExitUsage;
      }
      return RunScenario(c.app, *c.common, *c.def, *bound);
    }
    std::string known;
    for (const ScenarioDef& def : Scenarios()) known += (known.empty() ? "" : ", ") + std::string(def.name);
    const std::string got = other->empty() ? "none given" : "unknown scenario '" + Abbreviate(*other) + "'";
    fmt::print(stderr, "memstand scenario run: {}; known: {}\n", got, known);
    return kExitUsage;
  };
}

}  // namespace memstand::cli

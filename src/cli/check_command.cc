// `memstand check FILE [--target URL] [--json OUT] [--checks LIST] [--time-limit DUR]`:
// a history's checks (history/, docs/history.md), through load/history_checks.h (the
// final read of every written key for lost-writes, and the checks of the records).
#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/cli.h"
#include "cli/subcommands.h"
#include "history/check_report.h"
#include "history/history_reader.h"
#include "load/history_checks.h"
#include "load/target.h"
#include "util/output_file.h"
#include "util/parse.h"
#include "util/terminal_text.h"

namespace memstand::cli {
namespace {

using history::CheckResult;
using history::History;

// docs/exit-codes.md: the system broke a property the history was checked for.
constexpr int kExitViolated = 4;

struct CheckFlags {
  std::string file;
  std::string target;
  std::string json;
  std::string checks = "lost-writes,linearizable,monotonic-reads,read-your-writes,revisions";
  std::string time_limit = "60s";
};

struct CheckPlan {
  std::set<std::string> checks;
  std::unique_ptr<RedisTarget> target;  // null: none given
  int64_t time_limit_ns = 0;
};

// The flags, before the file is read. InvalidArgument saying which flag.
Result<CheckPlan> PlanChecks(const CheckFlags& f) {
  CheckPlan plan;
  auto names = ParseWordList(f.checks, "--checks",
                             {"lost-writes", "linearizable", "monotonic-reads", "read-your-writes", "revisions"});
  if (!names.ok()) return names.status();
  plan.checks.insert(names->begin(), names->end());
  auto seconds = ParseDurationSeconds(f.time_limit);
  if (!seconds.ok()) return seconds.status().WithContext("--time-limit");
  if (*seconds <= 0 || *seconds > 86400) {
    return Status::InvalidArgument("--time-limit: '" + f.time_limit + "' is not within (0, 24h]");
  }
  plan.time_limit_ns = static_cast<int64_t>(*seconds * 1e9);
  if (!f.target.empty()) {
    auto t = ParseTargetUrl(f.target);
    if (!t.ok()) return t.status().WithContext("--target");
    if (t->sentinel()) {
      return Status::InvalidArgument("--target: " + t->Display() +
                                     " is a Sentinel target; check reads the keys back from one node: give the "
                                     "primary's redis://host:port");
    }
    plan.target = std::make_unique<RedisTarget>(*t);
  } else if (plan.checks.count("lost-writes") > 0) {
    return Status::InvalidArgument(
        "lost-writes reads every written key from the target after the run: give --target URL, or leave "
        "lost-writes out of --checks");
  }
  return plan;
}

// The history's target kind against --target's scheme.
Status CheckSameKind(const History& h, const RedisTarget& t, const std::string& file) {
  const std::string kind = history::TargetKindName(h.header.target_kind);
  if (kind == t.scheme) return Status::OK();
  return Status::InvalidArgument(fmt::format("{} was written against {} ({}); --target's kind is {}", file,
                                             h.header.target, kind, t.scheme));
}

std::string Heading(const History& h, const std::string& file) {
  std::set<uint32_t> clients;
  std::set<uint64_t> keys;
  for (const history::Record& r : h.records) {
    clients.insert(r.client);
    keys.insert(r.key);
  }
  // The nemesis's events are counted, not checked: the checks judge the operations.
  return fmt::format("{}: {} operation(s) of {} client(s) on {} key(s), {} nemesis event(s); target {} ({}), "
                     "written by {}\n\n",
                     file, h.records.size(), clients.size(), keys.size(), h.events.size(), h.header.target,
                     history::TargetKindName(h.header.target_kind), h.header.writer);
}

int ExitOf(history::Verdict v) {
  switch (v) {
    case history::Verdict::kPass:
    case history::Verdict::kNotApplicable: return kExitOk;
    case history::Verdict::kViolated: return kExitViolated;
    case history::Verdict::kGaveUp:
    case history::Verdict::kCouldNotRun: return kExitFailed;
  }
  return kExitFailed;
}

int CheckBody(const CLI::App& app, const CheckFlags& f) {
  Status s = RefuseEmptyPaths(app, {{"--json", &f.json}});
  if (s.ok()) s = CheckOutputsSpareInputs({{"--json", f.json}}, {f.file});
  auto plan = s.ok() ? PlanChecks(f) : Result<CheckPlan>(s);
  if (!plan.ok()) return FailWith("check", plan.status().message(), kExitUsage);
  std::unique_ptr<OutputFile> json;
  if (!f.json.empty()) {
    auto opened = OutputFile::Open("--json", f.json);
    if (!opened.ok()) return FailWith("check", opened.status().message(), kExitUsage);
    json = std::move(*opened);
  }
  auto h = history::ReadHistoryFile(f.file);
  if (!h.ok()) return FailWith("check", h.status().message(), kExitUsage);
  if (plan->target != nullptr) {
    if (Status kind = CheckSameKind(*h, *plan->target, f.file); !kind.ok()) {
      return FailWith("check", kind.message(), kExitUsage);
    }
  }
  const std::vector<CheckResult> results = RunHistoryChecks(*h, plan->checks, plan->target.get(), plan->time_limit_ns);
  const std::string text = Heading(*h, f.file) + history::CheckReportText(*h, results);
  fmt::print("{}", TerminalSafe(text));
  std::fflush(stdout);
  if (json != nullptr) {
    const std::string doc = history::CheckReportJson(*h, results)
                                .dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
    s = json->Write(doc + "\n");
    if (s.ok()) s = json->Commit();
    if (!s.ok()) return FailWith("check", s.message(), kExitFailed);
  }
  return ExitOf(history::OverallVerdict(results));
}

}  // namespace

SubcommandBody SetupCheck(CLI::App* app) {
  auto f = std::make_shared<CheckFlags>();
  app->add_option("file", f->file, "The history file (docs/history.md)")->required();
  app->add_option("--target", f->target,
                  "The system the history was written against, read once per written key after the run "
                  "(lost-writes)");
  app->add_option("--json", f->json, "Write the verdicts and their evidence (schema memstand.check)");
  app->add_option("--checks", f->checks,
                  "Which checks, comma-separated: lost-writes, linearizable, monotonic-reads, read-your-writes, "
                  "revisions");
  app->add_option("--time-limit", f->time_limit,
                  "How long the linearizability search may take over all keys; keys not decided by then are "
                  "given up on (exit 1)");
  return [app, f]() { return CheckBody(*app, *f); };
}

}  // namespace memstand::cli

// What every scenario shares: the context it runs in, the invariants it checks, and
// the report it hands to the writers (text blocks, JSON, evidence folder). A scenario
// is a function: options in, ScenarioReport out (docs/scenarios.md).
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/scenario_keys.h"  // the common JSON keys (scenario_json::)
#include "report/validity.h"
#include "util/status.h"

namespace CLI {
class App;
}

namespace memstand {

/// Exit codes of `memstand scenario run` (docs/exit-codes.md).
inline constexpr int kScenarioExitOk = 0;
inline constexpr int kScenarioExitFailed = 1;   // a run failed or an invariant broke
inline constexpr int kScenarioExitPartial = 3;  // a configuration could not run at all
inline constexpr int kScenarioExitFinding = 4;  // the system broke its own contract (anomalies)
inline constexpr int kScenarioExitInterrupted = 130;

struct ScenarioContext {
  uint64_t seed = 1;  // the dataset's and the values' seed
  int runs = 1;       // the whole procedure this many times (--runs)
  /// Polled between steps; true: stop, keep what was measured, mark it partial.
  const std::atomic<bool>* interrupt = nullptr;
  /// One line per step ("working-set: redis-allkeys-lru run 1: portion 3 of 20").
  /// Null: quiet.
  std::FILE* progress = stderr;
  bool interrupted() const { return interrupt != nullptr && interrupt->load(); }
  /// "<scenario>: <line>" on `progress`, when set.
  void Progress(const char* scenario, const std::string& line) const;
};

/// What a scenario records for a server start that failed: "interrupted" when the signal
/// cut it short (a start is not a failure then; the progress says "SCENARIO: LABEL: the
/// start was interrupted: WHY"), else `failed` followed by the status's message.
std::string StartFailure(const ScenarioContext& ctx, const char* scenario, const std::string& label,
                         const std::string& failed, const Status& status);

/// A planned duration for a progress line: whole seconds from 10 s up, else two
/// significant digits ("0.4", "2.5"), so a short plan does not read "0 s".
std::string ApproxSeconds(double seconds);

/// One equation that must hold. A figure is printed only after its invariant was
/// checked; a broken one fails the run (docs/method.md rule 4).
struct Invariant {
  std::string name;  // "present == successful - evicted"
  std::string lhs;   // "present"
  int64_t lhs_value = 0;
  std::string rhs;   // "successful - evicted"
  int64_t rhs_value = 0;
  /// Most invariants are equations; a few are bounds (bytes written >= bytes sent).
  bool at_least = false;  // true: lhs >= rhs must hold
  bool ok() const { return at_least ? lhs_value >= rhs_value : lhs_value == rhs_value; }
  /// "present == successful - evicted: 1200 == 1500 - 300 ok" with both sides' values.
  std::string Describe() const;
  nlohmann::json ToJson() const;
};

/// lhs == rhs, named "<lhs> == <rhs>".
Invariant MakeInvariant(std::string lhs, int64_t lhs_value, std::string rhs, int64_t rhs_value);
/// lhs >= rhs, named "<lhs> >= <rhs>".
Invariant MakeAtLeastInvariant(std::string lhs, int64_t lhs_value, std::string rhs, int64_t rhs_value);

/// A table of the evidence folder (one CSV each) and of the text report.
struct Table {
  std::string name;  // file name without .csv, e.g. "configurations"
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
};

/// A portion interval (low; high]: the event happened after write `low` and by write
/// `high` (docs/method.md rule 7: the resolution of a detection).
struct Interval {
  int64_t low = 0;
  int64_t high = 0;
  std::string Describe() const;  // "(30000; 40000]"
};

/// The portion interval in which write `index` (1-based) lies, for portions of
/// `portion` writes: (floor((index - 1) / portion) * portion; ... + portion], the high
/// end capped at `total`. REQUIRES: index >= 1, portion >= 1.
Interval PortionOf(int64_t index, int64_t portion, int64_t total);

/// kFinding: every figure stands, and the system broke a contract it promises (lost
/// acknowledged writes, a non-linearizable read): ScenarioReport::anomalies says how.
enum class ScenarioVerdict { kOk, kPartial, kFailed, kInterrupted, kFinding };

/// One load run of a scenario (a cell, a step) and the verdict on its statistics
/// (report/validity.h: AssessRun on the engine's options and result).
struct JudgedRun {
  std::string label;  // "run 1 aof-everysec SET 100 B random"
  Validity validity;
};

/// A contract the system broke, with its evidence: how many times, and the first
/// examples (keys, operations, times), one sentence each.
struct Anomaly {
  std::string configuration;  // "redis-cluster kill run 1"
  std::string kind;           // "lost", "unexpected", "not linearizable", ...
  uint64_t count = 0;         // of what the kind names: keys (failover), tuples (replication-cost)
  std::vector<std::string> examples;
  nlohmann::json ToJson() const;
};

/// What a scenario run produced, for the writers (scenario/output.h).
struct ScenarioReport {
  std::string scenario;
  /// Its question: the one copy in its registry row (scenario/registry.h), set by the
  /// caller that ran it from the row.
  std::string question;
  int runs_requested = 1;
  int runs_made = 0;
  /// Numbered text blocks after the common ones ([1] what ran, [2] platform): title and
  /// body (already indented lines).
  std::vector<std::pair<std::string, std::string>> blocks;
  /// The scenario's own JSON fields (docs/scenarios.md), merged into the document.
  nlohmann::json json = nlohmann::json::object();
  std::vector<Table> tables;
  /// Evidence files by relative path: server configurations, log tails, raw samples.
  std::map<std::string, std::string> files;
  ScenarioVerdict verdict = ScenarioVerdict::kOk;
  std::vector<std::string> verdict_lines;  // why, one reason a line
  /// The configurations as run, one line each, for block [1].
  std::vector<std::string> configuration_lines;
  /// What this result does not show (a block of its own).
  std::vector<std::string> limits;
  std::vector<std::string> procedure;

  /// The system's broken contracts (kFinding), in the text's Findings block and the
  /// JSON's `anomalies`.
  std::vector<Anomaly> anomalies;

  /// The load runs whose throughput and latency the scenario prints, each judged: a
  /// block of its own and the JSON's `validity`. Informative: a suspect run does not
  /// change the verdict (its figures print with the reasons beside them).
  std::vector<JudgedRun> judged;

  /// Worsens the verdict: kFailed > kInterrupted > kFinding > kPartial > kOk. A failed
  /// run outranks a finding: a figure that cannot be trusted cannot accuse the system.
  void Mark(ScenarioVerdict v, std::string why);
  int ExitCode() const;
};

/// "ok", "partial", "failed", "interrupted".
const char* VerdictName(ScenarioVerdict v);

/// A scenario bound to its options: Run<Name>(options, ctx), ctx.runs times.
using ScenarioRun = std::function<Result<ScenarioReport>(const ScenarioContext& ctx)>;
/// What a scenario's flags become after the command line is parsed: the options checked
/// and bound to its run function, or InvalidArgument whose message is printed as it is
/// (already naming the flag, secrets redacted: exit 2).
using ScenarioPrepare = std::function<Result<ScenarioRun>()>;
/// Declares a scenario's own flags on `app`, its sub-app of `memstand scenario run` (the
/// flags every scenario takes are the caller's), and returns what turns them into its run
/// after the parse. Each scenario's is in its folder (flags.cc).
using ScenarioSetup = ScenarioPrepare (*)(CLI::App* app);

}  // namespace memstand

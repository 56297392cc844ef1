// What working-set measured, between the procedure (working_set.cc) and its report: the
// results and invariants blocks, the JSON (json.h), the evidence tables and the verdict.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "scenario/kit/scenario_server.h"
#include "scenario/scenario.h"
#include "scenario/working_set/working_set.h"

namespace memstand {

/// A portion's counters are read once they stop moving, waiting at most this long.
inline constexpr int kWorkingSetPortionSettleTimeoutMs = 1000;

/// One portion's state after its counters settled.
struct WorkingSetPortion {
  int64_t written = 0;  // writes attempted so far
  int64_t successful = 0, rejected = 0;
  double seconds = 0;   // the portion's load: from its first send to its last reply
  ServerCounters counters;
};

/// One configuration in one run.
struct WorkingSetConfigRun {
  bool ran = false;
  std::string failure;  // why the row ended early ("" when it completed)
  int64_t attempted = 0, successful = 0, rejected = 0;
  ServerCounters final;
  std::string first_error;
  int64_t first_rejected_write = 0;  // 0: none
  std::optional<Interval> eviction_in, rejection_in;
  int64_t exact_eviction = 0;        // 0: not found (or not looked for)
  std::string exact_note;
  std::vector<WorkingSetPortion> portions;
  std::vector<Invariant> invariants;
  int64_t settle_ms = 0;
  bool final_steady = true;    // the final counters stopped moving within the final settle bound
  int unsteady_portions = 0;   // portions whose counters still moved after kWorkingSetPortionSettleTimeoutMs
  std::string outcome;  // evicts / rejects / evicts and rejects / keeps all
  std::optional<WorkingSetReads> reads;  // --reads: after the load, before the server stopped
  bool invariants_ok() const {
    return std::all_of(invariants.begin(), invariants.end(), [](const Invariant& i) { return i.ok(); });
  }
};

/// One configuration over the runs.
struct WorkingSetConfiguration {
  ServerConfig config;  // its name with -w<N> for a writers setting (WorkingSetOptions::writers)
  int writers = 1;
  std::string not_run;  // "not run: tarantool is not installed (apt-get install tarantool)"
  std::string description, config_text;
  std::vector<WorkingSetConfigRun> runs;
};

/// The reads of one run (reads_report.cc): their JSON (configurations[].runs[].reads), the
/// text block of every configuration's reads, and their CSV table ("reads").
nlohmann::json WorkingSetReadsJson(const WorkingSetReads& r);
std::string WorkingSetReadsBlock(const std::vector<WorkingSetConfiguration>& states, int runs);
Table WorkingSetReadsTable(const std::vector<WorkingSetConfiguration>& states);

/// Fills the report's configuration lines, procedure, blocks, limits, JSON, tables and
/// verdict from what the runs measured. REQUIRES: report->runs_requested set.
void FillWorkingSetReport(const WorkingSetOptions& o, uint64_t seed, const std::vector<WorkingSetConfiguration>& states,
                          bool interrupted, ScenarioReport* report);

}  // namespace memstand

// The report of `memstand sweep`: a row per step (throughput, p50, p99, client CPU) and
// the knee by FindKnee's rule (docs/method.md rule 14), as text and as JSON
// (docs/json-format.md, "memstand sweep").
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/run_report.h"

namespace memstand {

/// One step of a sweep: the knob's value and what the run at it measured.
struct SweepStep {
  uint64_t x = 0;
  bool measured = false;       // false: the run measured nothing (see verdict)
  int exit_code = 0;
  std::string verdict;         // the run's verdict, e.g. "OK", "FAILED: ..."
  double ops_per_sec = 0;      // all commands
  double p50_us = 0;
  double p99_us = 0;
  double client_cpu_us_per_request = 0;
  double client_core_share = 0;  // load threads' CPU s / measured s (1.0 = one core)
  std::vector<std::string> warnings;
  nlohmann::ordered_json run;  // the run's full JSON (memstand.run); null if not measured
};

SweepStep StepOf(uint64_t x, const RunReport& report);
SweepStep UnmeasuredStep(uint64_t x, const std::string& failure);

/// The knee's minimum relative throughput gain (FindKnee's min_gain): a step adding
/// less than 5% throughput counts as flat.
inline constexpr double kKneeMinGain = 0.05;

struct SweepOutcome {
  std::string knob;              // "clients", "pipeline" or "rate"
  std::vector<uint64_t> values;  // as asked
  std::vector<SweepStep> steps;  // those made (fewer after an interrupt)
  bool interrupted = false;
  std::optional<size_t> knee;    // index into steps
  int exit_code = 0;
  std::string verdict;
};

/// Finds the knee over the steps whose run ended OK (exit 0), by FindKnee with
/// kKneeMinGain on (x, ops/s, p99); fills knee, exit code (1 if a step failed (exit 1;
/// a step a signal stopped, exit 130, is not a failure), else
/// 130 if interrupted, else 0) and verdict.
void Conclude(SweepOutcome* outcome);

void PrintSweepHeader(std::FILE* out, const std::string& knob);
void PrintSweepRow(std::FILE* out, const SweepStep& step);
/// The knee stated with its rule and step, or "no knee within the range" and why;
/// then warnings by step and the verdict.
void PrintSweepEnd(std::FILE* out, const SweepOutcome& outcome);
/// The knee sentence alone (the text report's and the JSON's "text").
std::string KneeText(const SweepOutcome& outcome);

nlohmann::ordered_json SweepJson(const SweepOutcome& outcome);

}  // namespace memstand

// `memstand merge`: the run JSONs of the shards of one fleet (--shard K/N, issue #18)
// made into one result, exactly: histograms added bucket by bucket, counts, errors by
// kind, bytes and CPU summed, per-second series aligned by wall-clock second. The
// merged result is a memstand.run document (docs/json-format.md) with a "merge"
// object; docs/scale-out.md describes the checks.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "load/engine.h"
#include "load/load_options.h"
#include "report/merge_check.h"
#include "report/run_report.h"
#include "util/status.h"

namespace memstand {

/// One shard's own figures, for the per-shard lines (a slow or saturated shard shows).
struct ShardFigures {
  std::string path;
  std::string hostname;
  int64_t index = -1;  // -1: the input was not sharded
  uint64_t ops = 0;
  double ops_per_s = 0;
  double p99_us = 0;
  double client_cpu_s = 0;
  double max_core_share = 0;  // its busiest load thread: CPU s / measured s
  double late_s = 0;          // --start-at: how late its measured start was
  std::string verdict;
};

/// The fleet check (docs/scale-out.md): the server's counter deltas over the whole
/// window (recorded by the shard run with --fleet-check) against the sum of what every
/// shard sent.
struct FleetCheck {
  bool available = false;
  std::string reason;  // why not, when not available
  std::vector<CrossCheckRow> rows;
  bool mismatch = false;
  bool enforced = false;  // --exclusive on the recording shard: a mismatch fails
};

struct MergedRun {
  LoadOptions options;  // the fleet's: whole key range, seed, rate, requests
  RunResult result;
  RunReport report;
  std::vector<ShardFigures> shards;
  FleetCheck fleet;
  std::vector<std::string> inputs;
  MergedRun() = default;
  MergedRun(const MergedRun&) = delete;
  MergedRun& operator=(const MergedRun&) = delete;
};

/// Reads and merges. InvalidArgument (exit 2) naming the file and the field when the
/// inputs cannot be one fleet's: another schema or version, histogram settings that
/// differ, workloads that differ beyond the shard fields, shard counts that differ or
/// a shard index given twice, a file without histograms.
Result<std::unique_ptr<MergedRun>> MergeRuns(const std::vector<MergeInput>& inputs);

/// The merged memstand.run document: RunReportJson's fields plus "merge"
/// ({inputs, shards, fleet_check, notes}).
nlohmann::ordered_json MergedJson(const MergedRun& m);

/// The blocks of `memstand run` for the fleet, then a line per shard.
void PrintMergeReport(std::FILE* out, const MergedRun& m);

/// The merged per-second histograms as an HdrHistogram interval log, in the format of
/// `memstand run --hdr-log` (WriteCommandsInterval): StartTime the series' second 0
/// (with --start-at the fleet's whole second), one interval per wall-clock second of the
/// merged series (the first and last with the lengths the measured window gave them),
/// an untagged line of all commands and a tagged line per command. InvalidArgument
/// naming the command and second when an input's point has requests but no histogram.
Result<std::string> MergedHdrLog(const MergedRun& m);

}  // namespace memstand

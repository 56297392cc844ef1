// `memstand merge`'s refusals: inputs that are not the shards of one fleet, or not
// documents it can read. Needs nlohmann and util only (the fuzz target links it alone).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/status.h"

namespace memstand {

/// One input file, parsed.
struct MergeInput {
  std::string path;
  nlohmann::ordered_json doc;
};

}  // namespace memstand

namespace memstand::merge_internal {

/// The memstand.run version merge reads: run_report.h's kRunJsonVersion (merge.cc
/// asserts they are equal).
inline constexpr int kMergeableVersion = 1;

/// OK when `inputs` can merge exactly: one schema and version (this memstand's),
/// histograms present with equal settings, the same workload apart from the fields a
/// shard takes (key range, seed, rate, requests), one shard count and no index twice.
/// InvalidArgument naming the file and what differs.
Status CheckMergeable(const std::vector<MergeInput>& inputs);

/// The measured start of a run on the wall clock (start_at.measured_start_unix_s, else
/// series_start_unix_s). REQUIRES: CheckMergeable passed.
double MeasuredStart(const nlohmann::ordered_json& doc);

/// The options object with the fields a shard changes removed.
nlohmann::ordered_json WorkloadOf(const nlohmann::ordered_json& doc);

}  // namespace memstand::merge_internal

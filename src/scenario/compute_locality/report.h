// compute-locality's report: the per-system block (the path table, the bytes of both
// counts, the ratios and the identity, the timings' modes), the invariant, its JSON
// (json.h), the evidence tables, the ranges over runs and the verdict. Reads the
// measurements (run.h); measures nothing.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scenario/compute_locality/compute_locality.h"
#include "scenario/compute_locality/run.h"
#include "scenario/scenario.h"

namespace memstand {

/// The block of one system in one run; `tag` prefixes its title ("run 2: ").
std::string SystemBlock(const SystemRun& sr, const std::string& tag);
nlohmann::json SystemJson(const SystemRun& sr, int run);
/// The evidence tables: paths, samples (every timed call), invariants.
void FillTables(const std::vector<std::vector<SystemRun>>& runs, const std::vector<Invariant>& invariants,
                ScenarioReport* report);
/// Time ratios against naive over the runs, with N.
std::string RangesText(const std::vector<std::vector<SystemRun>>& runs);
/// "1, 2, 3"
std::string IdsText(const std::vector<uint32_t>& ids);

/// The report of what the runs measured (run.h): procedure, blocks, invariants, JSON
/// (json.h), tables and verdict; `ref` the top computed from the dataset. The last step
/// of RunComputeLocality, and what its contract test feeds with fabricated runs.
void FillComputeLocalityReport(const ComputeLocalityOptions& options, const ScenarioContext& ctx,
                               const std::vector<uint32_t>& ref, const std::vector<std::vector<SystemRun>>& runs,
                               ScenarioReport* report);

}  // namespace memstand

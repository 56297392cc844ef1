// compute-locality's report: the per-system block (the path table, the bytes of both
// counts, the ratios and the identity, the timings' modes), its JSON, the evidence
// tables and the ranges over runs. Reads the measurements (run.h); measures
// nothing.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

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

}  // namespace memstand

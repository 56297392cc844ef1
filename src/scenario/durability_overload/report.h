// durability-overload's report: the matrix of cells (ranges over runs, with the runs
// that had errors counted: docs/method.md rule 16), the price of durability per size, the
// storage probe, the legacy-client block, the cluster's state, the invariants, and the
// JSON and evidence tables (docs/scenarios/durability-overload.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "scenario/durability_overload/cell.h"
#include "scenario/durability_overload/durability_overload.h"
#include "scenario/scenario.h"
#include "stand/storage_probe.h"

namespace memstand {

/// Everything the procedure measured, for the report.
struct DurabilityMeasured {
  std::vector<std::string> modes;  // "none", "aof-everysec", ...
  std::vector<CellResult> cells;   // in the order they ran
  std::optional<StorageProbeResult> probe;
  std::string probe_error;
  std::optional<CellResult> legacy;  // the legacy client's cell
  int legacy_slots = 0;              // slots of the node it loaded
  std::vector<std::string> mode_failures;  // "run 2 aof-everysec: master-2 (pid N) died; 7 cells not run"
};

/// Whether the probe's two rates differ enough to say the storage compresses or
/// deduplicates: repeated bytes written more than 1.5x as fast as random ones.
bool StorageCompresses(const StorageProbeResult& probe);

/// Fills blocks, tables, JSON and the verdict.
void FillDurabilityReport(const DurabilityOverloadOptions& options, const DurabilityMeasured& m,
                          ScenarioReport* report);

}  // namespace memstand

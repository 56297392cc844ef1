// `memstand merge`'s refusals: inputs that are not the shards of one fleet.
#pragma once

#include <vector>

#include "report/merge.h"
#include "util/status.h"

namespace memstand::merge_internal {

/// OK when `inputs` can merge exactly: one schema and version (this memstand's),
/// histograms present with equal settings, the same workload apart from the fields a
/// shard takes (key range, seed, rate, requests), one shard count and no index twice.
/// InvalidArgument naming the file and what differs.
Status CheckMergeable(const std::vector<MergeInput>& inputs);

/// The options object with the fields a shard changes removed.
nlohmann::ordered_json WorkloadOf(const nlohmann::ordered_json& doc);

}  // namespace memstand::merge_internal

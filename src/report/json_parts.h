// Pieces every memstand JSON document shares (docs/json-format.md): the platform facts
// and a latency histogram's summary, from one serializer so the documents agree.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "report/platform.h"
#include "stats/hdr_histogram.h"

namespace memstand {

/// {"kernel", "arch", "hostname", "cpu_model", "cpus", "hypervisor", "memory_bytes",
///  "clock_resolution_ns"}.
nlohmann::ordered_json PlatformJson(const Platform& p);

/// {"count", "min_us", "mean_us", "max_us", "percentiles_us": {"50": .., "99.9": ..}}
/// from a histogram in ns; percentiles keyed as {:g} writes them.
nlohmann::ordered_json LatencyJson(const HdrHistogram& h, const std::vector<double>& percentiles);

}  // namespace memstand

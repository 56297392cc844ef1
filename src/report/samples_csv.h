// `memstand run --samples FILE`: the raw samples as CSV (docs/samples.md).
#pragma once

#include <string>
#include <vector>

#include "stats/reservoir.h"
#include "util/output_file.h"
#include "util/status.h"

namespace memstand {

/// The header line, without its newline.
inline constexpr const char* kSamplesCsvHeader = "time_ns,command,latency_ns";

/// Writes the header and one line per sample: time since the measured start (ns),
/// the command's label (labels[sample.command], quoted as RFC 4180 if it holds a comma,
/// a quote or a line break), latency (ns), to `out` (the caller commits it). IoError
/// naming the flag, the path and errno if writing fails.
/// REQUIRES: every sample's command < labels.size().
Status WriteSamplesCsv(OutputFile* out, const std::vector<Sample>& samples,
                       const std::vector<std::string>& labels);

}  // namespace memstand

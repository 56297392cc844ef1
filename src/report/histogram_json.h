// A latency histogram in the run JSON, whole: its settings, exact extremes and every
// bucket (base64 "V2 compressed", as --hdr-log and memtier's JSON write it), so that
// `memstand merge` adds the shards' histograms bucket by bucket (docs/json-format.md).
#pragma once

#include <nlohmann/json.hpp>

#include "stats/encoded_histogram.h"
#include "stats/hdr_histogram.h"
#include "util/status.h"

namespace memstand {

/// {"encoding", "unit", "lowest_discernible", "highest_trackable",
///  "significant_figures", "count", "min", "max", "saturated", "data"}.
nlohmann::ordered_json HistogramJson(const HdrHistogram& h);

/// The settings part alone, for comparing runs: equal settings merge exactly.
nlohmann::ordered_json HistogramSettingsJson(const HdrHistogram& h);

/// Reads HistogramJson's object back: every bucket count, min and max exact.
/// InvalidArgument naming the fault (missing field, other encoding, bad data, or a
/// count that differs from the decoded one).
Result<HdrHistogram> HistogramFromJson(const nlohmann::ordered_json& j);

/// A second of a run's series: {"count", "min", "max", "data"} (ns; "data" base64 "V2
/// compressed", whose header holds the settings, equal to the command's histogram's).
nlohmann::ordered_json IntervalHistogramJson(const EncodedHistogram& e);

/// Reads IntervalHistogramJson's object back (not decoded: DecodeHistogram does that).
/// InvalidArgument naming the field that is missing or of another type.
Result<EncodedHistogram> IntervalHistogramFromJson(const nlohmann::ordered_json& j);

}  // namespace memstand

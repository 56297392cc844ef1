// A histogram kept as text: its exact count and extremes beside the reference "V2
// compressed" base64 of its buckets (stats/hdr_log.h), whose header names its settings.
// The per-second series of a run carry one per command and second, a few hundred bytes
// where a live histogram would hold a 270 KB array, so that `memstand merge` adds the
// shards' seconds exactly (issue #18).
#pragma once

#include <cstdint>
#include <string>

#include "stats/hdr_histogram.h"
#include "util/status.h"

namespace memstand {

struct EncodedHistogram {
  int64_t count = 0;
  int64_t min = 0;  // exact recorded extremes (0 when empty): the encoding has buckets only
  int64_t max = 0;
  std::string v2_base64;  // empty: no histogram was kept
};

/// Encodes h (count, min, max and EncodeCompressedV2Base64).
EncodedHistogram EncodeHistogram(const HdrHistogram& h);

/// Decodes e into a histogram of the settings its header names; every bucket, min and
/// max as encoded. InvalidArgument naming the fault (no data, bad data, a count that
/// differs from the decoded one).
Result<HdrHistogram> DecodeHistogram(const EncodedHistogram& e);

}  // namespace memstand

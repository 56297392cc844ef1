// Reading back what EncodeCompressedV2Base64 (stats/hdr_log.h) writes, so that the
// histograms of several runs (the shards of a fleet, issue #18) add bucket by bucket.
#pragma once

#include <cstdint>
#include <string_view>

#include "stats/hdr_histogram.h"
#include "util/status.h"

namespace memstand {

/// The V2 encoding's cookies: HdrHistogram's bases (0x1c849303, 0x1c849304) with 0x10 set
/// in the word-size nibble, its marker for the ZigZag LEB128 count encoding.
inline constexpr uint32_t kHdrV2EncodingCookie = 0x1c849313;
inline constexpr uint32_t kHdrV2CompressedEncodingCookie = 0x1c849314;

/// Decodes a base64 "V2 compressed" histogram (cookie 0x1c849314 around a zlib stream
/// of the V2 encoding, normalizing offset 0) into a histogram of the settings its
/// header names (lowest discernible, highest trackable, significant figures).
/// The encoding carries bucket counts, not the exact extremes: `min` and `max` are the
/// exact recorded values (as the JSON gives them), and the counts of the first and
/// last non-empty buckets are recorded at them, so that min(), max(), mean() and every
/// ValueAtPercentile equal the encoded histogram's. An empty histogram ignores them.
/// InvalidArgument naming the fault: bad base64, cookie, zlib stream, settings, counts
/// past the histogram's range, or min/max outside the first/last non-empty bucket.
Result<HdrHistogram> DecodeCompressedV2Base64(std::string_view b64, int64_t min, int64_t max);

}  // namespace memstand

// Exporters of HdrHistogram data in the reference formats (Gil Tene's HdrHistogram):
// the interval log (.hlog, format 1.3: one base64 "V2 compressed" histogram per line,
// read by HistogramLogAnalyzer and the HdrHistogram ports) and the percentile
// distribution text (.hgrm, what outputPercentileDistribution prints and hdr-plot
// reads). Grammar and field meanings: the reference HistogramLogWriter and
// AbstractHistogram.encodeIntoCompressedByteBuffer.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "stats/hdr_histogram.h"
#include "util/status.h"

namespace memstand {

/// Divides nanoseconds into milliseconds: the unit HistogramLogAnalyzer expects in
/// the Interval_Max column and the usual one for .hgrm files of latencies.
inline constexpr double kNanosPerMilli = 1e6;

/// The reference "V2 compressed" encoding of `h`, base64 (RFC 4648, padded): cookie
/// 0x1c849314, length, zlib stream of the V2 encoding (cookie 0x1c849313, 40-byte
/// header, counts as ZigZag LEB128-64b9B, zero runs as negative counts). Counts are
/// written up to the bucket of max(). Decodable by every HdrHistogram port.
/// Throws std::bad_alloc only if zlib runs out of memory (as any allocation would).
std::string EncodeCompressedV2Base64(const HdrHistogram& h);

/// Writes an HdrHistogram interval log. Not thread-safe: one owner.
class HdrLogWriter {
 public:
  /// Appends to *out. REQUIRES: out outlives the writer; max_value_unit_ratio > 0.
  /// max_value_unit_ratio divides the (nanosecond) max in each interval line.
  explicit HdrLogWriter(std::string* out, double max_value_unit_ratio = kNanosPerMilli);
  /// Writes to `out` (not owned, not closed) and fflush()es after each call, so a
  /// log being written can be read and write errors are reported by the call.
  explicit HdrLogWriter(FILE* out, double max_value_unit_ratio = kNanosPerMilli);

  /// Writes the format version, `#[StartTime: ...]` (human date in UTC), a
  /// `#[BaseTime: ...]` equal to it (so interval start offsets are unambiguously
  /// relative to it) and the column legend. Call once, first.
  Status WriteHeader(double start_time_epoch_s);

  /// Writes `[Tag=<tag>,]<start>,<length>,<max>,<histogram>` with 3 decimals:
  /// start_offset_s is seconds since the StartTime, max is the highest value
  /// equivalent to h.max() divided by the unit ratio. An empty tag writes no Tag=.
  /// InvalidArgument (and nothing written) if the tag holds ',', a space, a tab, CR
  /// or LF, which readers use as separators; IoError if the FILE* write fails.
  Status WriteInterval(std::string_view tag, double start_offset_s, double length_s,
                       const HdrHistogram& h);

 private:
  Status Emit(const std::string& text);

  std::string* out_string_ = nullptr;
  FILE* out_file_ = nullptr;
  double max_value_unit_ratio_;
};

/// A row of the reference PercentileIterator (what .hgrm files print).
struct PercentileRow {
  int64_t value;       // highest equivalent value of the bucket reached
  double percentile;   // the level iterated to, 0..100
  int64_t cumulative;  // count up to and including that bucket
};

/// The reference PercentileIterator: walks the buckets, emitting a row each time the
/// cumulative share reaches the next level (each half of the distance left to 100% cut
/// into `ticks` steps), then one final row at 100%. None for an empty histogram.
std::vector<PercentileRow> PercentileRows(const HdrHistogram& h, int ticks);

/// One interval of a run's commands as `memstand run --hdr-log` and `memstand merge
/// --hdr-log` write it: an untagged line of all commands together (what the readers take
/// without a tag: HistogramLogProcessor without -tag), then a line tagged with each
/// command's label. The first failing line's status (nothing after it written).
/// REQUIRES: labels.size() == commands.size() >= 1, the commands' histograms of one
/// setting (they are added).
Status WriteCommandsInterval(HdrLogWriter* w, const std::vector<std::string>& labels,
                             double start_offset_s, double length_s,
                             const std::vector<const HdrHistogram*>& commands);

/// The reference percentile distribution text (.hgrm) of `h`: a header, one row per
/// percentile step (ticks_per_half_distance steps in each half of the distance left
/// to 100%), a final 100% row without 1/(1-Percentile), and a footer with mean,
/// standard deviation, max, total count, bucket and sub-bucket counts. Values are
/// divided by output_value_unit_ratio and printed with significant_figures()
/// decimals. An empty histogram gives the header and footer only.
/// REQUIRES: output_value_unit_ratio > 0, ticks_per_half_distance >= 1.
std::string FormatHgrm(const HdrHistogram& h, double output_value_unit_ratio,
                       int ticks_per_half_distance = 5);

/// Building blocks of the encoding, exposed for tests.
namespace hdr_log_internal {
/// Appends `value` ZigZag-mapped as LEB128-64b9B: 7 bits per byte, low bits first,
/// at most 9 bytes, the 9th carrying the last 8 bits whole.
void AppendZigZagLeb128(int64_t value, std::string* out);
/// The uncompressed V2 encoding (header and counts), before zlib.
std::string EncodeV2(const HdrHistogram& h);
}  // namespace hdr_log_internal

}  // namespace memstand

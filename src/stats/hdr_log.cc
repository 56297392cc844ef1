// Layouts follow the reference Java HdrHistogram: AbstractHistogram's
// encodeIntoByteBuffer / encodeIntoCompressedByteBuffer (all integers big-endian),
// HistogramLogWriter's line formats, and outputPercentileDistribution with its
// PercentileIterator.
#include "stats/hdr_log.h"

#include <fmt/format.h>
#include <zlib.h>

#include <bit>
#include <cassert>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <ctime>
#include <new>
#include <vector>

#include "stats/hdr_decode.h"
#include "util/base64.h"

namespace memstand {

namespace {

void AppendBigEndian(uint64_t value, int bytes, std::string* out) {
  for (int shift = 8 * (bytes - 1); shift >= 0; shift -= 8) {
    out->push_back(static_cast<char>((value >> shift) & 0xff));
  }
}

void PatchBigEndian32(uint32_t value, size_t pos, std::string* out) {
  for (int i = 0; i < 4; ++i) (*out)[pos + i] = static_cast<char>((value >> (24 - 8 * i)) & 0xff);
}

/// Counts up to the bucket of max(), a run of two or more zeros as -run_length.
void AppendCounts(const HdrHistogram& h, std::string* out) {
  const int limit = h.CountsIndexFor(h.max()) + 1;
  int i = 0;
  while (i < limit) {
    const int64_t count = h.count_at_index(i++);
    int64_t zeros = 0;
    if (count == 0) {
      zeros = 1;
      while (i < limit && h.count_at_index(i) == 0) {
        ++zeros;
        ++i;
      }
    }
    hdr_log_internal::AppendZigZagLeb128(zeros > 1 ? -zeros : count, out);
  }
}

/// zlib-wrapped DEFLATE at the default level (as java.util.zip.Deflater's default).
/// One stream per thread, reset for each call (the same bytes as compress2): a stream's
/// set-up allocates ~256 KB, and a run's collector encodes every command's histogram
/// each second; set up and freed each time, those allocations page-faulted and were
/// handed back to the kernel (madvise, a TLB flush on every core the process runs on,
/// the load threads' included) each second.
std::string ZlibCompress(const std::string& in) {
  struct Deflater {
    z_stream zs{};
    bool ready = false;
    Deflater() { ready = deflateInit(&zs, Z_DEFAULT_COMPRESSION) == Z_OK; }
    ~Deflater() {
      if (ready) deflateEnd(&zs);
    }
  };
  thread_local Deflater d;
  if (!d.ready || deflateReset(&d.zs) != Z_OK) throw std::bad_alloc();
  std::string out(deflateBound(&d.zs, in.size()), '\0');
  d.zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  d.zs.avail_in = static_cast<uInt>(in.size());
  d.zs.next_out = reinterpret_cast<Bytef*>(out.data());
  d.zs.avail_out = static_cast<uInt>(out.size());
  // The output has deflateBound's room, so one call finishes the stream.
  if (deflate(&d.zs, Z_FINISH) != Z_STREAM_END) throw std::bad_alloc();
  out.resize(d.zs.total_out);
  return out;
}

/// "Tue Nov 14 22:13:20 UTC 2023": java.util.Date's toString layout, in UTC.
std::string HumanUtcDate(double epoch_s) {
  const time_t t = static_cast<time_t>(std::floor(epoch_s));
  struct tm tm_utc;
  char buf[64];
  if (gmtime_r(&t, &tm_utc) == nullptr) return "?";
  const size_t n = strftime(buf, sizeof(buf), "%a %b %d %H:%M:%S UTC %Y", &tm_utc);
  return std::string(buf, n);
}

bool ValidTag(std::string_view tag) {
  return tag.find_first_of(", \t\r\n") == std::string_view::npos;
}

/// Highest value equivalent to the recorded max (the reference's getMaxValue()).
int64_t ReportedMax(const HdrHistogram& h) {
  return h.total_count() == 0 ? 0 : h.HighestEquivalentValue(h.max());
}

/// Sub-buckets per bucket, as the histogram derives them: the smallest power of two
/// >= 2 * 10^significant_figures.
int SubBucketCount(const HdrHistogram& h) {
  int64_t largest_single_unit = 2;
  for (int i = 0; i < h.significant_figures(); ++i) largest_single_unit *= 10;
  return static_cast<int>(std::bit_ceil(static_cast<uint64_t>(largest_single_unit)));
}

/// The next level: each half of the remaining distance to 100% is cut into `ticks`
/// equal steps (the reference PercentileIterator).
double NextPercentileLevel(double level, int ticks) {
  const double halvings = std::floor(std::log2(100.0 / (100.0 - level)));
  return level + 100.0 / (ticks * std::pow(2.0, halvings + 1));
}

std::string FormatRow(const PercentileRow& row, double ratio, int decimals) {
  const double p = row.percentile / 100.0;
  std::string line =
      fmt::format("{:12.{}f} {:2.12f} {:10d}", row.value / ratio, decimals, p, row.cumulative);
  if (row.percentile != 100.0) line += fmt::format(" {:14.2f}", 1.0 / (1.0 - p));
  return line + "\n";
}

std::string FormatHgrmFooter(const HdrHistogram& h, double ratio) {
  const int d = h.significant_figures();
  const int sub_buckets = SubBucketCount(h);
  const int buckets = h.counts_len() / (sub_buckets / 2) - 1;
  return fmt::format("#[Mean    = {:12.{}f}, StdDeviation   = {:12.{}f}]\n", h.mean() / ratio, d,
                     h.stddev() / ratio, d) +
         fmt::format("#[Max     = {:12.{}f}, Total count    = {:12d}]\n", ReportedMax(h) / ratio, d,
                     h.total_count()) +
         fmt::format("#[Buckets = {:12d}, SubBuckets     = {:12d}]\n", buckets, sub_buckets);
}

}  // namespace

namespace hdr_log_internal {

void AppendZigZagLeb128(int64_t value, std::string* out) {
  uint64_t v = (static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63);
  for (int i = 0; i < 8; ++i) {
    if (v < 0x80) {
      out->push_back(static_cast<char>(v));
      return;
    }
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));  // the 9th byte: the last 8 bits, no flag
}

std::string EncodeV2(const HdrHistogram& h) {
  std::string out;
  AppendBigEndian(kHdrV2EncodingCookie, 4, &out);
  AppendBigEndian(0, 4, &out);  // payload length, patched below
  AppendBigEndian(0, 4, &out);  // normalizing index offset: counts are not shifted
  AppendBigEndian(static_cast<uint64_t>(h.significant_figures()), 4, &out);
  AppendBigEndian(static_cast<uint64_t>(h.lowest_discernible()), 8, &out);
  AppendBigEndian(static_cast<uint64_t>(h.highest_trackable()), 8, &out);
  AppendBigEndian(std::bit_cast<uint64_t>(1.0), 8, &out);  // integer-to-double ratio
  const size_t payload_start = out.size();
  AppendCounts(h, &out);
  PatchBigEndian32(static_cast<uint32_t>(out.size() - payload_start), 4, &out);
  return out;
}

}  // namespace hdr_log_internal

std::string EncodeCompressedV2Base64(const HdrHistogram& h) {
  const std::string compressed = ZlibCompress(hdr_log_internal::EncodeV2(h));
  std::string wrapped;
  AppendBigEndian(kHdrV2CompressedEncodingCookie, 4, &wrapped);
  AppendBigEndian(compressed.size(), 4, &wrapped);
  wrapped += compressed;
  return Base64Encode(wrapped);
}

HdrLogWriter::HdrLogWriter(std::string* out, double max_value_unit_ratio)
    : out_string_(out), max_value_unit_ratio_(max_value_unit_ratio) {
  assert(out != nullptr && max_value_unit_ratio > 0);
}

HdrLogWriter::HdrLogWriter(FILE* out, double max_value_unit_ratio)
    : out_file_(out), max_value_unit_ratio_(max_value_unit_ratio) {
  assert(out != nullptr && max_value_unit_ratio > 0);
}

Status HdrLogWriter::WriteHeader(double start_time_epoch_s) {
  return Emit(fmt::format(
      "#[Histogram log format version 1.3]\n"
      "#[StartTime: {:.3f} (seconds since epoch), {}]\n"
      "#[BaseTime: {:.3f} (seconds since epoch)]\n"
      "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n",
      start_time_epoch_s, HumanUtcDate(start_time_epoch_s), start_time_epoch_s));
}

Status HdrLogWriter::WriteInterval(std::string_view tag, double start_offset_s, double length_s,
                                   const HdrHistogram& h) {
  if (!ValidTag(tag)) {
    return Status::InvalidArgument(
        fmt::format("hdr log tag '{}' holds a separator (comma, space, tab, CR or LF)", tag));
  }
  const std::string prefix = tag.empty() ? "" : fmt::format("Tag={},", tag);
  const double max = static_cast<double>(ReportedMax(h)) / max_value_unit_ratio_;
  return Emit(fmt::format("{}{:.3f},{:.3f},{:.3f},{}\n", prefix, start_offset_s, length_s, max,
                          EncodeCompressedV2Base64(h)));
}

Status WriteCommandsInterval(HdrLogWriter* w, const std::vector<std::string>& labels,
                             double start_offset_s, double length_s,
                             const std::vector<const HdrHistogram*>& commands) {
  assert(!commands.empty() && labels.size() == commands.size());
  HdrHistogram all(*commands.front());
  for (size_t i = 1; i < commands.size(); ++i) all.Add(*commands[i]);
  Status s = w->WriteInterval("", start_offset_s, length_s, all);
  for (size_t i = 0; s.ok() && i < commands.size(); ++i) {
    s = w->WriteInterval(labels[i], start_offset_s, length_s, *commands[i]);
  }
  return s;
}

Status HdrLogWriter::Emit(const std::string& text) {
  if (out_string_ != nullptr) {
    *out_string_ += text;
    return Status::OK();
  }
  if (std::fwrite(text.data(), 1, text.size(), out_file_) != text.size() ||
      std::fflush(out_file_) != 0) {
    return Status::IoError(fmt::format("writing hdr log: {}", std::strerror(errno)));
  }
  return Status::OK();
}

std::vector<PercentileRow> PercentileRows(const HdrHistogram& h, int ticks) {
  std::vector<PercentileRow> rows;
  const int64_t total = h.total_count();
  if (total == 0) return rows;
  int64_t cumulative = 0;
  int index = 0;
  bool fresh = true;  // the count at `index` is not yet in `cumulative`
  double level = 0.0;
  while (cumulative < total) {
    for (;; ++index, fresh = true) {
      if (index >= h.counts_len()) return rows;  // counts and total disagree
      const int64_t count = h.count_at_index(index);
      if (fresh) cumulative += count;
      fresh = false;
      if (count != 0 && 100.0 * cumulative / total >= level) break;
    }
    rows.push_back({h.HighestEquivalentValue(h.ValueFromIndex(index)), level, cumulative});
    level = NextPercentileLevel(level, ticks);
  }
  rows.push_back({h.HighestEquivalentValue(h.ValueFromIndex(index)), 100.0, cumulative});
  return rows;
}

std::string FormatHgrm(const HdrHistogram& h, double output_value_unit_ratio,
                       int ticks_per_half_distance) {
  assert(output_value_unit_ratio > 0 && ticks_per_half_distance >= 1);
  std::string out = "       Value     Percentile TotalCount 1/(1-Percentile)\n\n";
  for (const PercentileRow& row : PercentileRows(h, ticks_per_half_distance)) {
    out += FormatRow(row, output_value_unit_ratio, h.significant_figures());
  }
  return out + FormatHgrmFooter(h, output_value_unit_ratio);
}

}  // namespace memstand

#include "stats/hdr_decode.h"

#include <zlib.h>

#include <string>
#include <utility>
#include <vector>

#include "util/base64.h"

namespace memstand {

namespace {

constexpr size_t kV2HeaderSize = 40;
// The most requests a decoded histogram may hold: far above any run's, and low enough that
// adding the histograms of thousands of shards cannot overflow a 64-bit total.
constexpr int64_t kMaxDecodedCount = int64_t{1} << 53;

Status Bad(const std::string& what) {
  return Status::InvalidArgument("histogram: " + what);
}

uint64_t BigEndian(std::string_view s, size_t pos, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | static_cast<unsigned char>(s[pos + i]);
  return v;
}

Result<std::string> Inflate(std::string_view in) {
  z_stream z{};
  if (inflateInit(&z) != Z_OK) return Bad("zlib cannot start");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  std::string out;
  int rc = Z_OK;
  while (rc == Z_OK) {
    const size_t have = out.size();
    out.resize(have + 65536);
    z.next_out = reinterpret_cast<Bytef*>(out.data() + have);
    z.avail_out = 65536;
    rc = inflate(&z, Z_NO_FLUSH);
    out.resize(have + 65536 - z.avail_out);
    if (rc == Z_BUF_ERROR && z.avail_in == 0) break;
    if (out.size() > (64u << 20)) break;  // no histogram of ours is near this
  }
  inflateEnd(&z);
  if (rc != Z_STREAM_END) return Bad("the zlib stream is damaged or cut short");
  return out;
}

// ZigZag LEB128-64b9B (stats/hdr_log.h). False when the bytes run out.
bool ReadZigZag(std::string_view s, size_t* pos, int64_t* value) {
  uint64_t v = 0;
  for (int i = 0; i < 9; ++i) {
    if (*pos >= s.size()) return false;
    const uint64_t byte = static_cast<unsigned char>(s[(*pos)++]);
    if (i == 8) {
      v |= byte << 56;
      break;
    }
    v |= (byte & 0x7f) << (7 * i);
    if ((byte & 0x80) == 0) break;
  }
  *value = static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
  return true;
}

// (index, count) of every non-zero count of the payload.
Result<std::vector<std::pair<int, int64_t>>> ReadCounts(std::string_view payload, int counts_len) {
  std::vector<std::pair<int, int64_t>> counts;
  size_t pos = 0;
  int64_t index = 0, total = 0;
  while (pos < payload.size()) {
    int64_t v = 0;
    if (!ReadZigZag(payload, &pos, &v)) return Bad("a count is cut short");
    if (v < 0) {
      // A run of -v zero counts; past the range (or INT64_MIN) it is refused before the
      // index can overflow.
      if (v < -static_cast<int64_t>(counts_len)) return Bad("counts go past the histogram's range");
      index -= v;
      continue;
    }
    if (index >= counts_len) return Bad("counts go past the histogram's range");
    if (v > kMaxDecodedCount - total) return Bad("the counts add up past 2^53");
    total += v;
    if (v > 0) counts.emplace_back(static_cast<int>(index), v);
    ++index;
  }
  return counts;
}

struct Settings {
  int64_t lowest = 0, highest = 0;
  int figures = 0;
};

Result<std::string_view> ReadHeader(std::string_view v2, Settings* s) {
  if (v2.size() < kV2HeaderSize || BigEndian(v2, 0, 4) != kHdrV2EncodingCookie) {
    return Bad("not a V2 encoding (cookie 0x1c849313)");
  }
  const uint64_t payload = BigEndian(v2, 4, 4);
  if (payload > v2.size() - kV2HeaderSize) return Bad("the payload is cut short");
  if (BigEndian(v2, 8, 4) != 0) return Bad("a normalizing index offset is not supported");
  s->figures = static_cast<int>(BigEndian(v2, 12, 4));
  s->lowest = static_cast<int64_t>(BigEndian(v2, 16, 8));
  s->highest = static_cast<int64_t>(BigEndian(v2, 24, 8));
  if (s->figures < 1 || s->figures > 5 || s->lowest < 1 || s->highest / 2 < s->lowest) {
    return Bad("the header's settings are out of range");
  }
  return v2.substr(kV2HeaderSize, payload);
}

}  // namespace

Result<HdrHistogram> DecodeCompressedV2Base64(std::string_view b64, int64_t min, int64_t max) {
  std::string wrapped;
  if (!Base64Decode(b64, &wrapped)) return Bad("not base64");
  if (wrapped.size() < 8 || BigEndian(wrapped, 0, 4) != kHdrV2CompressedEncodingCookie) {
    return Bad("not a V2 compressed encoding (cookie 0x1c849314)");
  }
  const uint64_t length = BigEndian(wrapped, 4, 4);
  if (length > wrapped.size() - 8) return Bad("the compressed length is past the end");
  auto v2 = Inflate(std::string_view(wrapped).substr(8, length));
  if (!v2.ok()) return v2.status();
  Settings s;
  auto payload = ReadHeader(*v2, &s);
  if (!payload.ok()) return payload.status();
  HdrHistogram h(s.lowest, s.highest, s.figures);
  auto counts = ReadCounts(*payload, h.counts_len());
  if (!counts.ok()) return counts.status();
  if (counts->empty()) return h;
  const int first = counts->front().first, last = counts->back().first;
  if (min < 0 || max > s.highest || min > max || h.CountsIndexFor(min) != first ||
      h.CountsIndexFor(max) != last) {
    return Bad("min " + std::to_string(min) + " and max " + std::to_string(max) +
               " do not lie in the first and last non-empty buckets");
  }
  for (const auto& [index, count] : *counts) {
    int64_t value = index == first ? min : h.ValueFromIndex(index);
    if (index == last) value = max;
    if (index == first && index == last) {  // one bucket: min once, the rest at max
      if (count == 1 && min != max) return Bad("one value, but min and max differ");
      h.RecordN(min, 1);
      h.RecordN(max, count - 1);
      continue;
    }
    h.RecordN(value, count);
  }
  return h;
}

}  // namespace memstand

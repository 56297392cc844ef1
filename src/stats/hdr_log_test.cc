#include "stats/hdr_log.h"
#include "test_paths.h"

#include "npm_util.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <vector>

#include "util/base64.h"

namespace memstand {
namespace {

using hdr_log_internal::AppendZigZagLeb128;
using hdr_log_internal::EncodeV2;

// ---- A decoder written from the format description, independent of the encoder.

// Base64 itself is util/base64 (tested in util/base64_test.cc).
std::string Unbase64(std::string_view text) {
  std::string out;
  EXPECT_TRUE(Base64Decode(text, &out)) << "not padded base64: " << text;
  return out;
}

struct ByteReader {
  std::string_view data;
  size_t pos = 0;

  uint8_t Next() { return pos < data.size() ? static_cast<uint8_t>(data[pos++]) : (pos++, 0); }
  bool overrun() const { return pos > data.size(); }
  uint64_t BigEndian(int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v = (v << 8) | Next();
    return v;
  }
  int64_t ZigZag() {
    uint64_t v = 0;
    for (int i = 0; i < 9; ++i) {
      const uint8_t b = Next();
      if (i == 8) {
        v |= uint64_t{b} << 56;
        break;
      }
      v |= uint64_t{b & 0x7fu} << (7 * i);
      if ((b & 0x80) == 0) break;
    }
    return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1));
  }
};

struct DecodedV2 {
  uint64_t cookie = 0;
  uint64_t payload_length = 0;
  uint64_t normalizing_offset = 0;
  uint64_t significant_figures = 0;
  uint64_t lowest = 0;
  uint64_t highest = 0;
  uint64_t ratio_bits = 0;
  std::vector<int64_t> counts;
};

DecodedV2 DecodeV2(std::string_view bytes) {
  ByteReader r{bytes};
  DecodedV2 d;
  d.cookie = r.BigEndian(4);
  d.payload_length = r.BigEndian(4);
  d.normalizing_offset = r.BigEndian(4);
  d.significant_figures = r.BigEndian(4);
  d.lowest = r.BigEndian(8);
  d.highest = r.BigEndian(8);
  d.ratio_bits = r.BigEndian(8);
  while (r.pos < bytes.size()) {
    const int64_t v = r.ZigZag();
    if (v < 0) {
      d.counts.insert(d.counts.end(), static_cast<size_t>(-v), 0);
    } else {
      d.counts.push_back(v);
    }
  }
  EXPECT_FALSE(r.overrun());
  return d;
}

std::string ZlibInflate(std::string_view in) {
  z_stream zs{};
  EXPECT_EQ(inflateInit(&zs), Z_OK);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  std::string out;
  int rc = Z_OK;
  while (rc == Z_OK) {
    char buf[4096];
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof(buf);
    rc = inflate(&zs, Z_NO_FLUSH);
    out.append(buf, sizeof(buf) - zs.avail_out);
  }
  EXPECT_EQ(rc, Z_STREAM_END) << "the zlib stream is truncated or corrupt";
  EXPECT_EQ(zs.avail_in, 0u) << "bytes after the zlib stream";
  inflateEnd(&zs);
  return out;
}

/// Unwraps base64 and the compressed envelope, checking its cookie and length.
std::string UnwrapCompressed(const std::string& base64) {
  const std::string bytes = Unbase64(base64);
  ByteReader r{bytes};
  EXPECT_EQ(r.BigEndian(4), 0x1c849314u);
  EXPECT_EQ(r.BigEndian(4), bytes.size() - 8);
  return ZlibInflate(std::string_view(bytes).substr(8));
}

void ExpectSameCounts(const DecodedV2& d, const HdrHistogram& h) {
  ASSERT_EQ(d.counts.size(), static_cast<size_t>(h.CountsIndexFor(h.max()) + 1));
  for (int i = 0; i < h.counts_len(); ++i) {
    const int64_t decoded = static_cast<size_t>(i) < d.counts.size() ? d.counts[i] : 0;
    ASSERT_EQ(decoded, h.count_at_index(i)) << "index " << i;
  }
}

std::string ZigZagBytes(int64_t v) {
  std::string out;
  AppendZigZagLeb128(v, &out);
  return out;
}

HdrHistogram SampleHistogram() {
  HdrHistogram h;
  for (int64_t v : {0, 1, 1, 3, 1000, 5000, 5000, 5000, 1'000'000}) h.Record(v);
  h.Record(3'600'000'000'000LL);
  return h;
}

TEST(ZigZagLeb128Test, KnownEncodings) {
  EXPECT_EQ(ZigZagBytes(0), std::string("\x00", 1));
  EXPECT_EQ(ZigZagBytes(-1), "\x01");
  EXPECT_EQ(ZigZagBytes(1), "\x02");
  EXPECT_EQ(ZigZagBytes(63), "\x7e");
  EXPECT_EQ(ZigZagBytes(-64), "\x7f");
  EXPECT_EQ(ZigZagBytes(64), "\x80\x01");
  EXPECT_EQ(ZigZagBytes(-996), "\xc7\x0f");
  // 64-bit extremes take 9 bytes, the 9th holding 8 value bits.
  EXPECT_EQ(ZigZagBytes(INT64_MAX), "\xfe\xff\xff\xff\xff\xff\xff\xff\xff");
  EXPECT_EQ(ZigZagBytes(INT64_MIN), "\xff\xff\xff\xff\xff\xff\xff\xff\xff");
}

TEST(ZigZagLeb128Test, RoundTripsAcrossMagnitudes) {
  std::vector<int64_t> values = {0, INT64_MIN, INT64_MAX};
  for (int s = 0; s < 63; ++s) {
    const int64_t p = int64_t{1} << s;
    for (int64_t v : {p - 1, p, p + 1}) {
      values.push_back(v);
      values.push_back(-v);
    }
  }
  for (int64_t v : values) {
    const std::string bytes = ZigZagBytes(v);
    ASSERT_LE(bytes.size(), 9u) << v;
    ByteReader r{bytes};
    EXPECT_EQ(r.ZigZag(), v);
    EXPECT_EQ(r.pos, bytes.size()) << v;
  }
}

TEST(EncodeV2Test, HeaderFieldsAndZeroRuns) {
  const HdrHistogram h = SampleHistogram();
  const std::string bytes = EncodeV2(h);
  const DecodedV2 d = DecodeV2(bytes);
  EXPECT_EQ(d.cookie, 0x1c849313u);
  EXPECT_EQ(d.payload_length, bytes.size() - 40);
  EXPECT_EQ(d.normalizing_offset, 0u);
  EXPECT_EQ(d.significant_figures, 3u);
  EXPECT_EQ(d.lowest, 1u);
  EXPECT_EQ(d.highest, 3'600'000'000'000u);
  EXPECT_EQ(d.ratio_bits, std::bit_cast<uint64_t>(1.0));
  // Counts at 0, 1, 2, 3: 1, 2, 0, 1 -- a lone zero is a plain 0 -- then 996 zeros
  // (indexes 4..999) as one run of -996.
  EXPECT_EQ(bytes.substr(40, 6), std::string("\x02\x04\x00\x02\xc7\x0f", 6));
  ExpectSameCounts(d, h);
}

TEST(EncodeV2Test, EmptyHistogramIsOneZeroCount) {
  const std::string bytes = EncodeV2(HdrHistogram());
  ASSERT_EQ(bytes.size(), 41u);
  EXPECT_EQ(bytes[40], '\0');
  EXPECT_EQ(DecodeV2(bytes).payload_length, 1u);
}

TEST(EncodeCompressedV2Test, DecodesToTheSameCounts) {
  const HdrHistogram h = SampleHistogram();
  const std::string b64 = EncodeCompressedV2Base64(h);
  // 0x1c849314 in base64: the "HISTF" every reference log line starts with.
  EXPECT_EQ(b64.substr(0, 5), "HISTF");
  const std::string v2 = UnwrapCompressed(b64);
  EXPECT_EQ(v2, EncodeV2(h));
  ExpectSameCounts(DecodeV2(v2), h);
}

// The encoder keeps one zlib stream per thread and resets it for each histogram: the
// bytes must be compress2's at the default level every time, whatever was encoded
// before on that thread, and on another thread.
TEST(EncodeCompressedV2Test, SameBytesAsOneShotCompressEveryCall) {
  auto one_shot = [](const HdrHistogram& h) {
    const std::string v2 = EncodeV2(h);
    uLongf len = compressBound(v2.size());
    std::string z(len, '\0');
    EXPECT_EQ(compress2(reinterpret_cast<Bytef*>(z.data()), &len, reinterpret_cast<const Bytef*>(v2.data()),
                        v2.size(), Z_DEFAULT_COMPRESSION),
              Z_OK);
    z.resize(len);
    std::string wrapped = Unbase64(EncodeCompressedV2Base64(HdrHistogram())).substr(0, 4);  // the cookie
    for (int shift = 24; shift >= 0; shift -= 8) wrapped.push_back(static_cast<char>((z.size() >> shift) & 0xff));
    return Base64Encode(wrapped + z);
  };
  HdrHistogram big;
  for (int64_t v = 1; v < 3'000'000'000LL; v = v * 5 / 4 + 1) big.RecordN(v, v % 7 + 1);
  const HdrHistogram small = SampleHistogram();
  for (int round = 0; round < 3; ++round) {
    EXPECT_EQ(EncodeCompressedV2Base64(big), one_shot(big)) << "round " << round;
    EXPECT_EQ(EncodeCompressedV2Base64(small), one_shot(small)) << "round " << round;
    EXPECT_EQ(EncodeCompressedV2Base64(HdrHistogram()), one_shot(HdrHistogram())) << "round " << round;
  }
  std::string other;
  std::thread([&] { other = EncodeCompressedV2Base64(big); }).join();
  EXPECT_EQ(other, one_shot(big));
}

TEST(EncodeCompressedV2Test, KeepsNonDefaultGeometry) {
  HdrHistogram h(1000, 10'000'000'000LL, 2);
  for (int64_t v = 1000; v < 5'000'000'000LL; v = v * 3 + 7) h.RecordN(v, v % 5 + 1);
  const DecodedV2 d = DecodeV2(UnwrapCompressed(EncodeCompressedV2Base64(h)));
  EXPECT_EQ(d.significant_figures, 2u);
  EXPECT_EQ(d.lowest, 1000u);
  EXPECT_EQ(d.highest, 10'000'000'000u);
  ExpectSameCounts(d, h);
}

TEST(HdrLogWriterTest, HeaderAndIntervalLines) {
  std::string out;
  HdrLogWriter w(&out);
  ASSERT_TRUE(w.WriteHeader(1700000000.123).ok());
  EXPECT_EQ(out,
            "#[Histogram log format version 1.3]\n"
            "#[StartTime: 1700000000.123 (seconds since epoch), Tue Nov 14 22:13:20 UTC 2023]\n"
            "#[BaseTime: 1700000000.123 (seconds since epoch)]\n"
            "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\","
            "\"Interval_Compressed_Histogram\"\n");
  HdrHistogram h;
  h.Record(1'234'567);  // its bucket [1233920, 1234943] reports max 1.234943 ms
  out.clear();
  ASSERT_TRUE(w.WriteInterval("SET", 0, 1, h).ok());
  EXPECT_EQ(out, "Tag=SET,0.000,1.000,1.235," + EncodeCompressedV2Base64(h) + "\n");
  out.clear();
  ASSERT_TRUE(w.WriteInterval("", 1.5, 0.25, HdrHistogram()).ok());
  EXPECT_EQ(out, "1.500,0.250,0.000," + EncodeCompressedV2Base64(HdrHistogram()) + "\n");
}

TEST(HdrLogWriterTest, MaxUsesTheCallersUnitRatio) {
  std::string out;
  HdrLogWriter w(&out, 1e3);
  HdrHistogram h;
  h.Record(1500);
  ASSERT_TRUE(w.WriteInterval("", 0, 1, h).ok());
  EXPECT_EQ(out.substr(0, 18), "0.000,1.000,1.500,");
}

TEST(HdrLogWriterTest, RejectsTagsHoldingSeparators) {
  std::string out;
  HdrLogWriter w(&out);
  for (const char* tag : {"a,b", "a b", "a\tb", "a\nb"}) {
    const Status s = w.WriteInterval(tag, 0, 1, HdrHistogram());
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << tag;
  }
  EXPECT_EQ(out, "");
}

TEST(HdrLogWriterTest, FileOutputMatchesStringOutput) {
  std::string expected;
  HdrLogWriter to_string(&expected);
  FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  HdrLogWriter to_file(f);
  const HdrHistogram h = SampleHistogram();
  for (HdrLogWriter* w : {&to_string, &to_file}) {
    ASSERT_TRUE(w->WriteHeader(1700000000).ok());
    ASSERT_TRUE(w->WriteInterval("GET", 2, 1, h).ok());
  }
  std::rewind(f);
  std::string got(expected.size() + 16, '\0');
  got.resize(std::fread(got.data(), 1, got.size(), f));
  std::fclose(f);
  EXPECT_EQ(got, expected);
}

TEST(HdrLogWriterTest, ReportsWriteErrors) {
  FILE* f = std::fopen("/dev/null", "r");
  ASSERT_NE(f, nullptr);
  HdrLogWriter w(f);
  EXPECT_EQ(w.WriteHeader(0).code(), Status::Code::kIoError);
  std::fclose(f);
}

// hdr-histogram-js 3.0.1 (a port of the reference) printed this for the values
// 1, 2, 3, 4 in a default 1 ns..1 h, 3-digit histogram with
// outputPercentileDistribution(5, 1): 12 stepped rows and the final 100% row.
TEST(FormatHgrmTest, MatchesTheReferenceOutput) {
  HdrHistogram h;
  for (int v = 1; v <= 4; ++v) h.Record(v);
  EXPECT_EQ(FormatHgrm(h, 1.0),
            "       Value     Percentile TotalCount 1/(1-Percentile)\n"
            "\n"
            "       1.000 0.000000000000          1           1.00\n"
            "       1.000 0.100000000000          1           1.11\n"
            "       1.000 0.200000000000          1           1.25\n"
            "       2.000 0.300000000000          2           1.43\n"
            "       2.000 0.400000000000          2           1.67\n"
            "       2.000 0.500000000000          2           2.00\n"
            "       3.000 0.550000000000          3           2.22\n"
            "       3.000 0.600000000000          3           2.50\n"
            "       3.000 0.650000000000          3           2.86\n"
            "       3.000 0.700000000000          3           3.33\n"
            "       3.000 0.750000000000          3           4.00\n"
            "       4.000 0.775000000000          4           4.44\n"
            "       4.000 1.000000000000          4\n"
            "#[Mean    =        2.500, StdDeviation   =        1.118]\n"
            "#[Max     =        4.000, Total count    =            4]\n"
            "#[Buckets =           32, SubBuckets     =         2048]\n");
}

TEST(FormatHgrmTest, EmptyHistogramHasHeaderAndFooterOnly) {
  EXPECT_EQ(FormatHgrm(HdrHistogram(), 1e6),
            "       Value     Percentile TotalCount 1/(1-Percentile)\n"
            "\n"
            "#[Mean    =        0.000, StdDeviation   =        0.000]\n"
            "#[Max     =        0.000, Total count    =            0]\n"
            "#[Buckets =           32, SubBuckets     =         2048]\n");
}

TEST(FormatHgrmTest, TicksSetTheRowCount) {
  HdrHistogram h;
  for (int v = 1; v <= 100; ++v) h.Record(v);
  auto rows = [&](int ticks) {
    const std::string text = FormatHgrm(h, 1.0, ticks);
    return std::count(text.begin(), text.end(), '\n') - 5;  // header 2, footer 3
  };
  // Levels: 0, then `ticks` steps per halving of the distance to 100% until the
  // last value's 100% is reached (1% per value here): 0..50 in 10% steps, 50..75
  // in 5%, 75..87.5 in 2.5%, ... stepping below 1% once the distance is < 1/16.
  EXPECT_LT(rows(1), rows(5));
  EXPECT_LT(rows(5), rows(10));
  const std::string text = FormatHgrm(h, 1.0, 1);
  EXPECT_NE(text.find("      50.000 0.500000000000         50           2.00\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("     100.000 1.000000000000        100\n"), std::string::npos) << text;
}

// ---- The reference decoder: hdr-histogram-js under node (tests/npm_util.h).

using testutil::CommandResult;
using testutil::HaveProgram;
using testutil::NodeModulesWithHdrJs;
using testutil::RunShell;
using testutil::ShellQuote;

HdrHistogram Spread(int n, int64_t base, int64_t step, int64_t modulo) {
  HdrHistogram h;
  for (int i = 0; i < n; ++i) h.Record(base + (i * step) % modulo);
  return h;
}

TEST(HdrLogReferenceDecoderTest, HdrHistogramJsReadsBackTwoTags) {
  ASSERT_TRUE(HaveProgram("node") && HaveProgram("npm"))
      << "node and npm are needed to decode .hlog files with hdr-histogram-js: install the "
         "Debian packages nodejs and npm (scripts/deps.sh)";
  std::string npm_error;
  const std::string node_modules = NodeModulesWithHdrJs(&npm_error);
  ASSERT_FALSE(node_modules.empty()) << npm_error;

  // Two intervals per tag; the second GET interval is empty.
  HdrHistogram set1 = Spread(1000, 20'000, 97, 97'000);
  set1.RecordN(2'500'000, 3);
  HdrHistogram set2 = Spread(500, 50'000, 13, 6'500);
  set2.Record(80'000'000);
  const HdrHistogram get1 = Spread(2000, 5'000, 7919, 100'000);
  const HdrHistogram get2;
  std::string log;
  HdrLogWriter w(&log);
  ASSERT_TRUE(w.WriteHeader(1700000000.0).ok());
  ASSERT_TRUE(w.WriteInterval("SET", 0, 1, set1).ok());
  ASSERT_TRUE(w.WriteInterval("GET", 0, 1, get1).ok());
  ASSERT_TRUE(w.WriteInterval("SET", 1, 1, set2).ok());
  ASSERT_TRUE(w.WriteInterval("GET", 1, 1, get2).ok());

  std::string dir = "/tmp/memstand-hlog-XXXXXX";
  ASSERT_NE(mkdtemp(dir.data()), nullptr);
  const std::string log_path = dir + "/run.hlog";
  const std::string err_path = dir + "/node.err";
  std::ofstream(log_path) << log;
  const CommandResult r =
      RunShell("NODE_PATH=" + ShellQuote(node_modules) + " node " +
               ShellQuote(testutil::SourceDir() + "/tests/npm/decode_hlog.js") + " " +
               ShellQuote(log_path) + " 1000000 2>" + ShellQuote(err_path));
  const std::string node_stderr = testutil::ReadFile(err_path);
  std::remove(log_path.c_str());
  std::remove(err_path.c_str());
  rmdir(dir.c_str());
  ASSERT_EQ(r.exit_code, 0) << node_stderr;
  const auto j = nlohmann::json::parse(r.output, nullptr, /*allow_exceptions=*/false);
  ASSERT_TRUE(j.is_object() && j.contains("tags")) << r.output << node_stderr;
  const auto& tags = j["tags"];
  ASSERT_EQ(tags.size(), 2u) << tags.dump();

  struct Expected {
    const char* tag;
    const HdrHistogram* first;
    const HdrHistogram* second;
  };
  for (const Expected& e : {Expected{"SET", &set1, &set2}, Expected{"GET", &get1, &get2}}) {
    SCOPED_TRACE(e.tag);
    ASSERT_TRUE(tags.contains(e.tag));
    const auto& t = tags[e.tag];
    HdrHistogram merged;
    merged.Add(*e.first);
    merged.Add(*e.second);
    auto hev = [&](int64_t v) { return merged.HighestEquivalentValue(v); };
    EXPECT_EQ(t["totalCount"].get<int64_t>(), merged.total_count());
    EXPECT_EQ(t["p50"].get<int64_t>(), hev(merged.ValueAtPercentile(50)));
    EXPECT_EQ(t["p99"].get<int64_t>(), hev(merged.ValueAtPercentile(99)));
    EXPECT_EQ(t["max"].get<int64_t>(), hev(merged.max()));
    EXPECT_EQ(t["hgrm"].get<std::string>(), FormatHgrm(merged, 1e6));
    const auto& intervals = t["intervals"];
    ASSERT_EQ(intervals.size(), 2u);
    const HdrHistogram* parts[] = {e.first, e.second};
    for (int i = 0; i < 2; ++i) {
      const auto& in = intervals[i];
      EXPECT_EQ(in["totalCount"].get<int64_t>(), parts[i]->total_count());
      const int64_t max = parts[i]->total_count() == 0 ? 0 : hev(parts[i]->max());
      EXPECT_EQ(in["maxValue"].get<int64_t>(), max);
      EXPECT_NEAR(in["startTimeStampMsec"].get<double>(), (1700000000.0 + i) * 1000, 1.0);
      EXPECT_NEAR(in["endTimeStampMsec"].get<double>(), (1700000001.0 + i) * 1000, 1.0);
    }
  }
}

}  // namespace
}  // namespace memstand

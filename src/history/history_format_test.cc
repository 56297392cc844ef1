// The history file: the golden bytes, the round trip, and every malformed input the
// reader refuses with its offset and reason (docs/history.md).
#include <fstream>
#include <functional>
#include <iterator>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "history/crc32c.h"
#include "history/history_format.h"
#include "history/history_reader.h"
#include "history/history_test_util.h"
#include "history/history_writer.h"
#include "test_paths.h"
#include "util/rng.h"

namespace memstand::history {
namespace {

namespace fmt_ = format;

// The history of testdata/golden_v1.hex, built through the encoder (version 1: the
// reader still reads files of the first version).
std::string GoldenBytes() {
  RunHeader header;
  header.target_kind = TargetKind::kResp;
  header.keys_fresh = true;
  header.run_tag = 0x0a0b0c0d;
  header.start_unix_ns = 1700000000123456789;
  header.key_prefix = "key:";
  header.target = "redis://127.0.0.1:6379";
  header.writer = "memstand golden";
  auto enc = HistoryEncoder::Start(header, 1);
  EXPECT_TRUE(enc.ok()) << enc.status().message();
  EXPECT_EQ(*enc->Intern("127.0.0.1:6379"), 1);
  EXPECT_EQ(*enc->Intern("timeout"), 2);
  EXPECT_EQ(*enc->Intern("127.0.0.1:6379"), 1);  // the table keeps one of each
  std::vector<Record> rs(4);
  rs[0] = {.op_id = 1, .client = 1, .seq = 1, .invoke_ns = 1000, .complete_ns = 2500, .key = 7, .node = 1,
           .f = Op::kWrite};
  rs[1] = {.op_id = 2, .client = 2, .seq = 1, .invoke_ns = 3000, .complete_ns = 4000, .key = 7,
           .value = ValueId(1, 1), .node = 1, .f = Op::kRead, .seen = Seen::kOurs};
  rs[2] = {.op_id = 3, .client = 1, .seq = 2, .invoke_ns = 5000, .complete_ns = 9000, .key = 7,
           .value = ValueId(1, 1), .node = 1, .error = 2, .f = Op::kCas, .outcome = Outcome::kUnknown,
           .seen = Seen::kOurs};
  rs[3] = {.op_id = 4, .client = 3, .seq = 1, .invoke_ns = 6000, .complete_ns = 6500, .key = 8, .node = 1,
           .f = Op::kRead, .seen = Seen::kAbsent};
  EXPECT_TRUE(enc->Add(rs).ok());
  enc->End();
  return enc->Take();
}

// The history of testdata/golden_events_v1.hex: an event before the records' entry, one
// after it.
std::string GoldenEventsBytes() {
  RunHeader header;
  header.target_kind = TargetKind::kResp;
  header.keys_fresh = true;
  header.run_tag = 0x0a0b0c0d;
  header.start_unix_ns = 1700000000123456789;
  header.key_prefix = "key:";
  header.target = "redis://127.0.0.1:6379";
  header.writer = "memstand golden";
  auto enc = HistoryEncoder::Start(header, 1);
  EXPECT_TRUE(enc.ok()) << enc.status().message();
  EXPECT_EQ(*enc->Intern("127.0.0.1:6379"), 1);
  EXPECT_TRUE(enc->AddEvent({.start_ns = 1500, .end_ns = 2000, .action = "kill", .target = "primary",
                             .detail = "pid 1234"})
                  .ok());
  const Record w{.op_id = 1, .client = 1, .seq = 1, .invoke_ns = 1000, .complete_ns = 2500, .key = 7, .node = 1,
                 .f = Op::kWrite};
  EXPECT_TRUE(enc->Add({&w, 1}).ok());
  EXPECT_TRUE(enc->AddEvent({.start_ns = 3000, .end_ns = 3000, .action = "heal", .target = "peers"}).ok());
  EXPECT_EQ(enc->events(), 2u);
  enc->End();
  return enc->Take();
}

constexpr int64_t kGoldenMono = 5000000000;  // the golden files' monotonic time 0

// The history of testdata/golden_v2.hex: golden_v1.hex's in version 2.
History GoldenV2History() {
  History h;
  h.header = {.target_kind = TargetKind::kResp, .keys_fresh = true, .run_tag = 0x0a0b0c0d,
              .start_unix_ns = 1700000000123456789, .start_mono_ns = kGoldenMono, .key_prefix = "key:",
              .target = "redis://127.0.0.1:6379", .writer = "memstand golden"};
  h.strings = {"", "127.0.0.1:6379", "timeout"};
  h.records = {
      {.op_id = 0, .client = 1, .seq = 1, .invoke_ns = 1000, .complete_ns = 2500, .key = 7, .node = 1,
       .f = Op::kWrite},
      {.op_id = 1, .client = 2, .seq = 1, .invoke_ns = 3000, .complete_ns = 4000, .key = 7, .value = ValueId(1, 1),
       .node = 1, .f = Op::kRead, .seen = Seen::kOurs},
      {.op_id = 2, .client = 1, .seq = 2, .invoke_ns = 5000, .complete_ns = 9000, .key = 7, .value = ValueId(1, 1),
       .node = 1, .error = 2, .f = Op::kCas, .outcome = Outcome::kUnknown, .seen = Seen::kOurs},
      {.op_id = 3, .client = 3, .seq = 1, .invoke_ns = 6000, .complete_ns = 6500, .key = 8, .node = 1,
       .f = Op::kRead, .seen = Seen::kAbsent}};
  return h;
}

// The history of testdata/golden_v2_etcd_open.hex: etcd in open loop, every extra.
History GoldenV2EtcdOpenHistory() {
  History h;
  h.header = {.target_kind = TargetKind::kEtcd, .open_loop = true, .run_tag = 0x01020304,
              .start_unix_ns = 1700000000000000000, .start_mono_ns = kGoldenMono, .key_prefix = "k",
              .target = "etcd://127.0.0.1:2379", .writer = "memstand golden"};
  h.strings = {"", "127.0.0.1:2379"};
  h.records = {{.op_id = 0, .client = 5, .seq = 1, .invoke_ns = 100, .complete_ns = 900, .intended_ns = 50,
                .key = 3, .revision = 41, .node = 1, .f = Op::kWrite},
               {.op_id = 1, .client = 6, .seq = 1, .invoke_ns = 1000, .complete_ns = 1200, .intended_ns = 1000,
                .key = 3, .value = ValueId(5, 1), .revision = 41, .node = 1, .f = Op::kRead, .seen = Seen::kOurs}};
  return h;
}

// A history's bytes from the encoder (EncodeHistory), in its version.
std::string Encode(const History& h) {
  auto bytes = EncodeHistory(h);
  EXPECT_TRUE(bytes.ok()) << bytes.status().message();
  return bytes.ok() ? *bytes : std::string();
}

// The history with op ids numbered by place, from 0, as version 2 has them.
History Renumbered(History h) {
  for (size_t i = 0; i < h.records.size(); ++i) h.records[i].op_id = i;
  return h;
}

std::string EventPayload(int64_t start, int64_t end, std::string_view action, std::string_view target = "n",
                         std::string_view detail = "") {
  std::string p;
  fmt_::PutU64(static_cast<uint64_t>(start), &p);
  fmt_::PutU64(static_cast<uint64_t>(end), &p);
  for (std::string_view text : {action, target, detail}) {
    fmt_::PutU16(static_cast<uint16_t>(text.size()), &p);
    p += text;
  }
  return p;
}

// testdata/golden_v1.hex: hex bytes, '#' comments.
std::string ReadHexFile(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  std::string bytes, line;
  while (std::getline(in, line)) {
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::string hex;
    while (words >> hex) bytes.push_back(static_cast<char>(std::stoi(hex, nullptr, 16)));
  }
  return bytes;
}

// A file of the given entries after a valid file header (of version 1 unless told).
std::string FileOf(const std::vector<std::pair<fmt_::EntryType, std::string>>& entries, uint32_t version = 1) {
  std::string out = fmt_::FileHeader(version);
  for (const auto& [type, payload] : entries) fmt_::PutEntry(type, payload, &out);
  return out;
}

RunHeader PlainHeader() {
  RunHeader h;
  h.key_prefix = "k";
  h.target = "redis://127.0.0.1:1";
  h.writer = "t";
  return h;
}

std::string StringPayload(uint16_t id, std::string_view text) {
  std::string p;
  fmt_::PutU16(id, &p);
  return p + std::string(text);
}

std::string RecordsPayload(const std::vector<Record>& rs) {
  std::string p;
  for (const Record& r : rs) fmt_::PutRecordV1(r, &p);
  return p;
}

std::string EndPayload(uint64_t n) {
  std::string p;
  fmt_::PutU64(n, &p);
  return p;
}

Record OkWrite(uint64_t op, uint32_t client, uint32_t seq, int64_t invoke, int64_t complete) {
  return {.op_id = op, .client = client, .seq = seq, .invoke_ns = invoke, .complete_ns = complete, .f = Op::kWrite};
}

// A version 1 file of one run header, the string "timeout" and these records, then the end.
std::string FileWith(const std::vector<Record>& rs, const RunHeader& header = PlainHeader()) {
  return FileOf({{fmt_::EntryType::kRunHeader, fmt_::RunHeaderPayload(header, 1)},
                 {fmt_::EntryType::kString, StringPayload(1, "timeout")},
                 {fmt_::EntryType::kRecords, RecordsPayload(rs)},
                 {fmt_::EntryType::kEnd, EndPayload(rs.size())}});
}

std::string ErrorOf(const std::string& bytes, uint64_t max_records = kDefaultMaxRecords) {
  auto h = ParseHistory("f.hist", bytes, max_records);
  return h.ok() ? "" : h.status().message();
}

TEST(HistoryFormat, Crc32cOfTheCheckValue) {
  EXPECT_EQ(Crc32c("123456789"), 0xE3069283u);
  EXPECT_EQ(Crc32c(""), 0u);
  EXPECT_EQ(Crc32c("6789", Crc32c("12345")), 0xE3069283u);  // continued
  EXPECT_EQ(Crc32cPortable("123456789"), 0xE3069283u);
  EXPECT_EQ(Crc32cPortable("6789", Crc32cPortable("12345")), 0xE3069283u);
}

// The processor's crc32 (where Crc32c uses it) and the table agree on every length and
// alignment, continued or not.
TEST(HistoryFormat, Crc32cAgreesWithThePortableTable) {
  std::string data;
  for (int i = 0; i < 300; ++i) data.push_back(static_cast<char>((i * 131 + 7) & 0xff));
  for (size_t from = 0; from < 9; ++from) {
    for (size_t n = 0; from + n <= data.size(); n += 7) {
      const std::string_view v(data.data() + from, n);
      ASSERT_EQ(Crc32c(v), Crc32cPortable(v)) << from << " " << n;
      ASSERT_EQ(Crc32c(v, 0x12345678u), Crc32cPortable(v, 0x12345678u)) << from << " " << n;
    }
  }
}

TEST(HistoryFormat, ARecordIsSeventyTwoBytesInVersionOneAndFortyAndItsExtrasInTwo) {
  std::string out;
  fmt_::PutRecordV1(Record{}, &out);
  EXPECT_EQ(out.size(), fmt_::kRecordSizeV1);
  const Record plain = OkWrite(0, 1, 1, 10, 20);
  Record all = plain;
  all.value = 7;
  all.revision = 9;
  all.intended_ns = 5;
  const std::pair<Record, bool> cases[] = {{plain, false}, {plain, true}, {all, false}, {all, true}};
  const size_t sizes[] = {40, 48, 56, 64};
  for (size_t i = 0; i < 4; ++i) {
    out.clear();
    fmt_::PutRecordV2(cases[i].first, cases[i].second, 1000, &out);
    ASSERT_EQ(out.size(), sizes[i]) << i;
    size_t size = 0;
    uint8_t extras = 0;
    const Record back = fmt_::GetRecordV2(out.data(), out.size(), &size, &extras);
    EXPECT_EQ(size, sizes[i]);
    EXPECT_EQ(fmt_::GetRecordV2(out.data(), out.size() - 1, &size, &extras).client, 0u);
    EXPECT_EQ(size, 0u);  // cut short: not whole
    EXPECT_EQ(back.invoke_ns, 1010);  // on the monotonic clock
    EXPECT_EQ(back.value, cases[i].first.value);
    EXPECT_EQ(back.revision, cases[i].first.revision);
    EXPECT_EQ(back.intended_ns, cases[i].second ? 1000 + cases[i].first.intended_ns : kNoIntendedTime);
  }
  EXPECT_EQ(fmt_::kMaxRecordSizeV2, 64u);
}

TEST(HistoryFormat, GoldenBytesAreTheEncodersAndReadBack) {
  const std::string golden = ReadHexFile(testutil::SourceDir() + "/src/history/testdata/golden_v1.hex");
  const std::string encoded = GoldenBytes();
  ASSERT_EQ(encoded.size(), golden.size());
  EXPECT_EQ(encoded, golden);
  auto h = ParseHistory("golden", golden);
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->header.run_tag, 0x0a0b0c0du);
  EXPECT_EQ(h->header.start_unix_ns, 1700000000123456789);
  EXPECT_TRUE(h->header.keys_fresh);
  EXPECT_FALSE(h->header.open_loop);
  EXPECT_EQ(h->header.key_prefix, "key:");
  EXPECT_EQ(h->header.writer, "memstand golden");
  EXPECT_EQ(h->strings, (std::vector<std::string>{"", "127.0.0.1:6379", "timeout"}));
  ASSERT_EQ(h->records.size(), 4u);
  EXPECT_EQ(h->records[1].value, ValueId(1, 1));
  EXPECT_EQ(h->records[2].outcome, Outcome::kUnknown);
  EXPECT_EQ(h->String(h->records[2].error), "timeout");
  EXPECT_EQ(h->records[3].seen, Seen::kAbsent);
}

// Version 2 (the one a memstand writes): the bytes of an independent writer are the
// encoder's, and read back as the history they were made from: op ids their places,
// times relative to the monotonic start, every extra.
TEST(HistoryFormat, GoldenVersionTwoBytesAreTheEncodersAndReadBack) {
  const std::pair<const char*, History> goldens[] = {{"golden_v2.hex", GoldenV2History()},
                                                     {"golden_v2_etcd_open.hex", GoldenV2EtcdOpenHistory()}};
  for (const auto& [name, history] : goldens) {
    SCOPED_TRACE(name);
    const std::string golden = ReadHexFile(testutil::SourceDir() + "/src/history/testdata/" + name);
    const std::string encoded = Encode(history);
    ASSERT_EQ(encoded.size(), golden.size());
    EXPECT_EQ(encoded, golden);
    auto h = ParseHistory("golden", golden);
    ASSERT_TRUE(h.ok()) << h.status().message();
    EXPECT_EQ(h->version, 2u);
    EXPECT_EQ(*h, history);
  }
}

// golden_v1.hex's history read back is golden_v2.hex's but for what version 1 has apart:
// its op ids, and no monotonic start.
TEST(HistoryFormat, VersionOneAndTwoOfOneHistoryReadTheSame) {
  auto v1 = ParseHistory("golden", ReadHexFile(testutil::SourceDir() + "/src/history/testdata/golden_v1.hex"));
  auto v2 = ParseHistory("golden", ReadHexFile(testutil::SourceDir() + "/src/history/testdata/golden_v2.hex"));
  ASSERT_TRUE(v1.ok() && v2.ok());
  EXPECT_EQ(v1->version, 1u);
  History same = Renumbered(*v1);
  same.version = 2;
  same.header.start_mono_ns = kGoldenMono;
  EXPECT_EQ(same, *v2);
}

// Events (format version 1 still: an entry type added, docs/history.md says why) among
// the records, in the bytes of an independent writer, read back in file order.
TEST(HistoryFormat, GoldenEventsBytesAreTheEncodersAndReadBack) {
  const std::string golden = ReadHexFile(testutil::SourceDir() + "/src/history/testdata/golden_events_v1.hex");
  const std::string encoded = GoldenEventsBytes();
  ASSERT_EQ(encoded.size(), golden.size());
  EXPECT_EQ(encoded, golden);
  auto h = ParseHistory("golden", golden);
  ASSERT_TRUE(h.ok()) << h.status().message();
  ASSERT_EQ(h->records.size(), 1u);
  const std::vector<Event> want = {
      {.start_ns = 1500, .end_ns = 2000, .action = "kill", .target = "primary", .detail = "pid 1234"},
      {.start_ns = 3000, .end_ns = 3000, .action = "heal", .target = "peers", .detail = ""}};
  EXPECT_EQ(h->events, want);
}

// A history of version 1 before events existed reads as one without events.
TEST(HistoryFormat, AFileWithoutEventsHasNone) {
  auto h = ParseHistory("golden", ReadHexFile(testutil::SourceDir() + "/src/history/testdata/golden_v1.hex"));
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_TRUE(h->events.empty());
}

TEST(HistoryFormat, EventsAtTheirLimitsRoundTripThroughTheFileWriter) {
  HistoryBuilder b;
  b.Write(1, 1, 10, 20);
  const Event longest{.start_ns = 0, .end_ns = INT64_MAX, .action = "a-0" + std::string(29, 'z'),
                      .target = std::string(256, 't'), .detail = std::string("\0\xff", 2) + std::string(1022, 'd')};
  const Event least{.start_ns = 5, .end_ns = 5, .action = "x"};
  b.h.events = {longest, least, least};  // the same event twice is two events
  b.h = Renumbered(b.h);
  const std::string path = ::testing::TempDir() + "/events.hist";
  auto w = HistoryFileWriter::Open("--history", path, b.h.header);
  ASSERT_TRUE(w.ok()) << w.status().message();
  for (const char* s : {"127.0.0.1:6379", "timeout", "READONLY"}) ASSERT_TRUE((*w)->Intern(s).ok());
  ASSERT_TRUE((*w)->AddEvent(longest).ok());
  ASSERT_TRUE((*w)->Add(b.h.records).ok());
  ASSERT_TRUE((*w)->AddEvent(least).ok());
  ASSERT_TRUE((*w)->AddEvent(least).ok());
  ASSERT_TRUE((*w)->Finish().ok());
  auto h = ReadHistoryFile(path);
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(*h, b.h);
}

TEST(HistoryFormat, EncoderRefusesAnEventTheReaderWould) {
  auto enc = HistoryEncoder::Start(PlainHeader());
  ASSERT_TRUE(enc.ok());
  auto refused = [&](const Event& e) {
    Status s = enc->AddEvent(e);
    return s.ok() ? std::string() : s.message();
  };
  EXPECT_NE(refused({.start_ns = 10, .end_ns = 5, .action = "kill"}).find("it ends at 5 ns, before it began"),
            std::string::npos);
  EXPECT_NE(refused({.start_ns = -1, .end_ns = 5, .action = "kill"}).find("its start is negative"),
            std::string::npos);
  EXPECT_NE(refused({.action = "Kill"}).find("the action is not a word"), std::string::npos);
  EXPECT_NE(refused({.action = ""}).find("the action is not a word"), std::string::npos);
  EXPECT_NE(refused({.action = "1kill"}).find("the action is not a word"), std::string::npos);
  EXPECT_NE(refused({.action = std::string(33, 'k')}).find("the action is 33 bytes, above 32"), std::string::npos);
  EXPECT_NE(refused({.action = "kill", .target = std::string(257, 't')}).find("the target is 257 bytes"),
            std::string::npos);
  EXPECT_NE(refused({.action = "kill", .detail = std::string(1025, 'd')}).find("the detail is 1025 bytes"),
            std::string::npos);
  EXPECT_EQ(enc->events(), 0u);
  enc->End();
  EXPECT_NE(refused({.action = "kill"}).find("after the end entry"), std::string::npos);
}

TEST(HistoryFormat, EveryFieldRoundTrips) {
  for (uint32_t version : {1u, 2u}) {
    SCOPED_TRACE(version);
    RunHeader header = PlainHeader();
    header.target_kind = TargetKind::kEtcd;
    header.open_loop = true;
    header.run_tag = 0xffffffff;
    header.start_unix_ns = -5;
    header.start_mono_ns = version == 1 ? 0 : INT64_MAX;  // times wrap around it, and back
    header.key_prefix = std::string("a\0b\xff", 4);  // keys are bytes
    Record r{.op_id = version == 1 ? UINT64_MAX : 0, .client = UINT32_MAX, .seq = UINT32_MAX,
             .invoke_ns = INT64_MAX - 1, .complete_ns = INT64_MAX, .intended_ns = 0, .key = UINT64_MAX,
             .value = UINT64_MAX, .revision = INT64_MAX, .node = 1, .error = 1, .f = Op::kCas,
             .outcome = Outcome::kFail, .seen = Seen::kOurs};
    auto enc = HistoryEncoder::Start(header, version);
    ASSERT_TRUE(enc.ok());
    ASSERT_TRUE(enc->Intern("n").ok());
    ASSERT_TRUE(enc->Add({&r, 1}).ok());
    enc->End();
    auto h = ParseHistory("f", enc->Take());
    ASSERT_TRUE(h.ok()) << h.status().message();
    EXPECT_EQ(h->version, version);
    EXPECT_EQ(h->header, header);
    ASSERT_EQ(h->records.size(), 1u);
    EXPECT_EQ(h->records[0], r);
  }
}

TEST(HistoryFormat, ATarantoolHeaderRoundTripsAndItsFieldsAreChecked) {
  RunHeader header = PlainHeader();
  header.target_kind = TargetKind::kIproto;
  header.key_numbers = true;
  header.key_prefix.clear();
  header.space = 0xfffffffe;
  header.value_field = 0xffff;
  auto enc = HistoryEncoder::Start(header);
  ASSERT_TRUE(enc.ok()) << enc.status().message();
  enc->End();
  auto h = ParseHistory("f", enc->Take());
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->header, header);
  EXPECT_EQ(h->KeyName(42), "42");
  header.value_field = 0;
  EXPECT_FALSE(HistoryEncoder::Start(header).ok());
  RunHeader redis = PlainHeader();
  redis.space = 512;
  EXPECT_FALSE(HistoryEncoder::Start(redis).ok());
}

TEST(HistoryFormat, ManyRecordsSpanEntriesAndFileWriterWritesThemWhole) {
  HistoryBuilder b;
  for (uint32_t i = 0; i < 10000; ++i) b.Write(i + 1, i % 97, i, i + 5);
  b.h = Renumbered(b.h);
  const std::string path = ::testing::TempDir() + "/many.hist";
  auto w = HistoryFileWriter::Open("--history", path, b.h.header);
  ASSERT_TRUE(w.ok()) << w.status().message();
  for (const char* s : {"127.0.0.1:6379", "timeout", "READONLY"}) ASSERT_TRUE((*w)->Intern(s).ok());
  ASSERT_TRUE((*w)->Add(b.h.records).ok());
  ASSERT_TRUE((*w)->Finish().ok());
  auto h = ReadHistoryFile(path);
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(*h, b.h);
}

// The engine's records (AddEngineRecords: laid out by the engine, neither checked nor
// copied into the buffer, each entry's header written before them) make the very file
// Add makes, strings between batches included, extras and all.
TEST(HistoryFormat, EngineRecordsMakeTheSameFileAsCheckedOnes) {
  HistoryBuilder b(TargetKind::kEtcd);
  b.h.header.open_loop = true;
  b.h.header.start_mono_ns = 123456789;
  for (uint32_t i = 0; i < 6000; ++i) b.Write(i + 1, i % 97, i, i + 5);
  for (size_t i = 0; i < b.h.records.size(); ++i) {
    Record& r = b.h.records[i];
    r.intended_ns = r.invoke_ns / 2;
    if (i % 3 == 0) r.revision = static_cast<int64_t>(i + 1);
    if (i % 5 == 0) {
      r.f = Op::kRead;
      r.seen = Seen::kOurs;
      r.value = ValueId(1, 1);
    }
  }
  b.h = Renumbered(b.h);
  const std::span<const Record> all(b.h.records);
  auto write = [&](const std::string& name, bool engine) {
    const std::string path = ::testing::TempDir() + "/" + name;
    auto w = HistoryFileWriter::Open("--history", path, b.h.header);
    EXPECT_TRUE(w.ok()) << w.status().message();
    EXPECT_TRUE((*w)->Intern("127.0.0.1:6379").ok());
    // Batches of many records, of one, strings between them.
    size_t at = 0;
    for (size_t n : {3000u, 2000u, 1u, 999u}) {
      const auto batch = all.subspan(at, n);
      if (engine) {
        std::string bytes;
        for (const Record& r : batch) fmt_::PutRecordV2(r, true, b.h.header.start_mono_ns, &bytes);
        EXPECT_TRUE((*w)->AddEngineRecords(bytes, n).ok());
      } else {
        EXPECT_TRUE((*w)->Add(batch).ok());
      }
      at += n;
      if (at == 3000) {
        EXPECT_TRUE((*w)->Intern("timeout").ok());
      }
      if (at == 5001) {
        EXPECT_TRUE((*w)->Intern("READONLY").ok());
      }
    }
    EXPECT_EQ(at, all.size());
    EXPECT_TRUE((*w)->Finish().ok());
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string checked = write("checked.hist", false);
  const std::string engine = write("engine.hist", true);
  EXPECT_EQ(engine, checked);
  auto h = ParseHistory("engine.hist", engine);
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(*h, b.h);
}

TEST(HistoryFormat, EncoderRefusesWhatTheReaderWould) {
  auto enc = HistoryEncoder::Start(PlainHeader());
  ASSERT_TRUE(enc.ok());
  Record bad = OkWrite(1, 1, 1, 10, 5);  // completes before its invoke
  Status s = enc->Add({&bad, 1});
  EXPECT_NE(s.message().find("completes at 5 ns, before its invoke at 10 ns"), std::string::npos) << s.message();
  EXPECT_EQ(enc->records(), 0u);
  RunHeader long_prefix = PlainHeader();
  long_prefix.key_prefix.assign(2000, 'k');
  EXPECT_FALSE(HistoryEncoder::Start(long_prefix).ok());
  EXPECT_FALSE(enc->Intern(std::string(2000, 's')).ok());
  // Version 2 numbers operations by their place: an op id that is not is refused.
  Record first = OkWrite(0, 1, 1, 10, 20);
  ASSERT_TRUE(enc->Add({&first, 1}).ok());
  Record skipped = OkWrite(5, 2, 1, 10, 20);
  s = enc->Add({&skipped, 1});
  EXPECT_NE(s.message().find("record op 5 at place 1: version 2 numbers operations by their place"),
            std::string::npos)
      << s.message();
  EXPECT_FALSE(HistoryEncoder::Start(PlainHeader(), 3).ok());
  EXPECT_FALSE(HistoryEncoder::Start(PlainHeader(), 0).ok());
  // The engine's records go in version 2 files only, in entries the format allows.
  EXPECT_FALSE(enc->AddEngineEntry("", 0).ok());
  EXPECT_FALSE(enc->AddEngineEntry(std::string(fmt_::kMaxRecordsPayloadV2 + 1, '\0'), 1).ok());
  auto v1 = HistoryEncoder::Start(PlainHeader(), 1);
  ASSERT_TRUE(v1.ok());
  EXPECT_FALSE(v1->AddEngineEntry(std::string(40, '\0'), 1).ok());
  // A whole history whose table holds a text twice has no encoding.
  History twice;
  twice.header = PlainHeader();
  twice.strings = {"", "a", "a"};
  auto none = EncodeHistory(twice);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("string 2 ('a') is the table's string 1 again"), std::string::npos)
      << none.status().message();
}

// Version 2's times are the engine's clock readings: an invoke that precedes its
// client's previous completion (a request stamped with its loop's time before a reply
// of the same wake-up was handled) is moved to it, and a completion before its invoke
// to the invoke; version 1 refuses both (its engine moved them before writing).
TEST(HistoryFormat, VersionTwoMovesAnInvokeToItsClientsPreviousCompletion) {
  History h;
  h.header = PlainHeader();
  h.header.start_mono_ns = 1000000;
  h.records = {OkWrite(0, 1, 1, 100, 200), OkWrite(1, 1, 2, 150, 160), OkWrite(2, 1, 3, 170, 400),
               OkWrite(3, 2, 1, 50, 60)};
  std::string bytes = Encode(h);
  auto read = ParseHistory("f", bytes);
  ASSERT_TRUE(read.ok()) << read.status().message();
  // op 1 invoked at 150, before op 0 completed at 200: 200, and its completion (160) too.
  EXPECT_EQ(read->records[1].invoke_ns, 200);
  EXPECT_EQ(read->records[1].complete_ns, 200);
  // op 2 (invoked 170) follows op 1 as moved (200): 200, its completion kept.
  EXPECT_EQ(read->records[2].invoke_ns, 200);
  EXPECT_EQ(read->records[2].complete_ns, 400);
  EXPECT_EQ(read->records[0], h.records[0]);
  EXPECT_EQ(read->records[3], h.records[3]);
  // A completion before its invoke, as bytes (the encoder refuses to write one).
  std::string payload;
  Record backwards = OkWrite(0, 1, 1, 300, 300);
  fmt_::PutRecordV2(backwards, false, h.header.start_mono_ns, &payload);
  const uint64_t earlier = static_cast<uint64_t>(h.header.start_mono_ns) + 250;
  for (int i = 0; i < 8; ++i) payload[16 + i] = static_cast<char>(earlier >> (8 * i));
  auto moved = ParseHistory("f", FileOf({{fmt_::EntryType::kRunHeader, fmt_::RunHeaderPayload(h.header, 2)},
                                         {fmt_::EntryType::kRecords, payload},
                                         {fmt_::EntryType::kEnd, EndPayload(1)}},
                                        2));
  ASSERT_TRUE(moved.ok()) << moved.status().message();
  EXPECT_EQ(moved->records[0].invoke_ns, 300);
  EXPECT_EQ(moved->records[0].complete_ns, 300);
}

struct Malformed {
  const char* name;
  std::string bytes;
  std::string says;
};

// Malformed event entries, each in a file otherwise whole.
void AddMalformedEvents(const std::function<void(const char*, std::string, std::string)>& add) {
  auto with_event = [](std::string payload) {
    return FileOf({{fmt_::EntryType::kRunHeader, fmt_::RunHeaderPayload(PlainHeader(), 1)},
                   {fmt_::EntryType::kEvent, std::move(payload)},
                   {fmt_::EntryType::kEnd, EndPayload(0)}});
  };
  add("event ends before it began", with_event(EventPayload(100, 99, "kill")),
      "offset 80: event 'kill' at 100 ns: it ends at 99 ns, before it began");
  add("event before time 0", with_event(EventPayload(-5, 10, "kill")), "its start is negative");
  add("event action empty", with_event(EventPayload(0, 1, "")), "the action is not a word");
  add("event action not a word", with_event(EventPayload(0, 1, "kill -9")), "the action is not a word");
  add("event action too long", with_event(EventPayload(0, 1, std::string(33, 'k'))),
      "event: a text runs past the entry or above its limit");
  add("event target too long", with_event(EventPayload(0, 1, "cut", std::string(257, 't'))),
      "event: a text runs past the entry or above its limit");
  add("event detail too long", with_event(EventPayload(0, 1, "cut", "l", std::string(1025, 'd'))),
      "event: a text runs past the entry or above its limit");
  std::string past = EventPayload(0, 1, "cut");
  past[16] = 40;  // the action's length runs past the entry
  add("event text past the entry", with_event(past), "event: a text runs past the entry");
  add("event trailing bytes", with_event(EventPayload(0, 1, "cut") + "zz"), "event: 2 bytes after its last text");
  add("event too short", with_event(std::string(21, '\0')),
      "an event entry of 21 bytes: the length is shorter than its fixed fields (22 bytes)");
  add("event too long", with_event(std::string(fmt_::kMaxEventPayload + 1, '\0')),
      "an event entry of 1335 bytes: the length is above its limit of 1334 bytes");
  add("event before the run header", FileOf({{fmt_::EntryType::kEvent, EventPayload(0, 1, "kill")}}),
      "the first entry is an event entry, not the run header");
  add("event after the end", with_event(EventPayload(0, 1, "kill")) + [] {
    std::string e;
    fmt_::PutEntry(fmt_::EntryType::kEvent, EventPayload(0, 1, "kill"), &e);
    return e;
  }(), "bytes after the end entry");
  std::string cut = with_event(EventPayload(0, 1, "kill", "primary", "pid 1"));
  add("cut in an event", cut.substr(0, 24 + 9 + fmt_::RunHeaderPayload(PlainHeader(), 1).size() + 9 + 10),
      "the file ends inside an event entry (10 of its 38 bytes present)");
}

// Malformed version 2 files: records whose bytes or extras the format does not allow.
void AddMalformedVersionTwo(const std::function<void(const char*, std::string, std::string)>& add) {
  RunHeader closed = PlainHeader();
  closed.start_mono_ns = 1000;
  RunHeader open = closed;
  open.open_loop = true;
  RunHeader etcd = closed;
  etcd.target_kind = TargetKind::kEtcd;
  auto file = [](const RunHeader& header, const std::string& records, uint64_t count = 1) {
    return FileOf({{fmt_::EntryType::kRunHeader, fmt_::RunHeaderPayload(header, 2)},
                   {fmt_::EntryType::kString, StringPayload(1, "timeout")},
                   {fmt_::EntryType::kRecords, records},
                   {fmt_::EntryType::kEnd, EndPayload(count)}},
                  2);
  };
  auto bytes_of = [](const Record& r, const RunHeader& header) {
    std::string p;
    fmt_::PutRecordV2(r, header.open_loop, header.start_mono_ns, &p);
    return p;
  };
  const std::string write = bytes_of(OkWrite(0, 1, 1, 0, 10), closed);
  add("v2 bytes after the end", file(closed, write) + "x", "bytes after the end entry");
  add("v2 record past its entry", file(closed, write + write.substr(0, 39), 2),
      "record op 1: it runs past its entry's end (39 bytes left");
  std::string extras_past = write;
  extras_past[39] = fmt_::kExtraValue;  // says a value follows, and none does
  add("v2 extra past its entry", file(closed, extras_past), "record op 0: it runs past its entry's end (40 bytes left");
  std::string undefined = write + std::string(8, '\0');
  undefined[39] = static_cast<char>(0x80 | fmt_::kExtraValue);
  undefined[40] = 1;
  add("v2 undefined extras", file(closed, undefined),
      "record op 0: extras byte 0x81 holds bits version 2 does not define");
  std::string zero_value = write + std::string(8, '\0');
  zero_value[39] = fmt_::kExtraValue;
  add("v2 value extra of 0", file(closed, zero_value), "a value extra of 0");
  std::string zero_revision = write + std::string(8, '\0');
  zero_revision[39] = fmt_::kExtraRevision;
  add("v2 revision extra of 0", file(etcd, zero_revision), "a revision extra of 0");
  add("v2 open loop without intended", file(open, write), "no intended time in an open-loop run");
  Record timed = OkWrite(0, 1, 1, 0, 10);
  timed.intended_ns = 0;
  add("v2 closed loop with intended", file(closed, bytes_of(timed, open)), "an intended time in a closed-loop run");
  Record late = OkWrite(0, 1, 1, 10, 20);
  late.intended_ns = 15;  // after its invoke
  add("v2 intended after invoke", file(open, bytes_of(late, open)),
      "open loop: intended time 15 ns is not within 0..invoke (10 ns)");
  add("v2 invoke before time 0", file(closed, bytes_of(OkWrite(0, 1, 1, -5, 10), closed)),
      "record op 0: invoke time -5 ns is negative");
  Record read_value = OkWrite(0, 1, 1, 0, 10);
  read_value.value = 9;  // a write with a value
  add("v2 write with a value", file(closed, bytes_of(read_value, closed)),
      "a value is given but seen does not say ours");
  Record revision = OkWrite(0, 1, 1, 0, 10);
  revision.revision = 4;
  add("v2 revision outside etcd", file(closed, bytes_of(revision, closed)),
      "a revision in a history that is not etcd's");
  add("v2 records shorter than a record", file(closed, write.substr(0, 39)),
      "a records entry of 39 bytes: the length is shorter than a record (40 bytes)");
  std::string huge = fmt_::FileHeader(2) + "\x03";
  fmt_::PutU32(fmt_::kMaxRecordsPayloadV2 + 1, &huge);
  fmt_::PutU32(0, &huge);
  add("v2 records above the limit", huge, "a records entry of 262145 bytes: the length is above its limit of 262144");
  add("v2 run header short", FileOf({{fmt_::EntryType::kRunHeader, fmt_::RunHeaderPayload(RunHeader{}, 1)}}, 2),
      "a run header entry of 26 bytes: the length is shorter than its fixed fields (34 bytes)");
  add("v2 client goes on after unknown", [&] {
    Record unknown = OkWrite(0, 1, 1, 0, 10);
    unknown.outcome = Outcome::kUnknown;
    unknown.error = 1;
    return file(closed, bytes_of(unknown, closed) + bytes_of(OkWrite(1, 1, 2, 20, 30), closed), 2);
  }(), "follows op 0 (seq 1), whose outcome is unknown");
  add("v2 client seq twice", file(closed, write + bytes_of(OkWrite(1, 1, 1, 20, 30), closed), 2),
      "op 0 and op 1 are both client 1 seq 1");
}

std::vector<Malformed> MalformedFiles() {
  const std::string good = FileWith({OkWrite(1, 1, 1, 0, 10)});
  std::vector<Malformed> cases;
  auto add = [&](const char* name, std::string bytes, std::string says) {
    cases.push_back({name, std::move(bytes), std::move(says)});
  };
  auto with = [](std::function<void(Record*)> change) {
    Record r = OkWrite(1, 1, 1, 0, 10);
    change(&r);
    return FileWith({r});
  };
  add("empty", "", "offset 0: the file ends inside its 24-byte header");
  add("text", "hello, this is not a history file", "not a memstand history");
  std::string v3 = good;
  v3[16] = 3;
  add("version 3", v3, "offset 16: format version 3; this memstand reads versions 1 to 2");
  std::string v0 = good;
  v0[16] = 0;
  add("version 0", v0, "offset 16: format version 0; this memstand reads versions 1 to 2");
  std::string flags = good;
  flags[20] = 1;
  add("file flags", flags, "file flags 0x1");
  add("cut in an entry header", good.substr(0, 30), "offset 30: the file ends inside an entry's 9-byte header");
  add("cut in a payload", good.substr(0, good.size() - 20), "inside a records entry (");
  add("no end entry", good.substr(0, good.size() - 17), "ends after 1 records without its end entry");
  add("bytes after the end", good + "x", "bytes after the end entry");
  std::string damaged = good;
  damaged[40] ^= 1;
  add("damaged payload", damaged, "checksum");
  std::string bad_type = fmt_::FileHeader(1) + std::string("\x09\x01\x00\x00\x00\x00\x00\x00\x00", 9);
  add("unknown entry type", bad_type, "offset 24: entry type 9 is not one of");
  std::string huge = fmt_::FileHeader(1) + "\x03";
  fmt_::PutU32(72 * 10000, &huge);  // whole records, above the limit: refused before it is buffered
  fmt_::PutU32(0, &huge);
  add("huge length", huge, "a records entry of 720000 bytes: the length is above its limit of 294912 bytes");
  std::string odd = fmt_::FileHeader(1) + "\x03";
  fmt_::PutU32(0x7fffffff, &odd);
  fmt_::PutU32(0, &odd);
  add("odd length", odd, "a records entry of 2147483647 bytes: the length is not a whole number");
  add("records not whole", FileOf({{fmt_::EntryType::kRunHeader, fmt_::RunHeaderPayload(PlainHeader(), 1)},
                                   {fmt_::EntryType::kRecords, std::string(100, '\0')}}),
      "72-byte records");
  add("no run header first", FileOf({{fmt_::EntryType::kEnd, EndPayload(0)}}),
      "the first entry is an end entry, not the run header");
  add("two run headers", FileOf({{fmt_::EntryType::kRunHeader, fmt_::RunHeaderPayload(PlainHeader(), 1)},
                                 {fmt_::EntryType::kRunHeader, fmt_::RunHeaderPayload(PlainHeader(), 1)}}),
      "a second run header");
  std::string kind = fmt_::RunHeaderPayload(PlainHeader(), 1);
  kind[0] = 7;
  add("target kind", FileOf({{fmt_::EntryType::kRunHeader, kind}}), "target kind 7");
  std::string header_flags = fmt_::RunHeaderPayload(PlainHeader(), 1);
  header_flags[1] = 0x10;
  add("run header flags", FileOf({{fmt_::EntryType::kRunHeader, header_flags}}), "flags 0x10");
  std::string text_past = fmt_::RunHeaderPayload(PlainHeader(), 1);
  text_past[20] = 100;  // the key prefix's length runs past the entry
  add("header text past the entry", FileOf({{fmt_::EntryType::kRunHeader, text_past}}), "runs past the entry");
  std::string value_field = fmt_::RunHeaderPayload(PlainHeader(), 1);
  value_field[2] = 1;  // a value field in a redis history
  add("value field outside tarantool", FileOf({{fmt_::EntryType::kRunHeader, value_field}}),
      "a value field or a space outside a tarantool history");
  RunHeader tarantool = PlainHeader();
  tarantool.target_kind = TargetKind::kIproto;
  add("tarantool without value field", FileOf({{fmt_::EntryType::kRunHeader, fmt_::RunHeaderPayload(tarantool, 1)}}),
      "a tarantool history's value field is 0");
  tarantool.value_field = 1;
  tarantool.key_numbers = true;
  tarantool.key_prefix = "key:";
  add("key numbers with a prefix", FileOf({{fmt_::EntryType::kRunHeader, fmt_::RunHeaderPayload(tarantool, 1)}}),
      "keys are numbers, yet there is a key prefix");
  add("header trailing bytes", FileOf({{fmt_::EntryType::kRunHeader, fmt_::RunHeaderPayload(PlainHeader(), 1) + "zz"}}),
      "2 bytes after its last text");
  add("string id skips", FileOf({{fmt_::EntryType::kRunHeader, fmt_::RunHeaderPayload(PlainHeader(), 1)},
                                 {fmt_::EntryType::kString, StringPayload(2, "x")}}),
      "string id 2 where id 1 comes next");
  add("string twice", FileOf({{fmt_::EntryType::kRunHeader, fmt_::RunHeaderPayload(PlainHeader(), 1)},
                              {fmt_::EntryType::kString, StringPayload(1, "x")},
                              {fmt_::EntryType::kString, StringPayload(2, "x")}}),
      "string id 2 repeats the text of id 1");
  add("string empty", FileOf({{fmt_::EntryType::kRunHeader, fmt_::RunHeaderPayload(PlainHeader(), 1)},
                              {fmt_::EntryType::kString, StringPayload(1, "")}}),
      "string id 1 is empty");
  add("f 0", with([](Record* r) { r->f = static_cast<Op>(0); }), "f 0 is not read (1), write (2) or cas (3)");
  add("outcome 9", with([](Record* r) { r->outcome = static_cast<Outcome>(9); }), "outcome 9 is not ok");
  add("seen 7", with([](Record* r) { r->seen = static_cast<Seen>(7); }), "seen 7 is not 0..3");
  add("negative invoke", with([](Record* r) { r->invoke_ns = -1; }), "invoke time -1 ns is negative");
  add("fail without error", with([](Record* r) { r->outcome = Outcome::kFail; }), "ended fail without an error kind");
  add("ok with error", with([](Record* r) { r->error = 1; }), "ended ok, yet has an error kind");
  add("undefined string", with([](Record* r) { r->node = 5; }), "string id 5 is not in the table");
  add("revision outside etcd", with([](Record* r) { r->revision = 3; }), "a revision in a history that is not etcd's");
  add("intended in closed loop", with([](Record* r) { r->intended_ns = 0; }), "an intended time in a closed-loop run");
  add("write that saw", with([](Record* r) { r->seen = Seen::kAbsent; }), "a write says what it saw");
  add("value without ours", with([](Record* r) { r->value = 3; }), "a value is given but seen does not say ours");
  add("read ok saw nothing", with([](Record* r) { r->f = Op::kRead; }), "a read that ended ok says nothing");
  add("cas expecting foreign", with([](Record* r) {
        r->f = Op::kCas;
        r->seen = Seen::kForeign;
      }),
      "a cas expects neither");
  std::string reserved = RecordsPayload({OkWrite(1, 1, 1, 0, 10)});
  reserved[71] = 1;  // the record's last byte (the entry's CRC is computed over it)
  add("reserved byte", FileOf({{fmt_::EntryType::kRunHeader, fmt_::RunHeaderPayload(PlainHeader(), 1)},
                               {fmt_::EntryType::kRecords, reserved},
                               {fmt_::EntryType::kEnd, EndPayload(1)}}),
      "reserved byte 1 is not 0");
  add("end count", FileOf({{fmt_::EntryType::kRunHeader, fmt_::RunHeaderPayload(PlainHeader(), 1)},
                           {fmt_::EntryType::kEnd, EndPayload(3)}}),
      "the end entry counts 3 records; the file holds 0");
  add("op id twice", FileWith({OkWrite(7, 1, 1, 0, 10), OkWrite(7, 2, 1, 0, 10)}), "op id 7 appears twice");
  add("client seq twice", FileWith({OkWrite(1, 1, 1, 0, 10), OkWrite(2, 1, 1, 20, 30)}),
      "op 1 and op 2 are both client 1 seq 1");
  add("client overlaps itself", FileWith({OkWrite(1, 1, 1, 0, 10), OkWrite(2, 1, 2, 5, 30)}),
      "client 1: op 2 (seq 2) is invoked at 5 ns, before op 1 (seq 1) completed at 10 ns");
  Record unknown = OkWrite(1, 1, 1, 0, 10);
  unknown.outcome = Outcome::kUnknown;
  unknown.error = 1;
  add("client goes on after unknown", FileWith({unknown, OkWrite(2, 1, 2, 20, 30)}),
      "follows op 1 (seq 1), whose outcome is unknown");
  AddMalformedEvents(add);
  AddMalformedVersionTwo(add);
  return cases;
}

TEST(HistoryFormat, EveryMalformedFileIsRefusedWithItsReason) {
  for (const Malformed& m : MalformedFiles()) {
    SCOPED_TRACE(m.name);
    const std::string error = ErrorOf(m.bytes);
    EXPECT_EQ(error.rfind("f.hist: ", 0), 0u) << error;
    EXPECT_NE(error.find(m.says), std::string::npos) << error;
  }
}

TEST(HistoryFormat, MoreRecordsThanTheLimitAreRefused) {
  const std::string file = FileWith({OkWrite(1, 1, 1, 0, 10), OkWrite(2, 2, 1, 0, 10)});
  EXPECT_EQ(ErrorOf(file, 2), "");
  EXPECT_NE(ErrorOf(file, 1).find("more than 1 records"), std::string::npos);
  History h;
  h.header = PlainHeader();
  h.records = {OkWrite(0, 1, 1, 0, 10), OkWrite(1, 2, 1, 0, 10)};
  const std::string v2 = Encode(h);
  EXPECT_EQ(ErrorOf(v2, 2), "");
  EXPECT_NE(ErrorOf(v2, 1).find("more than 1 records"), std::string::npos);
}

// The outcome of feeding `bytes` in pieces: the history or the error, as text.
std::string OutcomeOfPieces(const std::string& bytes, const std::vector<size_t>& cuts) {
  HistoryReader reader("f.hist");
  size_t at = 0;
  for (size_t cut : cuts) {
    if (!reader.Feed(std::string_view(bytes).substr(at, cut - at)).ok()) break;
    at = cut;
  }
  if (at < bytes.size()) reader.Feed(std::string_view(bytes).substr(at));
  auto h = reader.Finish();
  if (!h.ok()) return "error: " + h.status().message();
  return "ok: " + std::to_string(h->records.size()) + " records, " + std::to_string(h->strings.size()) + " strings";
}

TEST(HistoryFormat, EverySplitGivesTheSameOutcome) {
  std::vector<std::string> inputs = {GoldenBytes(), GoldenEventsBytes(), Encode(GoldenV2History()),
                                     Encode(GoldenV2EtcdOpenHistory())};
  for (const Malformed& m : MalformedFiles()) inputs.push_back(m.bytes);
  Rng rng(29);
  for (const std::string& bytes : inputs) {
    const std::string whole = OutcomeOfPieces(bytes, {});
    std::vector<size_t> every;
    for (size_t i = 1; i < bytes.size(); ++i) every.push_back(i);
    EXPECT_EQ(OutcomeOfPieces(bytes, every), whole);  // a byte at a time
    for (int round = 0; round < 20; ++round) {
      std::vector<size_t> cuts;
      for (size_t at = 0; bytes.size() > 1;) {
        at += 1 + rng.Uniform(40);
        if (at >= bytes.size()) break;
        cuts.push_back(at);
      }
      EXPECT_EQ(OutcomeOfPieces(bytes, cuts), whole);
    }
  }
}

TEST(HistoryFormat, ReadHistoryFileNamesThePath) {
  auto missing = ReadHistoryFile("/nonexistent/h.hist");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), "/nonexistent/h.hist: No such file or directory");
  auto dir = ReadHistoryFile(::testing::TempDir());
  ASSERT_FALSE(dir.ok());
  EXPECT_NE(dir.status().message().find("not a regular file"), std::string::npos) << dir.status().message();
}

}  // namespace
}  // namespace memstand::history

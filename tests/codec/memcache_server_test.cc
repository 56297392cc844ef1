// The memcache codec against a real memcached (Debian's), over a blocking loopback
// socket; counts checked against the server's own `stats`.
#include <gtest/gtest.h>

#include <string>

#include "codec/server_util.h"
#include "proto/memcache/memcache.h"

namespace memstand::memcache {
namespace {

using codec_test::BlockingConn;

class MemcacheServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = codec_test::StartMemcached();
    ASSERT_TRUE(server.ok()) << server.status().message();
    server_ = std::move(*server);
    auto conn = BlockingConn::Connect(server_->port());
    ASSERT_TRUE(conn.ok()) << conn.status().message();
    conn_ = std::move(*conn);
  }

  // Sends what `out` holds and reads one reply in full mode.
  Reply RoundTrip() {
    EXPECT_TRUE(conn_->Send(out_).ok());
    out_.Clear();
    Status s = conn_->ReadReply(&reader_);
    EXPECT_TRUE(s.ok()) << s.message();
    return s.ok() ? reader_.TakeReply() : Reply();
  }

  std::map<std::string, std::string> Stats() {
    AppendStats(&out_);
    return StatsMap(RoundTrip());
  }

  std::unique_ptr<codec_test::TestServer> server_;
  std::unique_ptr<BlockingConn> conn_;
  Buffer out_;
  Reader reader_{Reader::Mode::kFull};
};

TEST_F(MemcacheServerTest, EveryCommandAndItsReply) {
  AppendGet(&out_, "k");
  EXPECT_EQ(RoundTrip().values.size(), 0u);  // a miss
  AppendStore(&out_, StoreCommand::kSet, "k", 42, 0, "hello\r\nworld");
  EXPECT_EQ(RoundTrip().kind, Kind::kStored);
  AppendGet(&out_, "k", /*with_cas=*/true);
  Reply got = RoundTrip();
  ASSERT_EQ(got.values.size(), 1u);
  EXPECT_EQ(got.values[0].data, "hello\r\nworld");
  EXPECT_EQ(got.values[0].flags, 42u);
  ASSERT_TRUE(got.values[0].has_cas);
  const uint64_t cas = got.values[0].cas;

  AppendCas(&out_, "k", 0, 0, "v2", cas + 1000);
  EXPECT_EQ(RoundTrip().kind, Kind::kExists);
  AppendCas(&out_, "k", 0, 0, "v2", cas);
  EXPECT_EQ(RoundTrip().kind, Kind::kStored);
  AppendCas(&out_, "nokey", 0, 0, "v", 1);
  EXPECT_EQ(RoundTrip().kind, Kind::kNotFound);
  AppendStore(&out_, StoreCommand::kAdd, "k", 0, 0, "x");
  EXPECT_EQ(RoundTrip().kind, Kind::kNotStored);
  AppendStore(&out_, StoreCommand::kReplace, "k", 0, 0, "mid");
  EXPECT_EQ(RoundTrip().kind, Kind::kStored);
  AppendStore(&out_, StoreCommand::kAppend, "k", 0, 0, ">");
  EXPECT_EQ(RoundTrip().kind, Kind::kStored);
  AppendStore(&out_, StoreCommand::kPrepend, "k", 0, 0, "<");
  EXPECT_EQ(RoundTrip().kind, Kind::kStored);
  std::vector<std::string_view> keys = {"k", "missing", "k"};
  AppendGet(&out_, keys);
  Reply multi = RoundTrip();
  ASSERT_EQ(multi.values.size(), 2u);
  EXPECT_EQ(multi.values[0].data, "<mid>");

  AppendStore(&out_, StoreCommand::kSet, "n", 0, 0, "10");
  EXPECT_EQ(RoundTrip().kind, Kind::kStored);
  AppendIncr(&out_, "n", 5);
  Reply incr = RoundTrip();
  EXPECT_EQ(incr.kind, Kind::kNumber);
  EXPECT_EQ(incr.number, 15u);
  AppendDecr(&out_, "n", 100);
  EXPECT_EQ(RoundTrip().number, 0u);  // memcached stops decr at 0
  AppendIncr(&out_, "k", 1);
  Reply bad_incr = RoundTrip();
  EXPECT_EQ(bad_incr.kind, Kind::kClientError);
  EXPECT_EQ(bad_incr.text, "cannot increment or decrement non-numeric value");
  AppendTouch(&out_, "k", 100);
  EXPECT_EQ(RoundTrip().kind, Kind::kTouched);
  AppendDelete(&out_, "k");
  EXPECT_EQ(RoundTrip().kind, Kind::kDeleted);
  AppendDelete(&out_, "k");
  EXPECT_EQ(RoundTrip().kind, Kind::kNotFound);
  AppendVersion(&out_);
  Reply version = RoundTrip();
  EXPECT_EQ(version.kind, Kind::kVersion);
  EXPECT_EQ(version.text.substr(0, 4), "1.6.");
  out_.Append("bogus\r\n");
  EXPECT_EQ(RoundTrip().kind, Kind::kError);
  // noreply: no answer; the next command's reply is the next one read.
  AppendStore(&out_, StoreCommand::kSet, "q", 0, 0, "quiet", /*noreply=*/true);
  AppendGet(&out_, "q");
  EXPECT_EQ(RoundTrip().values.at(0).data, "quiet");
  AppendStats(&out_, "settings");
  auto settings = StatsMap(RoundTrip());
  EXPECT_EQ(settings["maxbytes"], std::to_string(64 * 1024 * 1024));
}

// A pipelined burst read in summary mode; our counts must equal memcached's.
TEST_F(MemcacheServerTest, PipelinedCountsMatchServerStats) {
  const auto before = Stats();
  constexpr int kKeys = 500;
  for (int i = 0; i < kKeys; ++i) {
    const std::string key = "key:" + std::to_string(i);
    if (i % 2 == 0) AppendStore(&out_, StoreCommand::kSet, key, 0, 0, std::string(100 + i, 'v'));
    AppendGet(&out_, key);
  }
  ASSERT_TRUE(conn_->Send(out_).ok());
  out_.Clear();
  Reader summary_reader(Reader::Mode::kSummary);
  int sets = 0, gets = 0, hits = 0, misses = 0;
  size_t wire = 0;
  const size_t read_before = conn_->bytes_read();
  for (int i = 0; i < kKeys + kKeys / 2; ++i) {
    Status s = conn_->ReadReply(&summary_reader);
    ASSERT_TRUE(s.ok()) << s.message();
    const Summary& sum = summary_reader.summary();
    wire += sum.wire_bytes;
    if (sum.kind == Kind::kStored) ++sets;
    if (sum.kind == Kind::kValues) {
      ++gets;
      (sum.hit() ? hits : misses)++;
    }
  }
  EXPECT_EQ(sets, kKeys / 2);
  EXPECT_EQ(hits, kKeys / 2);
  EXPECT_EQ(misses, kKeys / 2);
  EXPECT_EQ(wire, conn_->bytes_read() - read_before);  // every byte read is in a reply

  const auto after = Stats();
  auto delta = [&](const char* name) {
    return std::stoll(after.at(name)) - std::stoll(before.at(name));
  };
  EXPECT_EQ(delta("cmd_set"), sets);
  EXPECT_EQ(delta("cmd_get"), gets);
  EXPECT_EQ(delta("get_hits"), hits);
  EXPECT_EQ(delta("get_misses"), misses);
  EXPECT_EQ(std::stoll(after.at("curr_items")), kKeys / 2);
}

}  // namespace
}  // namespace memstand::memcache

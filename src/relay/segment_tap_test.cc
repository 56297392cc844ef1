// The segment tap: its header parser on made-up packets (malformed ones included), and on
// loopback with real sockets, two writes that TCP merges in the receiver's socket (as
// rx_stamp_test.cc shows a read cannot tell apart) recovered as two segments with their
// own arrivals. Assertions compare recorded values with each other and with clock
// readings taken around the sends (causal order), never with a duration.
#include "relay/segment_tap.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "core/clock.h"
#include "core/socket.h"
#include "relay/loopback_test_util.h"
#include "relay/rx_stamp.h"

namespace memstand {
namespace segment_tap_test {

// An IPv4 packet: 20-byte IP header, a TCP header of tcp_header bytes, payload bytes.
std::vector<uint8_t> V4Packet(uint32_t seq, size_t payload, uint8_t flags = 0x18, size_t tcp_header = 20) {
  std::vector<uint8_t> p(20 + tcp_header + payload, 0);
  const size_t total = p.size();
  p[0] = 0x45;
  p[2] = static_cast<uint8_t>(total >> 8);
  p[3] = static_cast<uint8_t>(total);
  p[6] = 0x40;  // don't fragment
  p[9] = IPPROTO_TCP;
  const uint8_t src[4] = {127, 0, 0, 1}, dst[4] = {127, 0, 0, 2};
  std::copy(src, src + 4, p.begin() + 12);
  std::copy(dst, dst + 4, p.begin() + 16);
  uint8_t* t = p.data() + 20;
  t[0] = 0x9c;  // source port 40000
  t[1] = 0x40;
  t[2] = 0x1b;  // destination port 7000
  t[3] = 0x58;
  t[4] = static_cast<uint8_t>(seq >> 24);
  t[5] = static_cast<uint8_t>(seq >> 16);
  t[6] = static_cast<uint8_t>(seq >> 8);
  t[7] = static_cast<uint8_t>(seq);
  t[12] = static_cast<uint8_t>((tcp_header / 4) << 4);
  t[13] = flags;
  return p;
}

TEST(ParseTcpPacket, ReadsAnIpv4Segment) {
  const auto p = V4Packet(0x01020304, 7);
  TapSegment s;
  ASSERT_TRUE(ParseTcpPacket(p.data(), p.size(), &s));
  EXPECT_EQ(s.seq, 0x01020304u);
  EXPECT_EQ(s.payload, 7u);
  EXPECT_EQ(s.tuple.src_port, 40000);
  EXPECT_EQ(s.tuple.dst_port, 7000);
  EXPECT_EQ(s.tuple.src[10], 0xff);  // IPv4-mapped
  EXPECT_EQ(s.tuple.src[12], 127);
  EXPECT_EQ(s.tuple.dst[15], 2);
  EXPECT_FALSE(s.syn);
  // Cut to its headers (the filter's snap length), the payload still counts.
  TapSegment cut;
  ASSERT_TRUE(ParseTcpPacket(p.data(), 40, &cut));
  EXPECT_EQ(cut.payload, 7u);
  const auto syn = V4Packet(99, 0, 0x02, 40);
  ASSERT_TRUE(ParseTcpPacket(syn.data(), syn.size(), &s));
  EXPECT_TRUE(s.syn);
  EXPECT_EQ(s.payload, 0u);
}

TEST(ParseTcpPacket, ReadsAnIpv6Segment) {
  std::vector<uint8_t> p(40 + 20 + 3, 0);
  p[0] = 0x60;
  p[5] = 23;  // payload length: TCP header and data
  p[6] = IPPROTO_TCP;
  p[23] = 1;  // ::1
  p[39] = 1;
  p[40 + 3] = 80;
  p[40 + 7] = 5;
  p[40 + 12] = 0x50;
  TapSegment s;
  ASSERT_TRUE(ParseTcpPacket(p.data(), p.size(), &s));
  EXPECT_EQ(s.payload, 3u);
  EXPECT_EQ(s.seq, 5u);
  EXPECT_EQ(s.tuple.dst_port, 80);
  EXPECT_EQ(s.tuple.dst[15], 1);
}

TEST(ParseTcpPacket, RefusesMalformedFramesWithoutReadingPastThem) {
  TapSegment s;
  const auto good = V4Packet(1, 10);
  for (size_t len = 0; len < 40; ++len) {  // every truncation short of both headers
    std::vector<uint8_t> cut(good.begin(), good.begin() + static_cast<long>(len));  // exact size: ASan sees overreads
    EXPECT_FALSE(ParseTcpPacket(cut.data(), cut.size(), &s)) << len;
  }
  auto bad = good;
  bad[0] = 0x44;  // IHL 16 bytes
  EXPECT_FALSE(ParseTcpPacket(bad.data(), bad.size(), &s));
  bad = good;
  bad[0] = 0x4f;  // IHL 60 bytes, longer than what was captured
  EXPECT_FALSE(ParseTcpPacket(bad.data(), 40, &s));
  bad = good;
  bad[9] = IPPROTO_UDP;
  EXPECT_FALSE(ParseTcpPacket(bad.data(), bad.size(), &s));
  bad = good;
  bad[7] = 1;  // fragment offset
  EXPECT_FALSE(ParseTcpPacket(bad.data(), bad.size(), &s));
  bad = good;
  bad[6] = 0x20;  // more fragments
  EXPECT_FALSE(ParseTcpPacket(bad.data(), bad.size(), &s));
  bad = good;
  bad[2] = 0;
  bad[3] = 30;  // total length shorter than both headers
  EXPECT_FALSE(ParseTcpPacket(bad.data(), bad.size(), &s));
  bad = good;
  bad[20 + 12] = 0x40;  // TCP data offset 16 bytes
  EXPECT_FALSE(ParseTcpPacket(bad.data(), bad.size(), &s));
  bad = good;
  bad[20 + 12] = 0xf0;  // 60 bytes, past the total length
  EXPECT_FALSE(ParseTcpPacket(bad.data(), bad.size(), &s));
  bad = good;
  bad[0] = 0x75;  // version 7
  EXPECT_FALSE(ParseTcpPacket(bad.data(), bad.size(), &s));
  std::vector<uint8_t> v6(60, 0);
  v6[0] = 0x60;
  v6[5] = 10;  // payload length below a TCP header
  v6[6] = IPPROTO_TCP;
  v6[40 + 12] = 0x50;
  EXPECT_FALSE(ParseTcpPacket(v6.data(), v6.size(), &s));
  v6[5] = 20;
  v6[6] = 0;  // a hop-by-hop header first: not followed
  EXPECT_FALSE(ParseTcpPacket(v6.data(), v6.size(), &s));
}

TEST(BuildTapFilter, ChecksPortsUpToWhatOneProgramHolds) {
  const auto few = BuildTapFilter({7000, 7001}, 128);
  const auto none = BuildTapFilter({}, 128);
  EXPECT_EQ(few.size(), none.size() + 5);  // a load, 2 per port, a final refusal, for the accept-all
  std::vector<uint16_t> many(3000);
  for (size_t i = 0; i < many.size(); ++i) many[i] = static_cast<uint16_t>(1000 + i);
  EXPECT_EQ(BuildTapFilter(many, 128).size(), none.size());  // too many: any port, sorted out by the maps
  EXPECT_LE(BuildTapFilter(std::vector<uint16_t>(1500, 1), 128).size(), 4096u);
}

// The tap on loopback: a listener whose port it watches, a TCP_NODELAY sender and the
// accepted receiver, which does not read until told.
class SegmentTapTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto tap = SegmentTap::Open();
    if (!tap.ok() && geteuid() != 0) GTEST_SKIP() << "the segment tap needs CAP_NET_RAW: " << tap.status().message();
    ASSERT_TRUE(tap.ok()) << tap.status().message();
    tap_ = std::move(*tap);
    auto listener = ListenTcp("127.0.0.1", 0);
    ASSERT_TRUE(listener.ok());
    listener_ = *listener;
    auto port = LocalPort(listener_);
    ASSERT_TRUE(port.ok());
    ASSERT_TRUE(tap_->AddPort(static_cast<uint16_t>(*port)).ok());
    auto sender = ConnectTcp("127.0.0.1", *port, 5000, true);
    ASSERT_TRUE(sender.ok());
    sender_ = *sender;
    pollfd p{listener_, POLLIN, 0};
    ASSERT_EQ(poll(&p, 1, 5000), 1);
    receiver_ = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    ASSERT_GE(receiver_, 0);
    auto tuple = ReceivedTuple(receiver_);
    ASSERT_TRUE(tuple.ok()) << tuple.status().message();
    tuple_ = *tuple;
    map_ = tap_->Register(tuple_);
    // The kernel turns stamping on in a deferred work item (rx_stamp_test.cc): until it
    // ran, a frame carries no stamp and the tap's socket stamps it when read. Bytes go
    // through until a read comes back stamped; the map reads past them.
    ASSERT_TRUE(EnableRxStamps(receiver_));
    bool stamped = false;
    for (int i = 0; i < 1000 && !stamped; ++i) {
      ASSERT_NO_FATAL_FAILURE(SendAndSettle("w", 1));
      char c;
      int64_t stamp = 0;
      ASSERT_EQ(RecvStamped(receiver_, &c, 1, 0, &stamp), 1);
      tap_->Drain();
      map_->Consume(1);
      stamped = stamp != 0;
      if (!stamped) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ASSERT_TRUE(stamped);
  }
  void TearDown() override {
    for (int fd : {sender_, receiver_, listener_}) {
      if (fd >= 0) close(fd);
    }
  }
  void SendAndSettle(const std::string& s, int total) {
    relay_test::SendAndSettle(sender_, receiver_, s, total);
  }

  std::unique_ptr<SegmentTap> tap_;
  TcpTuple tuple_;
  SegmentMap* map_ = nullptr;  // the receiver's stream, past the warm-up bytes
  int listener_ = -1;
  int sender_ = -1;
  int receiver_ = -1;
};

TEST_F(SegmentTapTest, RecoversTheBoundaryAndBothArrivalsOfWritesTcpMerged) {
  const int64_t segments_before = tap_->stats().segments;
  ASSERT_NO_FATAL_FAILURE(SendAndSettle("aaaa", 4));
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  const int64_t before_second = NowNs();
  ASSERT_NO_FATAL_FAILURE(SendAndSettle("bbbbbb", 10));
  tap_->Drain();
  ASSERT_TRUE(map_->anchored());
  std::vector<SegmentPiece> pieces;
  map_->Pieces(10, &pieces);
  ASSERT_EQ(pieces.size(), 2u);
  EXPECT_TRUE(pieces[0].covered);
  EXPECT_TRUE(pieces[1].covered);
  EXPECT_EQ(pieces[0].bytes, 4u);
  EXPECT_EQ(pieces[1].bytes, 6u);
  EXPECT_LT(pieces[0].arrival_ns, before_second);
  EXPECT_GE(pieces[1].arrival_ns, before_second);
  EXPECT_LE(pieces[1].arrival_ns, NowNs());
  // The read the relay would make returns both under one stamp (rx_stamp_test.cc).
  char buf[64];
  int64_t stamp = 0;
  ASSERT_EQ(RecvStamped(receiver_, buf, sizeof(buf), 0, &stamp), 10);
  EXPECT_EQ(std::string(buf, 10), "aaaabbbbbb");
  const SegmentTapStats st = tap_->stats();
  EXPECT_GE(st.syns, 1);  // the connect's SYN anchored the stream
  EXPECT_EQ(st.segments - segments_before, 2);
  EXPECT_EQ(st.malformed, 0);
  EXPECT_EQ(st.kernel_drops, 0);
  std::printf("segment_tap_test: read stamp %lld ns after the first arrival, tap %lld\n",
              static_cast<long long>(stamp - RealtimeMinusMonotonicNs() - pieces[0].arrival_ns),
              static_cast<long long>(pieces[1].arrival_ns - pieces[0].arrival_ns));
}

// Segments towards a port the tap does not watch, and outgoing copies, never reach a map.
TEST_F(SegmentTapTest, SeesNothingTowardsOtherPorts) {
  ASSERT_NO_FATAL_FAILURE(SendAndSettle("x", 1));
  tap_->Drain();
  const int64_t before = tap_->stats().segments;
  ASSERT_EQ(send(receiver_, "back", 4, MSG_NOSIGNAL), 4);  // towards the sender's port
  pollfd p{sender_, POLLIN, 0};
  ASSERT_EQ(poll(&p, 1, 5000), 1);
  tap_->Drain();
  EXPECT_EQ(tap_->stats().segments, before);
  std::vector<SegmentPiece> pieces;
  map_->Pieces(1, &pieces);  // the segment towards the listener's port: seen, once
  ASSERT_EQ(pieces.size(), 1u);
  EXPECT_TRUE(pieces[0].covered);
  map_->Pieces(2, &pieces);
  ASSERT_EQ(pieces.size(), 2u);
  EXPECT_FALSE(pieces[1].covered);
}

}  // namespace segment_tap_test
}  // namespace memstand

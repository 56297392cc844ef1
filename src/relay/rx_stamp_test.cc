// What the kernel stamps on a TCP read (SO_TIMESTAMPING, software RX), on loopback with
// real sockets. The relay builds on what these show: a read's stamp is that of the last
// arrival among its bytes; arrivals that waited in the socket together share it, so the
// stamps cannot split a read at arrival boundaries (docs/relay.md). Assertions compare
// stamps with each other and with clock readings taken before a send (causal order),
// never with a duration.
#include "relay/rx_stamp.h"

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

#include <gtest/gtest.h>

#include "core/clock.h"
#include "core/socket.h"
#include "relay/loopback_test_util.h"

namespace memstand {
namespace rx_stamp_test {

// A connected loopback pair: `sender` (TCP_NODELAY) -> `receiver` (RX stamps on).
class RxStampTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto listener = ListenTcp("127.0.0.1", 0);
    ASSERT_TRUE(listener.ok());
    listener_ = *listener;
    auto port = LocalPort(listener_);
    ASSERT_TRUE(port.ok());
    auto sender = ConnectTcp("127.0.0.1", *port, 5000, true);
    ASSERT_TRUE(sender.ok());
    sender_ = *sender;
    int one = 1;
    setsockopt(sender_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    pollfd p{listener_, POLLIN, 0};
    ASSERT_EQ(poll(&p, 1, 5000), 1);
    receiver_ = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    ASSERT_GE(receiver_, 0);
    ASSERT_TRUE(EnableRxStamps(receiver_));
    // The kernel turns RX stamping on for the first socket that asks in a deferred
    // work item: a segment that arrives before it ran carries no stamp (seen here on
    // 6.18 in 24 of 300 fresh starts, by one or two reads). Bytes go through until one
    // is stamped.
    for (int i = 0; i < 1000 && !stamping_; ++i) {
      ASSERT_EQ(send(sender_, "w", 1, MSG_NOSIGNAL), 1);
      pollfd r{receiver_, POLLIN, 0};
      ASSERT_EQ(poll(&r, 1, 5000), 1);
      char c;
      int64_t stamp = 0;
      ASSERT_EQ(RecvStamped(receiver_, &c, 1, 0, &stamp), 1);
      stamping_ = stamp != 0;
      if (!stamping_) ++unstamped_;
      if (!stamping_) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ASSERT_TRUE(stamping_) << "no receive stamp within 1000 reads";
    if (unstamped_ > 0) std::printf("rx_stamp_test: %d reads before the first stamp\n", unstamped_);
  }
  void TearDown() override {
    for (int fd : {sender_, receiver_, listener_}) {
      if (fd >= 0) close(fd);
    }
  }

  void SendAndSettle(const std::string& s, int total) {
    relay_test::SendAndSettle(sender_, receiver_, s, total);
  }

  // The stamp of a 1-byte peek at byte `offset` of the receive queue (SO_PEEK_OFF).
  int64_t PeekStampAt(int offset) {
    setsockopt(receiver_, SOL_SOCKET, SO_PEEK_OFF, &offset, sizeof(offset));
    char c;
    int64_t stamp = 0;
    EXPECT_EQ(RecvStamped(receiver_, &c, 1, MSG_PEEK, &stamp), 1);
    const int off = -1;  // peeks from the front again, as without SO_PEEK_OFF
    setsockopt(receiver_, SOL_SOCKET, SO_PEEK_OFF, &off, sizeof(off));
    return stamp;
  }

  bool stamping_ = false;
  int unstamped_ = 0;
  int listener_ = -1;
  int sender_ = -1;
  int receiver_ = -1;
};

TEST_F(RxStampTest, AReadCarriesTheKernelsStampOfItsBytes) {
  const int64_t before = UnixNowNs();
  SendAndSettle("hello", 5);
  char buf[64];
  int64_t stamp = 0;
  ASSERT_EQ(RecvStamped(receiver_, buf, sizeof(buf), 0, &stamp), 5);
  EXPECT_GE(stamp, before);  // stamped on arrival, after the send began
  EXPECT_LE(stamp, UnixNowNs());
}

TEST_F(RxStampTest, WithoutStampsEnabledAReadCarriesNone) {
  // The sender's side never asked for stamps: send the other way.
  const std::string s = "back";
  ASSERT_EQ(send(receiver_, s.data(), s.size(), MSG_NOSIGNAL), 4);
  pollfd p{sender_, POLLIN, 0};
  ASSERT_EQ(poll(&p, 1, 5000), 1);
  char buf[16];
  int64_t stamp = -1;
  ASSERT_EQ(RecvStamped(sender_, buf, sizeof(buf), 0, &stamp), 4);
  EXPECT_EQ(stamp, 0);
}

// The case: two writes that arrived apart wait in the socket until one late
// read. Every peek, at the first byte, at the last, and the read of all of it return
// one stamp, the second arrival's: TCP merged the second segment into the first's
// buffer and the merged buffer took the newer stamp. No offset shows the first arrival.
TEST_F(RxStampTest, ArrivalsQueuedTogetherShareTheLatestStamp) {
  SendAndSettle("aaaa", 4);
  const int64_t first_stamp = PeekStampAt(0);  // alone in the socket: its own stamp
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  const int64_t before_second = UnixNowNs();
  SendAndSettle("bbbbbb", 10);
  const int64_t at_first_byte = PeekStampAt(0);
  const int64_t at_last_byte = PeekStampAt(9);
  EXPECT_GT(first_stamp, 0);
  EXPECT_LT(first_stamp, before_second);
  // What the relay relies on: the last byte carries the later arrival's stamp, and so
  // does a read of both. Whether the first byte lost its own stamp depends on the kernel
  // merging the two buffers (it did in 600 of 600 runs here, 6.18): printed, not asserted,
  // so that another kernel's choice does not fail the build.
  EXPECT_GE(at_last_byte, before_second);
  if (at_first_byte != at_last_byte) {
    std::printf("rx_stamp_test: this kernel kept the two arrivals' stamps apart (%lld, %lld)\n",
                static_cast<long long>(at_first_byte), static_cast<long long>(at_last_byte));
  }
  char buf[64];
  int64_t stamp = 0;
  ASSERT_EQ(RecvStamped(receiver_, buf, sizeof(buf), 0, &stamp), 10);
  EXPECT_EQ(std::string(buf, 10), "aaaabbbbbb");
  EXPECT_EQ(stamp, at_last_byte);
}

}  // namespace rx_stamp_test
}  // namespace memstand

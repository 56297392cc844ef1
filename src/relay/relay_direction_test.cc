// One direction of the relay between two loopback pairs with real sockets: when its
// chunks are due, from their kernel receive stamps. Reads come after a deliberate sleep
// (a late wake-up on purpose); assertions compare the due times and stamps the direction
// recorded with clock readings taken around the sends (causal order), never a duration.
#include "relay/relay_direction.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "core/clock.h"
#include "core/socket.h"
#include "relay/rx_stamp.h"

namespace memstand {
namespace relay_direction_test {

constexpr int64_t kDelayNs = 30'000'000;

// A connected loopback pair, `in` -> `out` (TCP_NODELAY, both non-blocking on out's
// side as the relay's are).
struct Pair {
  int in = -1;
  int out = -1;
  ~Pair() {
    for (int fd : {in, out}) {
      if (fd >= 0) close(fd);
    }
  }
};

void Connect(Pair* p) {
  auto listener = ListenTcp("127.0.0.1", 0);
  ASSERT_TRUE(listener.ok());
  auto port = LocalPort(*listener);
  ASSERT_TRUE(port.ok());
  auto in = ConnectTcp("127.0.0.1", *port, 5000, true);
  ASSERT_TRUE(in.ok());
  p->in = *in;
  int one = 1;
  setsockopt(p->in, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  pollfd l{*listener, POLLIN, 0};
  ASSERT_EQ(poll(&l, 1, 5000), 1);
  p->out = accept4(*listener, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
  close(*listener);
  ASSERT_GE(p->out, 0);
}

class RelayDirectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(Connect(&src_));
    ASSERT_NO_FATAL_FAILURE(Connect(&dst_));
    ASSERT_TRUE(EnableRxStamps(src_.out));
    // Stamping is turned on by a deferred kernel work item (rx_stamp_test.cc): bytes go
    // through a stamped socket of our own until one comes back stamped.
    bool stamped = false;
    for (int i = 0; i < 1000 && !stamped; ++i) {
      ASSERT_EQ(send(src_.in, "w", 1, MSG_NOSIGNAL), 1);
      ASSERT_NO_FATAL_FAILURE(Settle(1));
      char c;
      int64_t stamp = 0;
      ASSERT_EQ(RecvStamped(src_.out, &c, 1, 0, &stamp), 1);
      stamped = stamp != 0;
      if (!stamped) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ASSERT_TRUE(stamped);
  }

  void Start(RelayMode mode) {
    options_.mode = mode;
    direction_ = std::make_unique<RelayDirection>(options_, kDelayNs, 1, &stats_);
    direction_->Attach(src_.out, dst_.in);
  }

  // Sends s into the direction's source; returns when the source holds `total` bytes
  // and every byte is acknowledged (bounded, 5 s): the bytes are in the socket, stamped.
  void Send(const std::string& s, int total) {
    ASSERT_EQ(send(src_.in, s.data(), s.size(), MSG_NOSIGNAL), static_cast<ssize_t>(s.size()));
    ASSERT_NO_FATAL_FAILURE(Settle(total));
  }
  void Settle(int total) {
    for (int i = 0; i < 5000; ++i) {
      int available = 0;
      ioctl(src_.out, FIONREAD, &available);
      tcp_info info{};
      socklen_t len = sizeof(info);
      getsockopt(src_.in, IPPROTO_TCP, TCP_INFO, &info, &len);
      if (available == total && info.tcpi_unacked == 0) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    FAIL() << "the source did not hold " << total << " bytes within 5 s";
  }
  // Flushes until the queued chunks left (bounded: 5 s past the first's due time).
  void FlushAll() {
    const int64_t until = direction_->NextDue() + 5'000'000'000;
    while (direction_->NextDue() != INT64_MAX && NowNs() < until) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      ASSERT_EQ(direction_->Flush(NowNs()), RelayDirection::Io::kOk);
    }
  }

  Pair src_;
  Pair dst_;
  RelayOptions options_;
  RelayDirectionStats stats_;
  std::unique_ptr<RelayDirection> direction_;
  std::vector<char> scratch_ = std::vector<char>(options_.read_size);
};

// The read comes 5 ms after the bytes arrived: the chunk is due its delay after the
// arrival (before the send's settle ended), not after the read.
TEST_F(RelayDirectionTest, AChunkReadLateIsDueItsDelayAfterItsArrival) {
  Start(RelayMode::kPipelined);
  const int64_t before_send = NowNs();
  ASSERT_NO_FATAL_FAILURE(Send("SET k v", 7));
  const int64_t arrived_by = NowNs();
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const int64_t read_at = NowNs();
  ASSERT_EQ(direction_->ReadOnce(read_at, scratch_.data()), RelayDirection::Io::kOk);
  EXPECT_EQ(stats_.chunks, 1);
  EXPECT_EQ(stats_.stamped_reads, 1);
  EXPECT_EQ(stats_.read_late_ns.total_count(), 1);
  EXPECT_GE(direction_->NextDue(), before_send + kDelayNs);
  EXPECT_LE(direction_->NextDue(), arrived_by + kDelayNs);
  EXPECT_LT(direction_->NextDue(), read_at + kDelayNs);  // what the read time would give
  EXPECT_GE(stats_.read_late_ns.max(), (read_at - arrived_by) * 99 / 100);  // at 3 significant digits
}

// Two writes 2 ms apart, read together late: TCP merged them in the socket under the
// second's stamp (rx_stamp_test.cc), so they come out as one chunk due its delay after
// the second's arrival: the relay cannot split them, and says so in no split count.
TEST_F(RelayDirectionTest, TwoWritesReadTogetherAreOneChunkDueAfterTheLaterArrival) {
  Start(RelayMode::kPipelined);
  ASSERT_NO_FATAL_FAILURE(Send("first", 5));
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  const int64_t before_second = NowNs();
  ASSERT_NO_FATAL_FAILURE(Send("second", 11));
  const int64_t arrived_by = NowNs();
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const int64_t read_at = NowNs();
  ASSERT_EQ(direction_->ReadOnce(read_at, scratch_.data()), RelayDirection::Io::kOk);
  EXPECT_EQ(stats_.chunks, 1);
  EXPECT_EQ(stats_.bytes, 11);
  EXPECT_GE(direction_->NextDue(), before_second + kDelayNs);
  EXPECT_LE(direction_->NextDue(), arrived_by + kDelayNs);
}

// Serializing, store and forward: a chunk that arrived while the one before it was in
// flight starts its delay when that one left, to the nanosecond recorded.
TEST_F(RelayDirectionTest, SerializingAChunkThatArrivedInFlightIsDueItsDelayAfterTheLeave) {
  Start(RelayMode::kSerializing);
  ASSERT_NO_FATAL_FAILURE(Send("one", 3));
  ASSERT_EQ(direction_->ReadOnce(NowNs(), scratch_.data()), RelayDirection::Io::kOk);
  EXPECT_FALSE(direction_->WantsRead());  // one in flight
  ASSERT_NO_FATAL_FAILURE(Send("two", 3));  // arrives while "one" is held
  ASSERT_NO_FATAL_FAILURE(FlushAll());
  const int64_t left = stats_.last_leave_ns;
  ASSERT_GT(left, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(3));  // a late read
  ASSERT_TRUE(direction_->WantsRead());
  ASSERT_EQ(direction_->ReadOnce(NowNs(), scratch_.data()), RelayDirection::Io::kOk);
  EXPECT_EQ(stats_.chunks, 2);
  EXPECT_EQ(stats_.stamped_reads, 2);
  EXPECT_EQ(direction_->NextDue(), left + kDelayNs);
  ASSERT_NO_FATAL_FAILURE(FlushAll());
  char buf[16];
  pollfd p{dst_.out, POLLIN, 0};
  ASSERT_EQ(poll(&p, 1, 5000), 1);
  std::string got;
  for (int i = 0; i < 100 && got.size() < 6; ++i) {
    const ssize_t n = recv(dst_.out, buf, sizeof(buf), 0);
    if (n > 0) got.append(buf, static_cast<size_t>(n));
    if (n <= 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(got, "onetwo");
}

// Serializing, a chunk that arrived after the previous one left: due its delay after
// its own arrival, not after the leave nor the read.
TEST_F(RelayDirectionTest, SerializingAChunkThatArrivedAfterTheLeaveIsDueAfterItsArrival) {
  Start(RelayMode::kSerializing);
  ASSERT_NO_FATAL_FAILURE(Send("one", 3));
  ASSERT_EQ(direction_->ReadOnce(NowNs(), scratch_.data()), RelayDirection::Io::kOk);
  ASSERT_NO_FATAL_FAILURE(FlushAll());
  const int64_t left = stats_.last_leave_ns;
  const int64_t before_send = NowNs();
  ASSERT_NO_FATAL_FAILURE(Send("two", 3));
  const int64_t arrived_by = NowNs();
  std::this_thread::sleep_for(std::chrono::milliseconds(3));
  ASSERT_EQ(direction_->ReadOnce(NowNs(), scratch_.data()), RelayDirection::Io::kOk);
  EXPECT_GT(direction_->NextDue(), left + kDelayNs);
  EXPECT_GE(direction_->NextDue(), before_send + kDelayNs);
  EXPECT_LE(direction_->NextDue(), arrived_by + kDelayNs);
}

}  // namespace relay_direction_test
}  // namespace memstand

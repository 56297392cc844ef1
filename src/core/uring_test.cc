#include "core/uring.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <string>
#include <vector>

namespace memstand {
namespace {

using CompletionKind = Uring::Completion::Kind;

struct Pair {
  int a = -1, b = -1;  // a: the ring's side, b: the peer's
  Pair() {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds) == 0) {
      a = fds[0];
      b = fds[1];
    }
  }
  ~Pair() {
    if (a >= 0) close(a);
    if (b >= 0) close(b);
  }
};

std::unique_ptr<Uring> MakeRing(size_t sockets) {
  auto u = Uring::Create(sockets);
  EXPECT_TRUE(u.ok()) << u.status().message();  // this test machine's kernel has io_uring
  return u.ok() ? std::move(*u) : nullptr;
}

// Waits until `want` completions of `kind` have come (at most ~2 s); returns them all.
std::vector<Uring::Completion> WaitFor(Uring& u, CompletionKind kind, size_t want) {
  std::vector<Uring::Completion> all, got;
  size_t n = 0;
  for (int i = 0; i < 20 && n < want; ++i) {
    EXPECT_TRUE(u.Wait(100'000'000, &got).ok());
    for (const auto& c : got) {
      all.push_back(c);
      n += c.kind == kind;
    }
  }
  return all;
}

TEST(UringTest, ReceivesWhatThePeerWritesWithItsToken) {
  auto u = MakeRing(1);
  ASSERT_NE(u, nullptr);
  Pair p;
  u->ArmRecv(p.a, 7);
  ASSERT_EQ(write(p.b, "hello", 5), 5);
  auto got = WaitFor(*u, CompletionKind::kRecv, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].kind, CompletionKind::kRecv);
  EXPECT_EQ(got[0].token, 7u);
  ASSERT_EQ(got[0].result, 5);
  EXPECT_EQ(std::string(got[0].data, 5), "hello");
  EXPECT_TRUE(got[0].more);  // the multishot receive goes on
  ASSERT_EQ(write(p.b, "again", 5), 5);
  got = WaitFor(*u, CompletionKind::kRecv, 1);
  ASSERT_EQ(got.size(), 1u);
  ASSERT_EQ(got[0].result, 5);
  EXPECT_EQ(std::string(got[0].data, 5), "again");
}

// Wait(0), the open loop's spin: a poll that submits what is queued and hands back what
// has completed, with one io_uring_enter and no wait (nothing to hand back: none).
TEST(UringTest, AZeroTimeoutPollSubmitsAndReturnsWhatCompleted) {
  auto u = MakeRing(1);
  ASSERT_NE(u, nullptr);
  Pair p;
  std::vector<Uring::Completion> got;
  ASSERT_TRUE(u->Wait(0, &got).ok());
  EXPECT_TRUE(got.empty());
  const uint64_t calls = u->enter_calls();
  u->ArmRecv(p.a, 3);
  ASSERT_TRUE(u->Wait(0, &got).ok());  // submits the receive; nothing to receive yet
  EXPECT_TRUE(got.empty());
  EXPECT_EQ(u->enter_calls(), calls + 1);
  ASSERT_EQ(write(p.b, "hi", 2), 2);
  // The peer's bytes are in the socket once write returns; the poll that follows runs
  // the receive (its deferred work) and hands it back, after at most a few polls.
  int polls = 0;
  while (got.empty() && polls < 1000) {
    ASSERT_TRUE(u->Wait(0, &got).ok());
    ++polls;
  }
  ASSERT_EQ(got.size(), 1u) << polls << " polls";
  EXPECT_EQ(got[0].kind, CompletionKind::kRecv);
  EXPECT_EQ(got[0].token, 3u);
  EXPECT_EQ(std::string(got[0].data, got[0].result), "hi");
  ASSERT_EQ(u->Wait(0, &got).ok(), true);
  EXPECT_TRUE(got.empty());
}

TEST(UringTest, SendsReachThePeer) {
  auto u = MakeRing(1);
  ASSERT_NE(u, nullptr);
  Pair p;
  const std::string msg = "*1\r\n$4\r\nPING\r\n";
  u->Send(p.a, msg.data(), msg.size(), 3);
  auto got = WaitFor(*u, CompletionKind::kSend, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].kind, CompletionKind::kSend);
  EXPECT_EQ(got[0].token, 3u);
  EXPECT_EQ(got[0].result, static_cast<int>(msg.size()));
  char buf[64];
  ASSERT_EQ(read(p.b, buf, sizeof(buf)), static_cast<ssize_t>(msg.size()));
  EXPECT_EQ(std::string(buf, msg.size()), msg);
}

TEST(UringTest, PeerClosingEndsTheReceiveWithZero) {
  auto u = MakeRing(1);
  ASSERT_NE(u, nullptr);
  Pair p;
  u->ArmRecv(p.a, 1);
  close(p.b);
  p.b = -1;
  auto got = WaitFor(*u, CompletionKind::kRecv, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].result, 0);
  EXPECT_FALSE(got[0].more);
}

TEST(UringTest, CancelAllEndsTheReceive) {
  auto u = MakeRing(1);
  ASSERT_NE(u, nullptr);
  Pair p;
  u->ArmRecv(p.a, 1);
  u->CancelAll(p.a);
  auto got = WaitFor(*u, CompletionKind::kRecv, 1);
  ASSERT_EQ(got.size(), 1u);  // the cancel's own completion is not reported
  EXPECT_EQ(got[0].result, -ECANCELED);
  EXPECT_FALSE(got[0].more);
}

// What Worker::Close does: cancel, then close at once. The peer must see the socket
// closed (the receive no longer holds it) and the cancelled receive still reports.
TEST(UringTest, CancelAllThenCloseReleasesTheSocket) {
  auto u = MakeRing(1);
  ASSERT_NE(u, nullptr);
  Pair p;
  u->ArmRecv(p.a, 5);
  std::vector<Uring::Completion> got;
  ASSERT_TRUE(u->Wait(0, &got).ok());  // the receive is armed and waiting
  u->CancelAll(p.a);
  close(p.a);
  p.a = -1;
  char buf[8];
  ssize_t n = -1;
  for (int i = 0; i < 100 && n != 0; ++i) {  // the peer sees end of stream
    n = read(p.b, buf, sizeof(buf));
    if (n < 0) usleep(10'000);
  }
  EXPECT_EQ(n, 0);
  got = WaitFor(*u, CompletionKind::kRecv, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].token, 5u);
  EXPECT_EQ(got[0].result, -ECANCELED);
}

TEST(UringTest, SendsAreCappedAndCountedAsEnterCalls) {
  auto u = MakeRing(1);
  ASSERT_NE(u, nullptr);
  const uint64_t before = u->enter_calls();
  Pair p;
  u->Send(p.a, "x", 1, 1);
  auto got = WaitFor(*u, CompletionKind::kSend, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].result, 1);
  EXPECT_GE(u->enter_calls(), before + 1);
  EXPECT_EQ(Uring::kMaxSend, size_t{1} << 30);
}

// More sockets with data than receive buffers: the kernel ends some multishot receives
// with -ENOBUFS; re-armed after the buffers come back, they get everything.
TEST(UringTest, RunningOutOfBuffersEndsReceivesWithEnobufsAndRearmingRecovers) {
  constexpr int kSockets = 300;  // Create(1): at most 256 buffers, 128 at first
  auto u = MakeRing(1);
  ASSERT_NE(u, nullptr);
  std::vector<Pair> pairs(kSockets);
  for (int i = 0; i < kSockets; ++i) {
    ASSERT_GE(pairs[i].a, 0);
    ASSERT_EQ(write(pairs[i].b, "abcd", 4), 4);
    u->ArmRecv(pairs[i].a, static_cast<uint32_t>(i));
  }
  std::vector<int> bytes(kSockets, 0);
  int enobufs = 0;
  std::vector<Uring::Completion> got;
  for (int round = 0; round < 40; ++round) {
    ASSERT_TRUE(u->Wait(100'000'000, &got).ok());
    for (const auto& c : got) {
      ASSERT_EQ(c.kind, CompletionKind::kRecv);
      if (c.result == -ENOBUFS) {
        ++enobufs;
        u->ArmRecv(pairs[c.token].a, c.token);  // submitted with the next Wait
        continue;
      }
      ASSERT_GT(c.result, 0);
      bytes[c.token] += c.result;
    }
    int done = 0;
    for (int b : bytes) done += b == 4;
    if (done == kSockets) break;
  }
  EXPECT_GT(enobufs, 0);
  for (int i = 0; i < kSockets; ++i) EXPECT_EQ(bytes[i], 4) << "socket " << i;
  EXPECT_EQ(u->buffers_in_use(), 256u);  // grown on demand, up to the most for 1 socket
}

// Receive buffers are handed to the kernel on demand: a ring sized for many sockets
// starts with 128, and doubles only after a wake-up took more than half of them.
TEST(UringTest, ReceiveBuffersAreGivenToTheKernelOnDemand) {
  auto u = MakeRing(4000);
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->buffers_in_use(), 128u);
  std::vector<Pair> pairs(40);
  for (size_t i = 0; i < pairs.size(); ++i) u->ArmRecv(pairs[i].a, static_cast<uint32_t>(i));
  ASSERT_EQ(write(pairs[0].b, "x", 1), 1);
  WaitFor(*u, CompletionKind::kRecv, 1);
  EXPECT_EQ(u->buffers_in_use(), 128u);  // one buffer of 128 taken: no growth
  for (auto& p : pairs) ASSERT_EQ(write(p.b, "y", 1), 1);
  std::vector<Uring::Completion> got;
  size_t received = 0;
  for (int i = 0; i < 20 && received < pairs.size(); ++i) {
    ASSERT_TRUE(u->Wait(100'000'000, &got).ok());
    received += got.size();
  }
  ASSERT_EQ(received, pairs.size());
  // 40 of 128 is under half: still 128. Now 90 more sockets at once (130 > 64).
  EXPECT_EQ(u->buffers_in_use(), 128u);
  std::vector<Pair> more(90);
  for (size_t i = 0; i < more.size(); ++i) {
    u->ArmRecv(more[i].a, static_cast<uint32_t>(100 + i));
    ASSERT_EQ(write(more[i].b, "z", 1), 1);
  }
  for (auto& p : pairs) ASSERT_EQ(write(p.b, "w", 1), 1);
  received = 0;
  for (int i = 0; i < 20 && received < pairs.size() + more.size(); ++i) {
    ASSERT_TRUE(u->Wait(100'000'000, &got).ok());
    for (const auto& c : got) {
      if (c.result == -ENOBUFS) {
        u->ArmRecv(c.token < 100 ? pairs[c.token].a : more[c.token - 100].a, c.token);
      } else {
        ++received;
      }
    }
  }
  EXPECT_EQ(received, pairs.size() + more.size());
  EXPECT_EQ(u->buffers_in_use(), 256u);
}

// A non-blocking connect watched through the ring (a connection opened mid-run): one
// kWritable completion with its token once the connect is through; a cancel ends a
// poll that is still waiting.
TEST(UringTest, PollWritableReportsTheEndOfANonBlockingConnect) {
  auto u = MakeRing(1);
  ASSERT_NE(u, nullptr);
  const int listener = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&addr), len), 0);
  ASSERT_EQ(listen(listener, 4), 0);
  ASSERT_EQ(getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  ASSERT_GE(fd, 0);
  const int r = connect(fd, reinterpret_cast<sockaddr*>(&addr), len);
  ASSERT_TRUE(r == 0 || errno == EINPROGRESS);
  u->PollWritable(fd, 42);
  auto got = WaitFor(*u, CompletionKind::kWritable, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].kind, CompletionKind::kWritable);
  EXPECT_EQ(got[0].token, 42u);
  EXPECT_TRUE(got[0].result & POLLOUT) << got[0].result;
  int err = -1;
  socklen_t elen = sizeof(err);
  ASSERT_EQ(getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen), 0);
  EXPECT_EQ(err, 0);

  // A socket that is not writable (a pipe's full write end stands in for a connect that
  // has not ended): its poll waits until CancelAll ends it.
  int pipe_fds[2];
  ASSERT_EQ(pipe2(pipe_fds, O_NONBLOCK), 0);
  while (write(pipe_fds[1], "0123456789abcdef", 16) > 0) {
  }
  u->PollWritable(pipe_fds[1], 7);
  ASSERT_TRUE(u->Wait(0, &got).ok());
  EXPECT_TRUE(got.empty());
  u->CancelAll(pipe_fds[1]);
  got = WaitFor(*u, CompletionKind::kWritable, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].token, 7u);
  EXPECT_EQ(got[0].result, -ECANCELED);
  close(pipe_fds[0]);
  close(pipe_fds[1]);
  close(fd);
  close(listener);
}

}  // namespace
}  // namespace memstand

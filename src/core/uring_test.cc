#include "core/uring.h"

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
  constexpr int kSockets = 300;  // Create(1) gets the fewest buffers, 256
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
}

}  // namespace
}  // namespace memstand

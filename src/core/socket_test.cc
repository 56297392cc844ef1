#include "core/socket.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

namespace memstand {
namespace {

// A listening Unix stream socket in a private temp dir, removed with the dir.
class UnixListener {
 public:
  UnixListener() {
    std::string pattern = "/tmp/memstand-sock-XXXXXX";
    if (mkdtemp(pattern.data()) != nullptr) dir_ = pattern;
    path_ = dir_ + "/s.sock";
    fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    path_.copy(addr.sun_path, sizeof(addr.sun_path) - 1);
    ok_ = !dir_.empty() && fd_ >= 0 &&
          bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 && listen(fd_, 8) == 0;
  }
  ~UnixListener() {
    if (fd_ >= 0) close(fd_);
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }
  bool ok() const { return ok_; }
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_, path_;
  int fd_ = -1;
  bool ok_ = false;
};

TEST(ConnectUnix, BlockingConnectCarriesBytesBothWays) {
  UnixListener l;
  ASSERT_TRUE(l.ok()) << l.path();
  auto fd = ConnectUnix(l.path(), 2000, true);
  ASSERT_TRUE(fd.ok()) << fd.status().message();
  sockaddr_storage ss{};
  socklen_t len = sizeof(ss);
  ASSERT_EQ(getsockname(*fd, reinterpret_cast<sockaddr*>(&ss), &len), 0);
  EXPECT_EQ(ss.ss_family, AF_UNIX);
  // No TCP option on it: TCP_NODELAY is not an option of a Unix socket at all.
  int one = 0;
  socklen_t one_len = sizeof(one);
  EXPECT_NE(getsockopt(*fd, IPPROTO_TCP, TCP_NODELAY, &one, &one_len), 0);
  int peer = accept(l.fd(), nullptr, nullptr);
  ASSERT_GE(peer, 0);
  ASSERT_TRUE(WriteAll(*fd, "ping", 4).ok());
  char buf[8];
  auto n = ReadSome(peer, buf, sizeof(buf));
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(std::string(buf, *n), "ping");
  ASSERT_TRUE(WriteAll(peer, "pong!", 5).ok());
  n = ReadSome(*fd, buf, sizeof(buf));
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(std::string(buf, *n), "pong!");
  close(peer);
  close(*fd);
}

TEST(ConnectUnix, NonBlockingConnectFinishes) {
  UnixListener l;
  ASSERT_TRUE(l.ok()) << l.path();
  auto fd = ConnectUnix(l.path(), 2000, false);
  ASSERT_TRUE(fd.ok()) << fd.status().message();
  EXPECT_TRUE(FinishConnect(*fd).ok());
  int peer = accept(l.fd(), nullptr, nullptr);
  ASSERT_GE(peer, 0);
  ASSERT_TRUE(WriteAllBy(*fd, "abc", 3, INT64_MAX).ok());
  char buf[4];
  auto n = ReadSome(peer, buf, sizeof(buf));
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 3u);
  close(peer);
  close(*fd);
}

TEST(ConnectUnix, FaultsAreClear) {
  auto fd = ConnectUnix("/nonexistent-memstand-dir/s.sock", 1000, true);
  ASSERT_FALSE(fd.ok());
  EXPECT_EQ(fd.status().code(), Status::Code::kIoError);
  EXPECT_EQ(fd.status().message(),
            "/nonexistent-memstand-dir/s.sock: connect: No such file or directory");
  fd = ConnectUnix("/" + std::string(kMaxUnixPath, 'a'), 1000, true);
  ASSERT_FALSE(fd.ok());
  EXPECT_EQ(fd.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(fd.status().message().find("108 bytes; at most 107"), std::string::npos)
      << fd.status().message();
  EXPECT_EQ(ConnectUnix("", 1000, true).status().code(), Status::Code::kInvalidArgument);
  // A file that is no socket, and a socket file nobody listens on: refused.
  UnixListener l;
  ASSERT_TRUE(l.ok());
  const std::string plain = l.dir() + "/plain";
  std::ofstream(plain) << "x";
  fd = ConnectUnix(plain, 1000, true);
  ASSERT_FALSE(fd.ok());
  EXPECT_NE(fd.status().message().find("Connection refused"), std::string::npos)
      << fd.status().message();
}

// A listener that accepts nothing: once its backlog is full, a connect is retried until
// its timeout and then says why (TCP would have waited in SYN retries instead).
TEST(ConnectUnix, FullBacklogTimesOutSayingSo) {
  UnixListener l;
  ASSERT_TRUE(l.ok());
  ASSERT_EQ(listen(l.fd(), 1), 0);
  std::vector<int> fds;
  Status last;
  for (int i = 0; i < 16 && last.ok(); ++i) {
    auto fd = ConnectUnix(l.path(), 20, false);
    if (fd.ok()) fds.push_back(*fd);
    last = fd.status();
  }
  EXPECT_GE(fds.size(), 1u);
  ASSERT_FALSE(last.ok()) << "16 connects to a backlog of 1 all went through";
  EXPECT_EQ(last.code(), Status::Code::kTimeout);
  EXPECT_NE(last.message().find("accept backlog stayed full"), std::string::npos) << last.message();
  // Accepting one makes room: the next connect goes through.
  int peer = accept(l.fd(), nullptr, nullptr);
  ASSERT_GE(peer, 0);
  auto fd = ConnectUnix(l.path(), 2000, false);
  EXPECT_TRUE(fd.ok()) << fd.status().message();
  if (fd.ok()) close(*fd);
  close(peer);
  for (int f : fds) close(f);
}

// Picked ports come from below the kernel's ephemeral range (where outgoing connections
// take their local ports), spread out, and each was free: a listener binds it.
TEST(SocketTest, PickedPortsAreBelowTheEphemeralRangeAndFree) {
  int low = 32768, high = 0;
  std::ifstream range("/proc/sys/net/ipv4/ip_local_port_range");
  range >> low >> high;
  if (low - 16384 < 4096) GTEST_SKIP() << "the ephemeral range starts at " << low << ": bind(0) picks";
  std::set<int> seen;
  for (int i = 0; i < 32; ++i) {
    auto port = PickFreePort();
    ASSERT_TRUE(port.ok()) << port.status().message();
    EXPECT_GE(*port, 16384);
    EXPECT_LT(*port, low);
    seen.insert(*port);
    auto fd = ListenTcp("127.0.0.1", *port, 1);
    ASSERT_TRUE(fd.ok()) << fd.status().message();
    close(*fd);
  }
  EXPECT_GE(seen.size(), 24u);  // random draws over thousands of ports rarely repeat
}

// A port held by a listener is never picked: the draw binds each candidate first.
// Without that check, 2048 draws over ~16,000 ports would hit the 32 held ones about 4
// times (the test then fails in 98 runs of 100).
TEST(SocketTest, APickNeverReturnsAPortWithAListener) {
  std::vector<int> held;
  std::vector<int> fds;
  for (int i = 0; i < 32; ++i) {
    auto port = PickFreePort();
    ASSERT_TRUE(port.ok());
    auto fd = ListenTcp("127.0.0.1", *port, 1);
    ASSERT_TRUE(fd.ok());
    held.push_back(*port);
    fds.push_back(*fd);
  }
  for (int i = 0; i < 2048; ++i) {
    auto port = PickFreePort();
    ASSERT_TRUE(port.ok());
    EXPECT_EQ(std::count(held.begin(), held.end(), *port), 0) << *port;
  }
  for (int fd : fds) close(fd);
}

}  // namespace
}  // namespace memstand

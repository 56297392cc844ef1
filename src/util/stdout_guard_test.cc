#include "util/stdout_guard.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace memstand {
namespace {

TEST(ErrorKeepingStream, AFullDeviceIsKeptNotThrown) {
  const int fd = open("/dev/full", O_WRONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  int error = -1;
  std::FILE* f = OpenErrorKeepingStream(fd, &error);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(error, 0);
  const std::string big(100000, 'x');  // past the buffer: written, and refused, here
  EXPECT_NO_THROW(fmt::print(f, "{}", big));  // fmt throws std::system_error on a short fwrite
  EXPECT_EQ(std::fwrite(big.data(), 1, big.size(), f), big.size());
  EXPECT_EQ(std::fflush(f), 0);
  EXPECT_EQ(error, ENOSPC);
  std::fclose(f);
  EXPECT_EQ(fcntl(fd, F_GETFD), FD_CLOEXEC);  // the descriptor is the caller's: still open
  close(fd);
}

TEST(ErrorKeepingStream, EveryByteReachesAWritableDescriptor) {
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  int error = -1;
  std::FILE* f = OpenErrorKeepingStream(pipe_fds[1], &error);
  ASSERT_NE(f, nullptr);
  fmt::print(f, "report {}\n", 42);
  std::fclose(f);
  close(pipe_fds[1]);
  char buf[64] = {};
  EXPECT_EQ(read(pipe_fds[0], buf, sizeof(buf)), 10);
  EXPECT_STREQ(buf, "report 42\n");
  EXPECT_EQ(error, 0);
  close(pipe_fds[0]);
}

TEST(ErrorKeepingStream, AClosedPipeIsKept) {
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  close(pipe_fds[0]);
  const auto old_handler = std::signal(SIGPIPE, SIG_IGN);  // as memstand does: EPIPE, no signal
  int error = 0;
  std::FILE* f = OpenErrorKeepingStream(pipe_fds[1], &error);
  ASSERT_NE(f, nullptr);
  fmt::print(f, "lost\n");
  std::fflush(f);
  std::fclose(f);
  std::signal(SIGPIPE, old_handler);
  EXPECT_EQ(error, EPIPE);
  close(pipe_fds[1]);
}

}  // namespace
}  // namespace memstand

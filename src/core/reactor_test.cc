#include "core/reactor.h"

#include <unistd.h>

#include <gtest/gtest.h>

namespace memstand {
namespace {

class ReactorTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(pipe(fds_), 0); }
  void TearDown() override {
    close(fds_[0]);
    close(fds_[1]);
  }
  int fds_[2] = {-1, -1};
  Reactor reactor_;
};

TEST_F(ReactorTest, WaitNsReportsAReadableFdWithItsToken) {
  ASSERT_TRUE(reactor_.Add(fds_[0], Reactor::kReadable, 42).ok());
  epoll_event ev[4];
  EXPECT_EQ(reactor_.WaitNs(ev, 4, 0), 0);  // nothing written yet
  ASSERT_EQ(write(fds_[1], "x", 1), 1);
  ASSERT_EQ(reactor_.WaitNs(ev, 4, 1'000'000'000), 1);
  EXPECT_EQ(ev[0].data.u64, 42u);
  EXPECT_TRUE(ev[0].events & EPOLLIN);
}

// --spin polls with a zero timeout: what is ready is reported by the poll itself.
TEST_F(ReactorTest, AZeroTimeoutPollReportsWhatIsReady) {
  ASSERT_TRUE(reactor_.Add(fds_[0], Reactor::kReadable, 5).ok());
  epoll_event ev[4];
  for (int i = 0; i < 3; ++i) EXPECT_EQ(reactor_.WaitNs(ev, 4, 0), 0);
  ASSERT_EQ(write(fds_[1], "x", 1), 1);
  ASSERT_EQ(reactor_.WaitNs(ev, 4, 0), 1);
  EXPECT_EQ(ev[0].data.u64, 5u);
}

TEST_F(ReactorTest, ModifyAndRemoveChangeWhatIsReported) {
  ASSERT_TRUE(reactor_.Add(fds_[1], Reactor::kWritable, 7).ok());
  epoll_event ev[4];
  ASSERT_EQ(reactor_.Wait(ev, 4, 1000), 1);
  EXPECT_EQ(ev[0].data.u64, 7u);
  ASSERT_TRUE(reactor_.Modify(fds_[1], 0, 8).ok());
  EXPECT_EQ(reactor_.WaitNs(ev, 4, 1'000'000), 0);  // a 1 ms timeout, no events
  reactor_.Remove(fds_[1]);
  EXPECT_FALSE(reactor_.Modify(fds_[1], Reactor::kWritable, 9).ok());  // no longer registered
}

}  // namespace
}  // namespace memstand

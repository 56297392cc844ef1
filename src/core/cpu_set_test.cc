#include "core/cpu_set.h"

#include <unistd.h>

#include <thread>

#include <gtest/gtest.h>

namespace memstand {
namespace {

TEST(CpuList, ParsesNumbersRangesAndTheirMix) {
  EXPECT_EQ(*ParseCpuList("0"), (CpuList{0}));
  EXPECT_EQ(*ParseCpuList("0-3"), (CpuList{0, 1, 2, 3}));
  EXPECT_EQ(*ParseCpuList("0,2-3"), (CpuList{0, 2, 3}));
  EXPECT_EQ(*ParseCpuList("5,1"), (CpuList{1, 5}));
  EXPECT_EQ(*ParseCpuList("7-7"), (CpuList{7}));
  EXPECT_EQ(*ParseCpuList("1023"), (CpuList{1023}));
}

TEST(CpuList, RefusesMalformedListsSayingWhatIsAccepted) {
  for (const char* bad : {"", ",", "0,", ",0", "0,,1", "-", "-1", "1-", "3-1", "a", "0x1", "1.5", " 0", "0 ",
                          "0 - 1", "+1", "1024", "99999", "0-1024", "1-2-3", "0,0", "0-2,1", "none", "all"}) {
    auto r = ParseCpuList(bad);
    ASSERT_FALSE(r.ok()) << "'" << bad << "'";
    EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument) << bad;
    EXPECT_NE(r.status().message().find("bad CPU list '" + std::string(bad) + "'"), std::string::npos)
        << r.status().message();
    EXPECT_NE(r.status().message().find("e.g. 0, 0-3, 0,2-3"), std::string::npos) << r.status().message();
  }
  EXPECT_NE(ParseCpuList("3-1").status().message().find("ends below its start"), std::string::npos);
  EXPECT_NE(ParseCpuList("0-2,1").status().message().find("CPU 1 is named twice"), std::string::npos);
}

TEST(CpuList, TextWritesRunsAsRangesAndReadsBack) {
  EXPECT_EQ(CpuListText({}), "");
  EXPECT_EQ(CpuListText({1}), "1");
  EXPECT_EQ(CpuListText({0, 1}), "0-1");
  EXPECT_EQ(CpuListText({0, 2, 3, 4, 7, 9, 10}), "0,2-4,7,9-10");
  for (const char* text : {"0", "0-3", "0,2-3", "1,3,5-8"}) EXPECT_EQ(CpuListText(*ParseCpuList(text)), text);
  EXPECT_EQ(CpuUnion({0, 2}, {1, 2}), (CpuList{0, 1, 2}));
}

TEST(CpuList, OnlineCpusAreThisMachines) {
  auto online = OnlineCpus();
  ASSERT_TRUE(online.ok()) << online.status().message();
  EXPECT_EQ(online->size(), static_cast<size_t>(sysconf(_SC_NPROCESSORS_ONLN)));
  EXPECT_TRUE(ParseOnlineCpuList(CpuListText(*online), "--cpus").ok());
  const int beyond = online->back() + 1;
  auto r = ParseOnlineCpuList(std::to_string(beyond), "--cpus");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "--cpus " + std::to_string(beyond) + ": CPU " + std::to_string(beyond) +
                                      " is not online on this machine (online: " + CpuListText(*online) + ")");
  EXPECT_NE(ParseOnlineCpuList("0-", "--cpus").status().message().find("--cpus: bad CPU list '0-'"),
            std::string::npos);
}

TEST(CpuList, APinnedThreadReadsItsCpusBackAndOthersKeepTheirs) {
  auto before = ThisThreadCpus();
  ASSERT_TRUE(before.ok());
  const int last = before->back();
  CpuList inside;
  Status pinned;
  std::thread t([&] {
    pinned = PinThisThread({last});
    inside = *ThisThreadCpus();
  });
  t.join();
  ASSERT_TRUE(pinned.ok()) << pinned.message();
  EXPECT_EQ(inside, (CpuList{last}));
  EXPECT_EQ(*ThisThreadCpus(), *before);  // the calling thread is untouched
  EXPECT_EQ(*ProcessCpus(getpid()), *before);  // the main thread's, as /proc says
  EXPECT_EQ(ProcessCpus(0).status().code(), Status::Code::kNotFound);
}

TEST(CpuList, DifferenceKeepsWhatTheSecondListLacks) {
  EXPECT_EQ(CpuDifference({0, 1, 2, 5}, {1, 5}), (CpuList{0, 2}));
  EXPECT_EQ(CpuDifference({0, 1}, {0, 1}), CpuList{});
  EXPECT_EQ(CpuDifference({3}, {}), (CpuList{3}));
}

// Confined for its scope, then given back its CPUs; a thread started meanwhile inherits
// the confinement. Run in a thread of its own, so the test's main thread is untouched.
TEST(CpuList, ScopedConfinementIsInheritedAndUndone) {
  std::thread([] {
    const CpuList before = *ThisThreadCpus();
    const int last = before.back();
    CpuList inside, child;
    {
      ScopedThreadCpus apart({last});
      ASSERT_TRUE(apart.ok());
      inside = *ThisThreadCpus();
      std::thread([&] { child = *ThisThreadCpus(); }).join();
    }
    EXPECT_EQ(inside, (CpuList{last}));
    EXPECT_EQ(child, (CpuList{last}));
    EXPECT_EQ(*ThisThreadCpus(), before);
    ScopedThreadCpus none({});  // nothing to confine to: left as it is
    EXPECT_FALSE(none.ok());
    EXPECT_EQ(*ThisThreadCpus(), before);
  }).join();
}

}  // namespace
}  // namespace memstand

#include "report/progress.h"

#include <gtest/gtest.h>

namespace memstand {
namespace {

TEST(FormatProgress, DurationRun) {
  ProgressSnapshot s;
  s.elapsed_s = 4;
  s.duration_s = 10;
  s.last_ops = 95012;
  s.last_p99_ns = 412'049;
  s.errors = 3;
  EXPECT_EQ(FormatProgress(s), "4s elapsed, 6s left | 95012 ops/s | p99 412.0 µs | 3 errors");
}

TEST(FormatProgress, ASecondWithFailedOrUnknownOperationsSaysSo) {
  ProgressSnapshot s;
  s.elapsed_s = 4;
  s.duration_s = 10;
  s.last_fail = 2;
  s.last_unknown = 5;
  EXPECT_EQ(FormatProgress(s),
            "4s elapsed, 6s left | 0 ops/s | p99 0.0 µs | 0 errors | last second: fail 2, unknown 5");
}

TEST(FormatProgress, RequestsRunWithLabel) {
  ProgressSnapshot s;
  s.label = "run 2/3";
  s.elapsed_s = 1;
  s.requests_done = 40000;
  s.requests_total = 100000;
  s.last_ops = 40000;
  s.last_p99_ns = 1500;
  EXPECT_EQ(FormatProgress(s), "run 2/3 | 40000/100000 requests | 40000 ops/s | p99 1.5 µs | 0 errors");
}

TEST(FormatProgress, NeverNegativeTimeLeftNorControlCharacters) {
  ProgressSnapshot s;
  s.elapsed_s = 3;  // the last, partial second of a 2.5 s run
  s.duration_s = 2.5;
  std::string line = FormatProgress(s);
  EXPECT_EQ(line, "3s elapsed, 0s left | 0 ops/s | p99 0.0 µs | 0 errors");
  for (char c : line) EXPECT_FALSE(c == '\r' || c == '\n' || c == '\033');
}

}  // namespace
}  // namespace memstand

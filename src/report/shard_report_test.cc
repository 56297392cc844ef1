#include "report/shard_report.h"

#include <gtest/gtest.h>

#include "load/shard_plan.h"

namespace memstand {
namespace {

TEST(ShardReportTest, NamesWhatTheShardTook) {
  LoadOptions o;
  o.commands.resize(1);
  o.commands[0].key_pattern.kind = KeyPatternSpec::Kind::kSequential;
  o.key_min = 0;
  o.key_max = 8;
  o.rate = 10;
  o.duration_s = 1;
  ASSERT_TRUE(ApplyShard({1, 3}, &o).ok());
  const std::string note = ShardNote(o);
  EXPECT_NE(note.find("shard 1/3: keys 3..5 (a slice of 0..8)"), std::string::npos) << note;
  EXPECT_NE(note.find("rate 3.333/s of 10/s"), std::string::npos) << note;
  const nlohmann::ordered_json j = ShardJson(o);
  EXPECT_EQ(j["index"], 1);
  EXPECT_EQ(j["count"], 3);
  EXPECT_EQ(j["key_min"], 3);
  EXPECT_EQ(j["key_max"], 5);
  EXPECT_EQ(j["whole_key_max"], 8);
  EXPECT_EQ(j["rate"], 3.333);
  EXPECT_TRUE(ShardJson(LoadOptions{}).is_null());
}

TEST(ShardReportTest, SaysHowLateAStartWas) {
  LoadOptions o;
  o.start_at_unix_s = 1796149800;
  RunResult r;
  r.series_start_unix_s = 1796149802;
  r.measured_start_unix_s = 1796149802.0005;
  const std::string note = StartNote(o, r);
  EXPECT_NE(note.find("--start-at 2026-12-01T18:30:00Z"), std::string::npos) << note;
  EXPECT_NE(note.find("LATE by 2.000 s"), std::string::npos) << note;
  const nlohmann::ordered_json j = StartAtJson(o, r);
  EXPECT_EQ(j["series_start_unix_s"], 1796149802.0);
  EXPECT_TRUE(j["missed_the_second"].get<bool>());
  r.series_start_unix_s = 1796149800;
  r.measured_start_unix_s = 1796149800.0001;
  EXPECT_EQ(StartNote(o, r).find("LATE"), std::string::npos);
  EXPECT_TRUE(StartAtJson(LoadOptions{}, r).is_null());
}

}  // namespace
}  // namespace memstand

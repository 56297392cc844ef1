// `memstand scenario run recovery` against a real redis-server, at small sizes: each
// persistence mode killed and restarted; AOF always keeps every acknowledged write, no
// persistence keeps none of the fill.
#include <string>

#include <gtest/gtest.h>

#include "e2e/e2e_util.h"

namespace memstand::e2e {
namespace {

TEST(RecoveryE2E, EachModeIsKilledRestartedAndMeasured) {
  const std::string dir = TempDir();
  Outcome out = RunMemstand({"scenario", "run", "recovery", "--memory", "8MiB,24MiB", "--kill-at", "1.5s", "--after",
                             "2s", "--rate", "300", "--json", dir + "/r.json", "--evidence", dir + "/ev", "-q"},
                            240);
  ASSERT_EQ(out.exit_code, 0) << out.output;
  const auto doc = ReadJson(dir + "/r.json");
  ASSERT_EQ(doc["cells"].size(), 8u) << out.output;
  for (const auto& c : doc["cells"]) {
    const std::string name = c["configuration"].get<std::string>() + " " + std::to_string(c["memory"].get<uint64_t>());
    EXPECT_TRUE(c["failure"].is_null()) << name << "\n" << out.output;
    EXPECT_GT(c["used_memory"].get<int64_t>(), 0) << name;
    ASSERT_TRUE(c["load_seconds"].is_number()) << name;
    EXPECT_GT(c["load_seconds"].get<double>(), 0) << name;
    EXPECT_TRUE(c["seconds_per_gb"].is_number()) << name;
    EXPECT_GE(c["accept_s"].get<double>(), c["restart_s"].get<double>()) << name;
    EXPECT_GE(c["first_write_s"].get<double>(), c["kill_s"].get<double>()) << name;
    const int64_t fill = c["fill_keys"].get<int64_t>();
    EXPECT_GT(fill, 1000) << name;
    if (c["configuration"] == "none") {
      EXPECT_EQ(c["fill_present"], 0) << name;      // nothing came back
      EXPECT_GT(c["lost"].get<uint64_t>(), 0u) << name;  // the load's writes before the kill
    } else {
      EXPECT_EQ(c["fill_present"], fill) << name;   // the fill is in the snapshot or the AOF
    }
    if (c["configuration"] == "aof-always") {
      EXPECT_EQ(c["lost"], 0) << name;
    }
  }
  EXPECT_TRUE(doc["anomalies"].empty());
  EXPECT_NE(out.output.find("Results: back after a kill"), std::string::npos);
}

}  // namespace
}  // namespace memstand::e2e

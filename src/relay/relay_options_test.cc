#include "relay/relay_options.h"

#include <gtest/gtest.h>

namespace memstand {
namespace {

TEST(ParseRelayLink, ReadsBothEndpoints) {
  auto l = ParseRelayLink("127.0.0.1:7000=127.0.0.1:6379");
  ASSERT_TRUE(l.ok()) << l.status().message();
  EXPECT_EQ(l->listen_host, "127.0.0.1");
  EXPECT_EQ(l->listen_port, 7000);
  EXPECT_EQ(l->target_host, "127.0.0.1");
  EXPECT_EQ(l->target_port, 6379);
  auto v6 = ParseRelayLink("[::1]:0=[::1]:11211");
  ASSERT_TRUE(v6.ok()) << v6.status().message();
  EXPECT_EQ(v6->listen_host, "::1");
  EXPECT_EQ(v6->listen_port, 0);
  EXPECT_EQ(v6->target_port, 11211);
}

TEST(ParseRelayLink, RefusesWhatIsNotTwoEndpoints) {
  for (const char* bad : {"", "127.0.0.1:7000", "7000=6379", ":7000=127.0.0.1:6379",
                          "127.0.0.1:7000=127.0.0.1:0", "127.0.0.1:70000=127.0.0.1:1",
                          "127.0.0.1:7000=127.0.0.1:6379=x", "[::1:7000=[::1]:1",
                          "127.0.0.1:x=127.0.0.1:1"}) {
    auto l = ParseRelayLink(bad);
    ASSERT_FALSE(l.ok()) << bad;
    EXPECT_EQ(l.status().code(), Status::Code::kInvalidArgument);
    EXPECT_NE(l.status().message().find("bad"), std::string::npos) << l.status().message();
  }
}

TEST(ParseRate, BitsAndBytesInPowersOfAThousand) {
  EXPECT_EQ(*ParseRate("100Mbit"), 12'500'000u);
  EXPECT_EQ(*ParseRate("1Gbit"), 125'000'000u);
  EXPECT_EQ(*ParseRate("8kbit"), 1000u);
  EXPECT_EQ(*ParseRate("800bit"), 100u);
  EXPECT_EQ(*ParseRate("12.5MB"), 12'500'000u);
  EXPECT_EQ(*ParseRate("64kB"), 64'000u);
  EXPECT_EQ(*ParseRate("1000B"), 1000u);
  for (const char* bad : {"", "100", "Mbit", "-1Mbit", "0Mbit", "4bit", "1e30GB", "100mbit"}) {
    auto r = ParseRate(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("e.g. 100Mbit"), std::string::npos);
  }
}

TEST(ParseRelayMode, TwoNames) {
  EXPECT_EQ(*ParseRelayMode("pipelined"), RelayMode::kPipelined);
  EXPECT_EQ(*ParseRelayMode("serializing"), RelayMode::kSerializing);
  EXPECT_FALSE(ParseRelayMode("serial").ok());
  EXPECT_STREQ(RelayModeName(RelayMode::kSerializing), "serializing");
}

TEST(ParseOnOff, OnOrOffAndNothingElse) {
  EXPECT_TRUE(*ParseOnOff("on"));
  EXPECT_FALSE(*ParseOnOff("off"));
  for (const char* bad : {"", "yes", "ON", "1", "true", "of"}) {
    auto v = ParseOnOff(bad);
    ASSERT_FALSE(v.ok()) << bad;
    EXPECT_EQ(v.status().code(), Status::Code::kInvalidArgument);
    EXPECT_NE(v.status().message().find("expected on or off"), std::string::npos) << v.status().message();
  }
  EXPECT_TRUE(RelayOptions{}.segment_tap);  // on by default, where it can open
}

}  // namespace
}  // namespace memstand

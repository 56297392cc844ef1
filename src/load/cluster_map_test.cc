#include "load/cluster_map.h"

#include <gtest/gtest.h>

namespace memstand {
namespace {

// Reference values: the CRC16 test vector of the Redis Cluster specification and
// slots CLUSTER KEYSLOT returns on redis-server 7.
TEST(ClusterMap, Crc16AndKeySlots) {
  EXPECT_EQ(Crc16("123456789"), 0x31C3);
  EXPECT_EQ(KeySlot("foo"), 12182);
  EXPECT_EQ(KeySlot("bar"), 5061);
  EXPECT_EQ(KeySlot("memtier-1"), KeySlot("memtier-1"));
  EXPECT_EQ(KeySlot(""), 0);
}

TEST(ClusterMap, HashTags) {
  EXPECT_EQ(KeySlot("{user1000}.following"), KeySlot("{user1000}.followers"));
  EXPECT_EQ(KeySlot("{user1000}.following"), KeySlot("user1000"));
  EXPECT_EQ(KeySlot("foo{}{bar}"), KeySlot("foo{}{bar}"));  // empty tag: the whole key
  EXPECT_NE(KeySlot("foo{}{bar}"), KeySlot("bar"));
  EXPECT_EQ(KeySlot("foo{{bar}}zap"), KeySlot("{bar"));    // from the first '{' to the next '}'
  EXPECT_EQ(KeySlot("foo{bar}{zap}"), KeySlot("bar"));     // only the first tag
  EXPECT_EQ(KeySlot("foo{bar"), Crc16("foo{bar") % 16384);  // unclosed: the whole key
}

resp::Reply Int(int64_t v) {
  resp::Reply r;
  r.type = resp::Type::kInteger;
  r.integer = v;
  return r;
}
resp::Reply Str(const std::string& s) {
  resp::Reply r;
  r.type = resp::Type::kBulkString;
  r.str = s;
  return r;
}
resp::Reply Arr(std::vector<resp::Reply> e) {
  resp::Reply r;
  r.type = resp::Type::kArray;
  r.elements = std::move(e);
  return r;
}

TEST(ClusterMap, ParsesClusterSlots) {
  resp::Reply reply = Arr({
      Arr({Int(0), Int(5460), Arr({Str("127.0.0.1"), Int(7000), Str("id0")}),
           Arr({Str("127.0.0.1"), Int(7003), Str("id3")})}),
      Arr({Int(5461), Int(10922), Arr({Str(""), Int(7001), Str("id1")})}),
      Arr({Int(10923), Int(16383), Arr({Str("127.0.0.1"), Int(7002)})}),
  });
  auto map = ParseClusterSlots(reply, "10.0.0.1");
  ASSERT_TRUE(map.ok()) << map.status().message();
  ASSERT_EQ(map->nodes().size(), 3u);
  EXPECT_EQ(map->UncoveredSlots(), 0);
  EXPECT_EQ(map->NodeOf(0), 0);
  EXPECT_EQ(map->NodeOf(5460), 0);
  EXPECT_EQ(map->NodeOf(5461), 1);
  EXPECT_EQ(map->NodeOf(16383), 2);
  EXPECT_EQ(map->nodes()[1].host, "10.0.0.1");  // empty host: the seed's
  ASSERT_EQ(map->nodes()[0].replicas.size(), 1u);
  EXPECT_EQ(map->nodes()[0].replicas[0].second, 7003);
}

TEST(ClusterMap, MalformedClusterSlots) {
  EXPECT_FALSE(ParseClusterSlots(Int(1), "h").ok());
  EXPECT_FALSE(ParseClusterSlots(Arr({Arr({Int(0), Int(20000), Arr({Str("h"), Int(1)})})}), "h").ok());
  EXPECT_FALSE(ParseClusterSlots(Arr({Arr({Int(5), Int(1), Arr({Str("h"), Int(1)})})}), "h").ok());
  EXPECT_FALSE(ParseClusterSlots(Arr({Arr({Int(0), Int(1)})}), "h").ok());
  EXPECT_FALSE(ParseClusterSlots(Arr({Arr({Int(0), Int(1), Arr({Str("h"), Int(0)})})}), "h").ok());
  EXPECT_FALSE(ParseClusterSlots(Arr({Arr({Int(0), Int(1), Str("h")})}), "h").ok());
  resp::Reply err;
  err.type = resp::Type::kError;
  err.str = "ERR This instance has cluster support disabled";
  auto s = ParseClusterSlots(err, "h");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("cluster support disabled"), std::string::npos);
  // A partial map parses; the uncovered slots are counted.
  auto partial = ParseClusterSlots(Arr({Arr({Int(0), Int(99), Arr({Str("h"), Int(1)})})}), "h");
  ASSERT_TRUE(partial.ok());
  EXPECT_EQ(partial->UncoveredSlots(), 16384 - 100);
  EXPECT_EQ(partial->NodeOf(100), -1);
}

TEST(ClusterMap, Redirects) {
  auto m = ParseRedirect("MOVED 3999 127.0.0.1:6381");
  ASSERT_TRUE(m.has_value());
  EXPECT_FALSE(m->ask);
  EXPECT_EQ(m->slot, 3999);
  EXPECT_EQ(m->host, "127.0.0.1");
  EXPECT_EQ(m->port, 6381);
  auto a = ParseRedirect("ASK 0 ::1:7000");
  ASSERT_TRUE(a.has_value());
  EXPECT_TRUE(a->ask);
  EXPECT_EQ(a->host, "::1");
  EXPECT_EQ(a->port, 7000);
  auto empty_host = ParseRedirect("MOVED 1 :7000");
  ASSERT_TRUE(empty_host.has_value());
  EXPECT_EQ(empty_host->host, "");
  for (const char* bad : {"ERR x", "MOVED", "MOVED 3999", "MOVED x 1.2.3.4:5", "MOVED 16384 h:1",
                          "MOVED 1 h", "MOVED 1 h:0", "MOVED 1 h:70000", "ASK -1 h:1", "MOVED 1 h:1x",
                          "TRYAGAIN Multiple keys request during rehashing of slot"}) {
    EXPECT_FALSE(ParseRedirect(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace memstand

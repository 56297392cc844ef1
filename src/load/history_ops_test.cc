// What --history makes of a mix (load/history_ops.h): each command a read or a write of
// a register, or a refusal naming the command; for Tarantool the space, the keys' kind
// and the value's field.
#include "load/history_ops.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "load/command_spec.h"

namespace memstand {
namespace {

LoadOptions MixOf(Protocol p, const std::vector<std::string>& texts) {
  LoadOptions opt;
  opt.protocol = p;
  opt.key_prefix = "k:";
  opt.value.min_size = opt.value.max_size = 100;
  for (const std::string& t : texts) {
    auto spec = MakeCommandSpec(p, t, opt.key_prefix, KeyPatternSpec{}, 1, CommandLimits{});
    EXPECT_TRUE(spec.ok()) << t << ": " << spec.status().message();
    if (spec.ok()) opt.commands.push_back(*spec);
  }
  return opt;
}

TEST(HistoryPlanTest, RedisGetAndSetAreARegistersReadAndWrite) {
  auto plan = PlanHistory(MixOf(Protocol::kResp, {"SET {u}__key__ __data__", "GET {u}__key__"}));
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->ops, (std::vector<history::Op>{history::Op::kWrite, history::Op::kRead}));
  EXPECT_EQ(plan->key_prefix, "{u}k:");
  EXPECT_FALSE(PlanHistory(MixOf(Protocol::kResp, {"SET __key__ __data__ NX"})).ok());
}

TEST(HistoryPlanTest, TarantoolSelectsAndReplacesOfOneSpace) {
  auto plan = PlanHistory(MixOf(Protocol::kIproto, {"replace kv [__key__, 'x', __data__]", "select kv 0 [__key__]",
                                                    "select kv 0 eq [__key__] limit 1"}));
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->ops, (std::vector<history::Op>{history::Op::kWrite, history::Op::kRead, history::Op::kRead}));
  EXPECT_EQ(plan->key_prefix, "k:");
  EXPECT_FALSE(plan->key_numbers);
  EXPECT_EQ(plan->value_field, 2);

  auto numbers =
      PlanHistory(MixOf(Protocol::kIproto, {"replace 512 [__keynum__, __data__]", "select 512 0 [__keynum__]"}));
  ASSERT_TRUE(numbers.ok()) << numbers.status().message();
  EXPECT_TRUE(numbers->key_numbers);
  EXPECT_EQ(numbers->key_prefix, "");
  EXPECT_EQ(numbers->value_field, 1);
}

TEST(HistoryPlanTest, TarantoolRequestsThatAreNotARegistersAreRefusedByName) {
  const std::vector<std::vector<std::string>> bad = {
      {"insert kv [__key__, __data__]"},                            // not a register's write
      {"replace kv [__data__, __key__]"},                           // the key not first
      {"replace kv [__key__, __data__, __data__]"},                 // two values
      {"replace kv [__key__, __data__, __rand:8__]"},               // a field that is not a constant
      {"select kv 1 [__key__]"},                                    // not the primary index
      {"select kv 0 ge [__key__]"},                                 // not eq
      {"select kv 0 [__key__] offset 1"},                           // an offset
      {"select kv 0 [__key__, 1]"},                                 // two parts
      {"call box.space.kv:get __key__"},                            // a function
  };
  for (const auto& mix : bad) {
    auto plan = PlanHistory(MixOf(Protocol::kIproto, mix));
    ASSERT_FALSE(plan.ok()) << mix[0];
    EXPECT_NE(plan.status().message().find("'" + mix[0] + "' is neither"), std::string::npos)
        << plan.status().message();
  }
  auto spaces = PlanHistory(MixOf(Protocol::kIproto, {"replace kv [__key__, __data__]", "select 512 0 [__key__]"}));
  ASSERT_FALSE(spaces.ok());
  EXPECT_NE(spaces.status().message().find("same registers"), std::string::npos) << spaces.status().message();
  auto keys = PlanHistory(MixOf(Protocol::kIproto, {"replace kv [__key__, __data__]", "select kv 0 [__keynum__]"}));
  EXPECT_FALSE(keys.ok());
  auto fields = PlanHistory(
      MixOf(Protocol::kIproto, {"replace kv [__key__, __data__]", "replace kv [__key__, 1, __data__]"}));
  ASSERT_FALSE(fields.ok());
  EXPECT_NE(fields.status().message().find("same field"), std::string::npos) << fields.status().message();
}

TEST(HistoryPlanTest, MemcachedGetAndSetAndShortValuesThatCannotCarryATag) {
  auto memcache = PlanHistory(MixOf(Protocol::kMemcache, {"set __key__ __data__", "get __key__"}));
  ASSERT_TRUE(memcache.ok()) << memcache.status().message();
  EXPECT_EQ(memcache->ops, (std::vector<history::Op>{history::Op::kWrite, history::Op::kRead}));
  EXPECT_EQ(memcache->key_prefix, "k:");
  auto add = PlanHistory(MixOf(Protocol::kMemcache, {"add __key__ __data__"}));
  ASSERT_FALSE(add.ok());
  EXPECT_NE(add.status().message().find("'add __key__ __data__' is neither"), std::string::npos);
  LoadOptions small = MixOf(Protocol::kResp, {"SET __key__ __data__"});
  small.value.min_size = 8;
  EXPECT_FALSE(PlanHistory(small).ok());
}

}  // namespace
}  // namespace memstand

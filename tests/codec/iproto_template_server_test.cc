// Tarantool request templates (src/proto/iproto/request_template.h) against a real Tarantool:
// every request kind sent from a template, its reply and its effect checked, and the
// counts checked against box.stat().
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "codec/tarantool_test_util.h"
#include "proto/iproto/request_template.h"
#include "proto/iproto/iproto.h"

namespace memstand::iproto {
namespace {

using codec_test::A;
using codec_test::BlockingConn;
using codec_test::S;
using codec_test::U;

class IprotoTemplateServerTest : public codec_test::TarantoolTest<IprotoTemplateServerTest> {
 public:
  // A 'scalar' primary key takes both the string keys of __key__ and the numbers of
  // __seq__. Guest may do everything: no auth needed.
  static constexpr const char* kInitLua = R"(
box.cfg{memtx_memory = 64 * 1024 * 1024, wal_mode = 'none', log_level = 4}
local s = box.schema.space.create('test', {id = 512})
s:create_index('pk', {type = 'tree', parts = {1, 'scalar'}})
local u = box.schema.space.create('users', {id = 513})
u:create_index('pk', {type = 'tree', parts = {1, 'unsigned'}})
box.schema.user.grant('guest', 'read,write,execute', 'universe')
crud = {replace = function(space, tuple) return box.space[space]:replace(tuple) end}
box.cfg{listen = '127.0.0.1:{PORT}'}
)";

 protected:
  // Sends one request from `text` and returns its reply's IPROTO_DATA; fails the test
  // on an error reply or a wrong sync.
  Value Send(const std::string& text, TemplateArgs args = {}) {
    auto t = RequestTemplate::Parse(text);
    EXPECT_TRUE(t.ok()) << text << ": " << t.status().message();
    if (!t.ok()) return Value();
    args.rng = &rng_;
    Buffer out;
    t->Append(&out, ++sync_, args);
    EXPECT_TRUE(conn_->Send(out).ok());
    Status s = conn_->ReadReply(&reader_);
    EXPECT_TRUE(s.ok()) << s.message();
    const Summary& sum = reader_.summary();
    EXPECT_FALSE(sum.is_error) << text << ": " << sum.error;
    EXPECT_EQ(sum.sync, sync_);
    ++sent_[t->label()];
    return reader_.TakeData();
  }

  // box.stat() totals by request name, in one EVAL.
  std::map<std::string, uint64_t> Stats() {
    const Value data = Send(
        "eval 'local r = {} for k, v in pairs(box.stat()) do r[k] = v.total end return r'");
    std::map<std::string, uint64_t> out;
    if (data.items().size() != 1) return out;
    const Value& map = data.items()[0];
    for (size_t i = 0; i + 1 < map.items().size(); i += 2) {
      out[map.items()[i].str()] = map.items()[i + 1].uint_value();
    }
    return out;
  }

  Reader reader_{Reader::Mode::kFull};
  Rng rng_{1};
  uint64_t sync_ = 0;
  std::map<std::string, uint64_t> sent_;
};

TEST_F(IprotoTemplateServerTest, EveryKindFromATemplate) {
  EXPECT_EQ(Send("ping"), Value());

  const TemplateArgs k1{.key_index = 1, .key_prefix = "user:", .data = "v1"};
  const TemplateArgs k2{.key_index = 2, .key_prefix = "user:", .data = "v2"};
  EXPECT_EQ(Send("replace 512 [__key__, __data__]", k1), A({A({S("user:1"), S("v1")})}));
  const std::string kSelect = "select 512 0 eq [__key__] limit 1 offset 0";
  EXPECT_EQ(Send(kSelect, k1), A({A({S("user:1"), S("v1")})}));  // a hit
  EXPECT_EQ(Send(kSelect, k2), A({}));                            // a miss

  EXPECT_EQ(Send("update 512 0 [__key__] [['=', 2, __data__]]", {.key_index = 1, .key_prefix = "user:", .data = "new"}),
            A({A({S("user:1"), S("new")})}));
  // UPSERT returns nothing; the first inserts its tuple, the second applies '+'.
  EXPECT_EQ(Send("upsert 512 [__key__, 1] [['+', 2, 10]]", k2), A({}));
  EXPECT_EQ(Send("upsert 512 [__key__, 1] [['+', 2, 10]]", k2), A({}));
  EXPECT_EQ(Send(kSelect, k2), A({A({S("user:2"), U(11)})}));
  EXPECT_EQ(Send("delete 512 0 [__key__]", k2), A({A({S("user:2"), U(11)})}));
  EXPECT_EQ(Send(kSelect, k2), A({}));

  const Value inserted = Send("insert 512 [__seq__, nil, __rand:128__]", {.seq = 1000});
  ASSERT_EQ(inserted.items().size(), 1u);
  ASSERT_EQ(inserted.items()[0].items().size(), 3u);
  EXPECT_EQ(inserted.items()[0].items()[0], U(1000));
  EXPECT_EQ(inserted.items()[0].items()[1], Value());
  EXPECT_EQ(inserted.items()[0].items()[2].str().size(), 128u);

  const Value called = Send("call crud.replace 'users' [__seq__, nil, __rand:16__]", {.seq = 5});
  ASSERT_EQ(called.items().size(), 1u);
  EXPECT_EQ(called.items()[0].items().at(0), U(5));
  EXPECT_EQ(Send("select 513 0 [__seq__]", {.seq = 5}).items().size(), 1u);

  EXPECT_EQ(Send("eval 'return box.space.test:get(...)[2]' __key__", k1), A({S("new")}));
  EXPECT_EQ(Send("eval 'return select(\"#\", ...), ...' 1 'two' [3] {'k': nil}"),
            A({U(4), U(1), S("two"), A({U(3)}), Value::Map({{S("k"), Value()}})}));
  EXPECT_EQ(Send("select 512 0 all [] limit 2").items().size(), 2u);
  EXPECT_EQ(Send("select 512 0 ge ['user:'] limit 10").items().size(), 1u);  // numbers sort first
}

TEST_F(IprotoTemplateServerTest, BoxStatCountsWhatTemplatesSent) {
  const auto before = Stats();
  sent_.clear();
  constexpr int kEach = 40;
  for (uint64_t i = 0; i < kEach; ++i) {
    const TemplateArgs a{.key_index = i, .key_prefix = "stat:", .data = "d", .seq = 100000 + i};
    Send("replace 512 [__key__, __data__]", a);
    Send("select 512 0 eq [__key__]", a);
    Send("update 512 0 [__key__] [['=', 2, __data__]]", a);
    Send("upsert 512 [__key__, 1] [['=', 2, 'u']]", a);
    Send("insert 512 [__seq__, __int:-5:5__]", a);
    Send("delete 512 0 [__key__]", a);
    Send("call crud.replace 'users' [__seq__]", a);
  }
  const auto after = Stats();
  auto delta = [&](const char* name) { return after.at(name) - before.at(name); };
  EXPECT_EQ(delta("SELECT"), kEach);
  EXPECT_EQ(delta("INSERT"), kEach);
  EXPECT_EQ(delta("UPDATE"), kEach);
  EXPECT_EQ(delta("UPSERT"), kEach);
  EXPECT_EQ(delta("DELETE"), kEach);
  EXPECT_EQ(delta("CALL"), kEach);
  EXPECT_EQ(delta("REPLACE"), 2 * kEach);  // crud.replace replaces too
  EXPECT_EQ(sent_["CALL crud.replace"], uint64_t{kEach});
}

}  // namespace
}  // namespace memstand::iproto

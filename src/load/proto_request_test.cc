#include "load/etcd_request.h"
#include "load/iproto_request.h"
#include "load/memcache_request.h"
#include "load/proto_request.h"

#include <gtest/gtest.h>

namespace memstand {
namespace {

template <class R>
std::string Encode(const R& r, uint64_t key, std::string_view data, uint64_t sync = 0) {
  Buffer out;
  std::string s1, s2;
  ProtoArgs a{key, data, sync, &s1, &s2};
  size_t n = r.Append(&out, a);
  EXPECT_EQ(n, out.Readable());
  return std::string(out.View());
}

TEST(ProtoRequestTest, MemcacheTemplates) {
  auto set = MemcacheRequest::Parse("set user:__key__ __data__", "k");
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(Encode(*set, 42, "abc"), "set user:k42 0 0 3\r\nabc\r\n");
  EXPECT_FALSE(set->counts_hits());
  EXPECT_EQ(set->server_stat(), "cmd_set");
  auto add = MemcacheRequest::Parse("add __key__ __data__", "k");
  ASSERT_TRUE(add.ok());
  EXPECT_TRUE(add->counts_hits());
  auto cas = MemcacheRequest::Parse("cas __key__ v 7", "k");
  ASSERT_TRUE(cas.ok()) << cas.status().message();
  EXPECT_EQ(Encode(*cas, 1, ""), "cas k1 0 0 1 7\r\nv\r\n");
  auto incr = MemcacheRequest::Parse("incr __key__ 5", "k");
  ASSERT_TRUE(incr.ok());
  EXPECT_EQ(Encode(*incr, 3, ""), "incr k3 5\r\n");
  EXPECT_FALSE(MemcacheRequest::Parse("get", "k").ok());
  EXPECT_FALSE(MemcacheRequest::Parse("cas __key__ v x", "k").ok());
  EXPECT_FALSE(MemcacheRequest::Parse("hset __key__ f v", "k").ok());
}

TEST(ProtoRequestTest, EtcdTemplates) {
  auto put = EtcdRequest::Parse("put __key__ __data__", "k");
  ASSERT_TRUE(put.ok());
  std::string bytes = Encode(*put, 1, "v");
  EXPECT_NE(bytes.find("POST /v3/kv/put HTTP/1.1"), std::string::npos) << bytes;
  EXPECT_NE(bytes.find("{\"key\":\"azE=\",\"value\":\"dg==\"}"), std::string::npos) << bytes;
  EXPECT_FALSE(EtcdRequest::Parse("range", "k").ok());
  EXPECT_FALSE(EtcdRequest::Parse("txn __key__", "k").ok());
}

TEST(ProtoRequestTest, IprotoTemplates) {
  auto rep = IprotoRequest::Parse("replace 512 [__key__, __data__, 7, 'x']", "k");
  ASSERT_TRUE(rep.ok()) << rep.status().message();
  EXPECT_EQ(rep->label(), "REPLACE");
  auto sel = IprotoRequest::Parse("select memstand 0 [__key__]", "k");
  ASSERT_TRUE(sel.ok()) << sel.status().message();
  ASSERT_TRUE(sel->ResolveSpace([](const std::string& name) -> Result<uint32_t> {
                   EXPECT_EQ(name, "memstand");
                   return 600u;
                 }).ok());
  EXPECT_TRUE(sel->counts_hits());
  // The request decodes as a packet the reader frames; our reader reads responses, so
  // check the frame: 0xce, a 4-byte length equal to the rest.
  std::string bytes = Encode(*rep, 9, "v", 77);
  ASSERT_GT(bytes.size(), 5u);
  EXPECT_EQ(static_cast<unsigned char>(bytes[0]), 0xce);
  const uint32_t len = (uint32_t{static_cast<unsigned char>(bytes[1])} << 24) |
                       (uint32_t{static_cast<unsigned char>(bytes[2])} << 16) |
                       (uint32_t{static_cast<unsigned char>(bytes[3])} << 8) |
                       uint32_t{static_cast<unsigned char>(bytes[4])};
  EXPECT_EQ(len, bytes.size() - 5);
  EXPECT_NE(bytes.find("k9"), std::string::npos);
  EXPECT_FALSE(IprotoRequest::Parse("select memstand [__key__]", "k").ok());
  EXPECT_FALSE(IprotoRequest::Parse("replace 1 [__value__]", "k").ok());
  EXPECT_FALSE(IprotoRequest::Parse("upsert 1 []", "k").ok());
  EXPECT_FALSE(IprotoRequest::Parse("replace __key__ [1]", "k").ok());
  EXPECT_EQ(IprotoErrorName(3), "ER_TUPLE_FOUND");
  EXPECT_EQ(IprotoErrorName(47), "ER_PASSWORD_MISMATCH");
}

}  // namespace
}  // namespace memstand

namespace memstand {
namespace {

// A space name resolves to the same bytes as the id written in the template; every
// grammar element of iproto::RequestTemplate is accepted.
TEST(ProtoRequestTest, IprotoSpaceNamesAndFullGrammar) {
  auto byname = IprotoRequest::Parse("select users 0 ge [__key__] limit 10 offset 2", "k");
  ASSERT_TRUE(byname.ok()) << byname.status().message();
  ASSERT_TRUE(byname->ResolveSpace([](const std::string& name) -> Result<uint32_t> {
                       EXPECT_EQ(name, "users");
                       return 512u;
                     }).ok());
  auto byid = IprotoRequest::Parse("select 512 0 ge [__key__] limit 10 offset 2", "k");
  ASSERT_TRUE(byid.ok());
  EXPECT_EQ(Encode(*byname, 5, "", 3), Encode(*byid, 5, "", 3));
  EXPECT_EQ(byname->server_stat(), "SELECT");
  auto missing = IprotoRequest::Parse("insert nosuch [1]", "k");
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->ResolveSpace([](const std::string&) -> Result<uint32_t> {
                         return Status::NotFound("no space 'nosuch'");
                       }).ok());
  for (const char* text : {"ping", "insert 512 [__seq__, __rand:16__]", "upsert 512 [__key__, 1] [['+', 2, 1]]",
                           "update 512 0 [__key__] [['=', 2, __data__]]", "delete 512 0 [__keynum__]",
                           "call crud.replace 'users' [__seq__, nil, __rand:128__]",
                           "eval 'return ...' __int:1:9__ __key__"}) {
    auto r = IprotoRequest::Parse(text, "k");
    EXPECT_TRUE(r.ok()) << text << ": " << r.status().message();
  }
  auto call = IprotoRequest::Parse("call crud.replace 'users' [__seq__]", "k");
  ASSERT_TRUE(call.ok());
  EXPECT_EQ(call->server_stat(), "CALL");
  EXPECT_TRUE(call->uses_seq());
  EXPECT_FALSE(call->uses_rng());
  // __seq__ is what the caller numbers: 300 is encoded as uint16 0xcd 0x01 0x2c.
  Buffer out;
  std::string s1, s2;
  ProtoArgs a{0, "", 1, &s1, &s2};
  a.seq = 300;
  call->Append(&out, a);
  EXPECT_NE(std::string(out.View()).find("\x91\xcd\x01\x2c"), std::string::npos);
  // --shard 2/3: the shard's own 100 goes out as 100 * 3 + 2 = 302 (0xcd 0x01 0x2e).
  call->set_shard({2, 3});
  Buffer sharded;
  a.seq = 100;
  call->Append(&sharded, a);
  EXPECT_NE(std::string(sharded.View()).find("\x91\xcd\x01\x2e"), std::string::npos);
  auto upd = IprotoRequest::Parse("update 1 0 [__key__] [['=', 2, 1]]", "k");
  ASSERT_TRUE(upd.ok());
  EXPECT_EQ(upd->server_stat(), "UPDATE");
  EXPECT_FALSE(upd->counts_hits());
}

// CheckLimits: "" when accepted, else the message.
template <class R>
std::string Limits(const std::string& text, const std::string& prefix, uint64_t key_max, size_t value) {
  auto r = R::Parse(text, prefix);
  EXPECT_TRUE(r.ok()) << r.status().message();
  Status s = r.ok() ? r->CheckLimits(key_max, value, "-d/--data-size") : r.status();
  return s.ok() ? "" : s.message();
}

TEST(ProtoRequestTest, MemcacheKeysAreCheckedBeforeSending) {
  // 250 bytes is the limit: prefix 243 + 7 digits of 9999999.
  EXPECT_EQ(Limits<MemcacheRequest>("get __key__", std::string(243, 'k'), 9999999, 32), "");
  EXPECT_NE(Limits<MemcacheRequest>("get __key__", std::string(244, 'k'), 9999999, 32)
                .find("longest key is 251 bytes"), std::string::npos);
  // Literal text counts too, and names --command.
  EXPECT_NE(Limits<MemcacheRequest>("get " + std::string(251, 'a'), "k", 9, 32)
                .find("--command: memcache keys are at most 250 bytes"), std::string::npos);
  EXPECT_NE(Limits<MemcacheRequest>("set __key__ __data__", "a\r\nflush_all\r\n", 9, 32)
                .find("--key-prefix: 'a\\x0d\\x0aflush_all"), std::string::npos);
  EXPECT_NE(Limits<MemcacheRequest>("get \"x\\x7f__key__\"", "k", 9, 32)
                .find("--command: 'x\\x7f' puts the control character 0x7f at byte 1"),
            std::string::npos);
  // A prefix no template uses is not a key; values are length-prefixed, any bytes.
  EXPECT_EQ(Limits<MemcacheRequest>("get fixed", "a b", 9, 32), "");
  EXPECT_EQ(Limits<MemcacheRequest>("set k \"a b\\r\\n\"", "k", 9, 32), "");
}

TEST(ProtoRequestTest, EtcdRequestsWithinTheDefaultLimit) {
  const size_t limit = (3u << 19) - 64 - 8;  // key "k" + 7 digits
  EXPECT_EQ(Limits<EtcdRequest>("put __key__ __data__", "k", 9999999, limit), "");
  EXPECT_NE(Limits<EtcdRequest>("put __key__ __data__", "k", 9999999, limit + 1)
                .find("-d/--data-size: an etcd PUT of up to 1572801 bytes"), std::string::npos);
  EXPECT_EQ(Limits<EtcdRequest>("range __key__", "k", 9999999, 1u << 30), "");
  EXPECT_EQ(Limits<IprotoRequest>("replace 512 [__key__, __data__]", "a\r\nb", 9, 1u << 29),
            "");
  EXPECT_NE(Limits<IprotoRequest>("replace 512 [__data__, __data__, __data__, __data__]", "k",
                   9, 1u << 29)
                .find("-d/--data-size: REPLACE would make IPROTO requests of up to"),
            std::string::npos);
}

}  // namespace
}  // namespace memstand

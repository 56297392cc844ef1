// The IPROTO codec against a real Tarantool (Debian's), over a blocking loopback
// socket: greeting, chap-sha1 auth, every request type, errors with their codes,
// responses matched by sync, and counts checked against box.stat().
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "codec/tarantool_test_util.h"
#include "proto/iproto/iproto.h"

namespace memstand::iproto {
namespace {

using codec_test::A;
using codec_test::BlockingConn;
using codec_test::S;
using codec_test::U;

class IprotoServerTest : public codec_test::TarantoolTest<IprotoServerTest> {
 public:
  // Schema first, listen last: once the port accepts, the space and the user exist.
  static constexpr const char* kInitLua = R"(
box.cfg{memtx_memory = 64 * 1024 * 1024, wal_mode = 'none', log_level = 4}
local s = box.schema.space.create('test', {id = 512})
s:create_index('pk', {type = 'tree', parts = {1, 'unsigned'}})
box.schema.user.create('bench', {password = 'secret'})
box.schema.user.grant('bench', 'read,write,execute', 'universe')
function echo(...) return ... end
function fail() error('boom') end
box.cfg{listen = '127.0.0.1:{PORT}'}
)";

 protected:
  // Sends what out_ holds and reads one response (full mode).
  Summary RoundTrip(Value* data = nullptr) {
    EXPECT_TRUE(conn_->Send(out_).ok());
    out_.Clear();
    Status s = conn_->ReadReply(&reader_);
    EXPECT_TRUE(s.ok()) << s.message();
    if (data != nullptr) *data = reader_.TakeData();
    return reader_.summary();
  }

  Summary Auth(const std::string& user, const std::string& password) {
    AppendAuth(&out_, ++sync_, user, ChapSha1Scramble(password, greeting_.salt));
    return RoundTrip();
  }

  // EVAL returning one unsigned number.
  uint64_t EvalNumber(const std::string& expr) {
    AppendEval(&out_, ++sync_, expr, Encode(A({})));
    Value data;
    Summary s = RoundTrip(&data);
    EXPECT_FALSE(s.is_error) << s.error;
    if (data.items().empty() || data.items()[0].type() != Value::Type::kUint) {
      ADD_FAILURE() << expr << " -> " << ToString(data);
      return 0;
    }
    return data.items()[0].uint_value();
  }

  Buffer out_;
  Reader reader_{Reader::Mode::kFull};
  uint64_t sync_ = 0;
};

TEST_F(IprotoServerTest, GreetingAndAuth) {
  EXPECT_EQ(greeting_.protocol, "Binary");
  EXPECT_EQ(greeting_.version.substr(0, 2), "2.");
  EXPECT_GE(greeting_.salt.size(), 20u);

  AppendPing(&out_, 77);
  Summary ping = RoundTrip();
  EXPECT_FALSE(ping.is_error);
  EXPECT_EQ(ping.sync, 77u);

  Summary wrong = Auth("bench", "wrong");
  EXPECT_TRUE(wrong.is_error);
  EXPECT_EQ(wrong.error, "Incorrect password supplied for user 'bench'");
  EXPECT_EQ(wrong.error_code, 47u);  // ER_CREDS_MISMATCH
  Summary nouser = Auth("nobody", "x");
  EXPECT_TRUE(nouser.is_error);
  EXPECT_EQ(nouser.error, "User 'nobody' is not found");

  // As guest, the space is not readable.
  AppendSelect(&out_, ++sync_, SelectRequest{.space_id = 512});
  Summary denied = RoundTrip();
  EXPECT_TRUE(denied.is_error);
  EXPECT_NE(denied.error.find("Read access to space 'test' is denied for user 'guest'"), std::string::npos)
      << denied.error;

  Summary ok = Auth("bench", "secret");
  EXPECT_FALSE(ok.is_error) << ok.error;
  AppendSelect(&out_, ++sync_, SelectRequest{.space_id = 512});
  EXPECT_FALSE(RoundTrip().is_error);
}

TEST_F(IprotoServerTest, EveryRequestType) {
  ASSERT_FALSE(Auth("bench", "secret").is_error);
  Value data;
  AppendInsert(&out_, ++sync_, 512, Encode(A({U(1), S("one")})));
  Summary ins = RoundTrip(&data);
  EXPECT_FALSE(ins.is_error) << ins.error;
  EXPECT_EQ(ins.data_count, 1u);
  EXPECT_EQ(ToString(data), R"([[1, "one"]])");
  EXPECT_GT(ins.schema_version, 0u);

  AppendInsert(&out_, ++sync_, 512, Encode(A({U(1), S("again")})));
  Summary dup = RoundTrip();
  EXPECT_TRUE(dup.is_error);
  EXPECT_EQ(dup.error_code, 3u);  // ER_TUPLE_FOUND
  EXPECT_NE(dup.error.find("Duplicate key exists in unique index 'pk' in space 'test'"), std::string::npos)
      << dup.error;
  EXPECT_EQ(dup.error_type, "ClientError");

  AppendReplace(&out_, ++sync_, 512, Encode(A({U(2), S("two")})));
  EXPECT_FALSE(RoundTrip().is_error);
  AppendUpdate(&out_, ++sync_, 512, 0, Encode(A({U(2)})), Encode(A({A({S("="), U(2), S("TWO")})})));
  RoundTrip(&data);
  EXPECT_EQ(ToString(data), R"([[2, "TWO"]])");
  AppendUpsert(&out_, ++sync_, 512, Encode(A({U(3), U(10)})), Encode(A({A({S("+"), U(2), U(5)})})));
  Summary up = RoundTrip(&data);
  EXPECT_FALSE(up.is_error) << up.error;
  EXPECT_EQ(up.data_count, 0u);  // upsert returns nothing
  AppendUpsert(&out_, ++sync_, 512, Encode(A({U(3), U(10)})), Encode(A({A({S("+"), U(2), U(5)})})));
  RoundTrip();

  SelectRequest all{.space_id = 512, .iterator = Iterator::kAll};
  AppendSelect(&out_, ++sync_, all);
  Summary sel = RoundTrip(&data);
  EXPECT_EQ(sel.data_count, 3u);
  EXPECT_EQ(ToString(data), R"([[1, "one"], [2, "TWO"], [3, 15]])");
  SelectRequest page{.space_id = 512, .iterator = Iterator::kGe, .limit = 1, .offset = 1,
                     .key = "\x91\x01"};
  AppendSelect(&out_, ++sync_, page);
  RoundTrip(&data);
  EXPECT_EQ(ToString(data), R"([[2, "TWO"]])");

  AppendDelete(&out_, ++sync_, 512, 0, Encode(A({U(1)})));
  RoundTrip(&data);
  EXPECT_EQ(ToString(data), R"([[1, "one"]])");
  AppendDelete(&out_, ++sync_, 512, 0, Encode(A({U(1)})));
  EXPECT_EQ(RoundTrip().data_count, 0u);

  AppendCall(&out_, ++sync_, "echo", Encode(A({U(1), S("x"), Value::Nil()})));
  RoundTrip(&data);
  EXPECT_EQ(ToString(data), R"([1, "x", null])");
  AppendCall(&out_, ++sync_, "fail", Encode(A({})));
  Summary boom = RoundTrip();
  EXPECT_TRUE(boom.is_error);
  EXPECT_NE(boom.error.find("boom"), std::string::npos) << boom.error;
  AppendCall(&out_, ++sync_, "no_such_function", Encode(A({})));
  Summary nofunc = RoundTrip();
  EXPECT_EQ(nofunc.error_code, 33u);  // ER_NO_SUCH_PROC
  EXPECT_EQ(nofunc.error, "Procedure 'no_such_function' is not defined");
  AppendEval(&out_, ++sync_, "return ...", Encode(A({U(7), Value::Bool(true)})));
  RoundTrip(&data);
  EXPECT_EQ(ToString(data), "[7, true]");
  AppendSelect(&out_, ++sync_, SelectRequest{.space_id = 999});
  Summary nospace = RoundTrip();
  EXPECT_EQ(nospace.error_code, 36u);  // ER_NO_SUCH_SPACE
  EXPECT_EQ(nospace.error, "Space '999' does not exist");
}

// Many requests in flight on one connection: every sync answered once, and the
// server's box.stat() counts what we sent.
TEST_F(IprotoServerTest, MultiplexedBySyncAndCountedByBoxStat) {
  ASSERT_FALSE(Auth("bench", "secret").is_error);
  const uint64_t inserts_before = EvalNumber("return box.stat().INSERT.total");
  const uint64_t selects_before = EvalNumber("return box.stat().SELECT.total");
  constexpr int kRequests = 400;
  std::map<uint64_t, bool> expect_error;  // sync -> whether an error is expected
  for (int i = 0; i < kRequests; ++i) {
    const uint64_t sync = 1000 + static_cast<uint64_t>(i) * 7;
    if (i % 2 == 0) {
      // Every 10th insert reuses the key of the insert before it: a duplicate.
      const uint64_t id = 100000 + static_cast<uint64_t>(i % 20 == 0 && i > 0 ? i - 2 : i);
      AppendInsert(&out_, sync, 512, Encode(A({U(id), S(std::string(128, 'x'))})));
      expect_error[sync] = i % 20 == 0 && i > 0;
    } else {
      const std::string key = Encode(A({U(100000 + static_cast<uint64_t>(i - 1))}));
      SelectRequest r{.space_id = 512, .key = key};
      AppendSelect(&out_, sync, r);
      expect_error[sync] = false;
    }
  }
  ASSERT_TRUE(conn_->Send(out_).ok());
  out_.Clear();
  Reader summary_reader(Reader::Mode::kSummary);
  std::set<uint64_t> seen;
  int errors = 0;
  for (int i = 0; i < kRequests; ++i) {
    Status s = conn_->ReadReply(&summary_reader);
    ASSERT_TRUE(s.ok()) << s.message();
    const Summary& sum = summary_reader.summary();
    ASSERT_TRUE(expect_error.count(sum.sync)) << sum.sync;
    EXPECT_TRUE(seen.insert(sum.sync).second) << "sync answered twice: " << sum.sync;
    EXPECT_EQ(sum.is_error, expect_error[sum.sync]) << sum.sync << " " << sum.error;
    errors += sum.is_error ? 1 : 0;
  }
  EXPECT_EQ(seen.size(), static_cast<size_t>(kRequests));
  EXPECT_EQ(errors, kRequests / 20 - 1);
  // box.stat() counts requests, failed ones included.
  EXPECT_EQ(EvalNumber("return box.stat().INSERT.total") - inserts_before, kRequests / 2u);
  EXPECT_EQ(EvalNumber("return box.stat().SELECT.total") - selects_before, kRequests / 2u);
}

}  // namespace
}  // namespace memstand::iproto

// Application errors in CALL and EVAL replies as a real Tarantool sends them: Lua
// functions returning nil, 'boom'; nil and a crud-like error object; nil, nil; one
// value; box.NULL; a long error; a box.error object; each reply's IPROTO_DATA read by
// FindCallError and FormatCallError in every mode.
#include <gtest/gtest.h>

#include <string>

#include "codec/tarantool_test_util.h"
#include "proto/iproto/call_error.h"
#include "proto/iproto/iproto.h"

namespace memstand::iproto {
namespace {

using codec_test::A;

class IprotoCallErrorServerTest : public codec_test::TarantoolTest<IprotoCallErrorServerTest> {
 public:
  static constexpr const char* kInitLua = R"(
box.cfg{memtx_memory = 64 * 1024 * 1024, wal_mode = 'none', log_level = 4}
box.schema.user.grant('guest', 'read,write,execute', 'universe')
function boom() return nil, 'boom' end
function crud_like()
  return nil, {class_name = 'InsertError', err = 'Duplicate key exists',
               str = 'InsertError: Duplicate key exists', file = 'crud/insert.lua', line = 84,
               stack = string.rep('stack traceback: frame\n', 100)}
end
function err_field() return nil, {err = 'no str here'} end
function nil_nil() return nil, nil end
function one_value() return 'x' end
function null_null() return box.NULL, box.NULL end
function null_boom() return box.NULL, 'boom' end
function value_warning() return 1, 'warning' end
function long_error() return nil, string.rep('0123456789', 100) end
function box_error() return nil, box.error.new({code = 42, reason = 'a box error'}) end
function number_error() return nil, 42 end
box.cfg{listen = '127.0.0.1:{PORT}'}
)";

 protected:
  // The reply to `call fn()` (or an eval of `expr`) read in `mode`: "kind | message", "ok"
  // for no application error, or what went wrong.
  std::string Read(CallErrors mode, const std::string& fn, bool eval = false) {
    Buffer out;
    if (eval) {
      AppendEval(&out, 1, fn, Encode(A({})));
    } else {
      AppendCall(&out, 1, fn, Encode(A({})));
    }
    if (!conn_->Send(out).ok()) return "send failed";
    Reader reader(Reader::Mode::kSummary);
    auto raw = conn_->ReadRawReplies(&reader, 1);
    if (!raw.ok()) return raw.status().message();
    // Fed again from bytes kept here, so the summary's view of IPROTO_DATA stays valid.
    Reader again(Reader::Mode::kSummary);
    size_t used = 0;
    if (again.Feed(raw->data(), raw->size(), &used) != Reader::Event::kReply) return again.error();
    const Summary& s = again.summary();
    if (s.is_error) return "IPROTO error: " + s.error;
    CallError e;
    if (!FindCallError(s.data, mode, &e)) return "ok";
    std::string kind, message;
    FormatCallError(e, &kind, &message);
    return kind + " | " + message;
  }
};

TEST_F(IprotoCallErrorServerTest, NilAndAnErrorInEveryMode) {
  EXPECT_EQ(Read(CallErrors::kAuto, "boom"), "call: boom | boom");
  EXPECT_EQ(Read(CallErrors::kSecondValue, "boom"), "call: boom | boom");
  EXPECT_EQ(Read(CallErrors::kNone, "boom"), "ok");
  EXPECT_EQ(Read(CallErrors::kAuto, "return nil, 'boom'", true), "call: boom | boom");  // eval
  EXPECT_EQ(Read(CallErrors::kAuto, "crud_like"),
            "call: InsertError: Duplicate key exists | InsertError: Duplicate key exists");
  EXPECT_EQ(Read(CallErrors::kAuto, "err_field"), "call: no str here | no str here");
  EXPECT_EQ(Read(CallErrors::kAuto, "number_error"), "call: uint | an error value of type uint");
  // Tarantool 2.x sends a box.error object as its message unless the client negotiates
  // the error extension (memstand does not).
  EXPECT_EQ(Read(CallErrors::kAuto, "box_error"), "call: a box error | a box error");
}

TEST_F(IprotoCallErrorServerTest, NilsOneValueAndBoxNull) {
  for (CallErrors mode : {CallErrors::kAuto, CallErrors::kSecondValue}) {
    EXPECT_EQ(Read(mode, "nil_nil"), "ok");
    EXPECT_EQ(Read(mode, "one_value"), "ok");
    EXPECT_EQ(Read(mode, "null_null"), "ok");                 // box.NULL is nil on the wire
    EXPECT_EQ(Read(mode, "null_boom"), "call: boom | boom");  // as is a box.NULL first
  }
  EXPECT_EQ(Read(CallErrors::kAuto, "value_warning"), "ok");
  EXPECT_EQ(Read(CallErrors::kSecondValue, "value_warning"), "call: warning | warning");
}

TEST_F(IprotoCallErrorServerTest, ALongErrorIsCut) {
  const std::string digits = "0123456789";
  std::string text;
  while (text.size() < 1000) text += digits;
  EXPECT_EQ(Read(CallErrors::kAuto, "long_error"),
            "call: " + text.substr(0, kCallKindTextMax) + "... | " + text.substr(0, kCallMessageMax) + "...");
  // crud's 2.3 KB stack trace never reaches the kind: its str field does.
  const std::string crud = Read(CallErrors::kAuto, "crud_like");
  EXPECT_EQ(crud.find("stack"), std::string::npos) << crud;
}

}  // namespace
}  // namespace memstand::iproto

// Application errors in CALL replies from hand-encoded IPROTO_DATA: each mode, each type
// of err, truncated MessagePack, and the kind's text cut and made printable. The same
// decoding against a real Tarantool: tests/codec/iproto_call_error_server_test.cc.
#include "proto/iproto/call_error.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "proto/iproto/value.h"

namespace memstand::iproto {
namespace {

Value Str(std::string s) { return Value::String(std::move(s)); }

// "kind | message", or "ok" when the results are no application error.
std::string Read(const std::string& data, CallErrors mode) {
  CallError e;
  if (!FindCallError(data, mode, &e)) return "ok";
  std::string kind = "stale", message = "stale";
  FormatCallError(e, &kind, &message);
  return kind + " | " + message;
}

std::string Results(std::vector<Value> values) { return Encode(Value::Array(std::move(values))); }

TEST(CallErrorTest, NilAndAStringIsAnErrorOfThatKind) {
  const std::string data = Results({Value::Nil(), Str("boom")});
  EXPECT_EQ(Read(data, CallErrors::kAuto), "call: boom | boom");
  EXPECT_EQ(Read(data, CallErrors::kSecondValue), "call: boom | boom");
  EXPECT_EQ(Read(data, CallErrors::kNone), "ok");
  // Values past the second do not matter.
  EXPECT_EQ(Read(Results({Value::Nil(), Str("boom"), Value::Uint(3)}), CallErrors::kAuto),
            "call: boom | boom");
}

TEST(CallErrorTest, WhatAutoAndSecondValueLeaveAlone) {
  for (CallErrors mode : {CallErrors::kAuto, CallErrors::kSecondValue}) {
    EXPECT_EQ(Read(Results({Value::Nil(), Value::Nil()}), mode), "ok");  // nil, nil (box.NULL too)
    EXPECT_EQ(Read(Results({Value::Nil()}), mode), "ok");                // one value: nothing absent is an error
    EXPECT_EQ(Read(Results({Str("boom")}), mode), "ok");
    EXPECT_EQ(Read(Results({}), mode), "ok");
    EXPECT_EQ(Read(Results({Value::Uint(1), Value::Nil()}), mode), "ok");
  }
  // A value first: auto reads it as a result, second-value as a result and an error.
  const std::string data = Results({Value::Uint(1), Str("warning")});
  EXPECT_EQ(Read(data, CallErrors::kAuto), "ok");
  EXPECT_EQ(Read(data, CallErrors::kSecondValue), "call: warning | warning");
  EXPECT_EQ(Read(Results({Value::Bool(false), Value::Bool(false)}), CallErrors::kSecondValue),
            "call: bool | an error value of type bool");
}

TEST(CallErrorTest, AMapGivesItsStrElseItsErrElseMap) {
  auto map = [](std::vector<std::pair<Value, Value>> pairs) {
    return Results({Value::Nil(), Value::Map(std::move(pairs))});
  };
  // crud's error object: class_name, err, str ("<class_name>: <err>"), file, line, stack.
  EXPECT_EQ(Read(map({{Str("class_name"), Str("InsertError")},
                      {Str("err"), Str("Duplicate key")},
                      {Str("line"), Value::Uint(12)},
                      {Str("str"), Str("InsertError: Duplicate key")}}),
                 CallErrors::kAuto),
            "call: InsertError: Duplicate key | InsertError: Duplicate key");
  EXPECT_EQ(Read(map({{Str("err"), Str("only err")}}), CallErrors::kAuto), "call: only err | only err");
  // A "str" that is no string, or empty, is passed over; keys of other types skipped.
  EXPECT_EQ(Read(map({{Value::Uint(1), Str("str")}, {Str("str"), Value::Uint(5)}, {Str("err"), Str("e")}}),
                 CallErrors::kAuto),
            "call: e | e");
  EXPECT_EQ(Read(map({{Str("str"), Str("")}, {Str("err"), Str("e2")}}), CallErrors::kAuto), "call: e2 | e2");
  EXPECT_EQ(Read(map({{Str("code"), Value::Uint(7)}}), CallErrors::kAuto),
            "call: map | an error value of type map");
  EXPECT_EQ(Read(map({}), CallErrors::kAuto), "call: map | an error value of type map");
}

TEST(CallErrorTest, OtherTypesAreNamed) {
  EXPECT_EQ(Read(Results({Value::Nil(), Value::Uint(42)}), CallErrors::kAuto),
            "call: uint | an error value of type uint");
  EXPECT_EQ(Read(Results({Value::Nil(), Value::Int(-1)}), CallErrors::kAuto),
            "call: int | an error value of type int");
  EXPECT_EQ(Read(Results({Value::Nil(), Value::Double(0.5)}), CallErrors::kAuto),
            "call: double | an error value of type double");
  EXPECT_EQ(Read(Results({Value::Nil(), Value::Array({Str("boom")})}), CallErrors::kAuto),
            "call: array | an error value of type array");
  EXPECT_EQ(Read(Results({Value::Nil(), Str("")}), CallErrors::kAuto),
            "call: empty string | an error value of type empty string");
  // bin and ext, which Value does not encode: bin 8 of 2 bytes, fixext 1.
  EXPECT_EQ(Read(std::string("\x92\xc0\xc4\x02hi", 6), CallErrors::kAuto),
            "call: bin | an error value of type bin");
  EXPECT_EQ(Read(std::string("\x92\xc0\xd4\x01\x00", 5), CallErrors::kAuto),
            "call: ext | an error value of type ext");
}

TEST(CallErrorTest, ALongErrorIsCutAtACharacter) {
  const std::string long_err = std::string(62, 'a') + "\xc3\xa9" + std::string(300, 'b');  // é at 62..63
  const std::string out = Read(Results({Value::Nil(), Str(long_err)}), CallErrors::kAuto);
  const std::string kind = out.substr(0, out.find(" | "));
  const std::string message = out.substr(out.find(" | ") + 3);
  EXPECT_EQ(kind, "call: " + std::string(62, 'a') + "\xc3\xa9...");
  EXPECT_EQ(message, std::string(62, 'a') + "\xc3\xa9" + std::string(kCallMessageMax - 64, 'b') + "...");
  // One byte later the é no longer fits: the cut falls before it, not inside it.
  const std::string shifted = std::string(63, 'a') + "\xc3\xa9";
  EXPECT_EQ(Read(Results({Value::Nil(), Str(shifted)}), CallErrors::kAuto),
            "call: " + std::string(63, 'a') + "... | " + shifted);
  // Exactly the limit: not cut.
  const std::string exact(kCallKindTextMax, 'c');
  EXPECT_EQ(Read(Results({Value::Nil(), Str(exact)}), CallErrors::kAuto), "call: " + exact + " | " + exact);
}

TEST(CallErrorTest, ControlCharactersAndBadUtf8AreReplaced) {
  // A newline, a tab, ESC, DEL, a C1 control (U+009B), a lone continuation byte, an
  // overlong '/', a truncated é at the end; valid UTF-8 (µ) kept.
  const std::string err = std::string("a\nb\tc\x1b[31md\x7f") + "\xc2\x9b" + "\x80" + "\xc0\xaf" + "\xc2\xb5" + "\xc3";
  EXPECT_EQ(Read(Results({Value::Nil(), Str(err)}), CallErrors::kAuto),
            "call: a b c [31md ???\?\xc2\xb5? | a b c [31md ???\?\xc2\xb5?");
}

TEST(CallErrorTest, MalformedResultsAreNoError) {
  // The reader refuses these before a session reads them; read alone they are no error
  // and nothing past the bytes is touched.
  const std::vector<std::string> bad = {
      std::string("", 0),
      std::string("\x92\xc0", 2),              // two values announced, one there
      std::string("\x92\xc0\xa4" "bo", 5),     // the string cut after the first value
      std::string("\x92\xc0\xd9", 3),          // str 8 without its length
      std::string("\x92\xc0\x81\xa3str", 6),   // a map's value missing
      std::string("\x92\xc0\x81\xa3str\xa4" "bo", 8),
      std::string("\x92\xc1\xa1x", 4),         // 0xc1 (never used) first, second-value
      std::string("\xc0", 1),                  // not an array
  };
  for (const std::string& data : bad) {
    for (CallErrors mode : {CallErrors::kAuto, CallErrors::kSecondValue}) {
      EXPECT_EQ(Read(data, mode), "ok") << ::testing::PrintToString(data);
    }
  }
}

TEST(CallErrorTest, ModesParseByName) {
  for (CallErrors m : {CallErrors::kAuto, CallErrors::kNone, CallErrors::kSecondValue}) {
    EXPECT_EQ(ParseCallErrors(CallErrorsName(m)), m);
  }
  EXPECT_EQ(CallErrorsName(CallErrors::kSecondValue), std::string("second-value"));
  EXPECT_FALSE(ParseCallErrors("Auto").has_value());
  EXPECT_FALSE(ParseCallErrors("").has_value());
}

}  // namespace
}  // namespace memstand::iproto

// Application errors in the replies to CALL and EVAL: Lua's `return nil, err` convention
// (crud, and most Tarantool modules), read from a reply's IPROTO_DATA, which IPROTO
// itself reports as a success. docs/protocols.md ("Application errors in CALL replies")
// defines what each mode reads. No I/O; nothing allocated unless it is an error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace memstand::iproto {

/// --call-errors: which replies to CALL and EVAL are application errors.
enum class CallErrors : uint8_t {
  kNone,         // none: only IPROTO's own error responses (as before --call-errors)
  kAuto,         // [nil, err, ...] with err not nil: the `return nil, err` convention
  kSecondValue,  // [x, err, ...] with err not nil, whatever x is
};

/// "auto", "none", "second-value"; nullopt for anything else.
std::optional<CallErrors> ParseCallErrors(std::string_view text);
const char* CallErrorsName(CallErrors mode);

/// The kind's text is at most this many bytes of err (then "..."), the message at most
/// kCallMessageMax: crud's error objects carry a whole stack trace.
constexpr size_t kCallKindTextMax = 64;
constexpr size_t kCallMessageMax = 256;

/// What an application error said.
struct CallError {
  /// err itself, or its map's "str" (else "err") field: a view into the reply's bytes.
  /// Empty when err is of another type (or its field an empty string).
  std::string_view text;
  /// err's MessagePack type when `text` is not from a string: "map", "uint", "bool", ...
  const char* type = nullptr;
};

/// Of a CALL or EVAL reply's IPROTO_DATA (`data`: its bytes, one MessagePack array):
/// true when `mode` makes the reply an application error, with *err filled. False for
/// kNone, fewer than two values, a nil second value, (kAuto) a first value that is not
/// nil, and for bytes that do not decode as that (the reader has checked them already).
bool FindCallError(std::string_view data, CallErrors mode, CallError* err);

/// The error's kind, "call: <text>" (text cut at kCallKindTextMax bytes, then "..."; a
/// type name for text from no string: "call: map"), and its message (text cut at
/// kCallMessageMax bytes), both valid UTF-8 without control characters: a control
/// character becomes a space, a byte of no valid UTF-8 sequence '?', and a cut never
/// splits a character. Written over *kind and *message (their capacity is reused).
void FormatCallError(const CallError& err, std::string* kind, std::string* message);

}  // namespace memstand::iproto

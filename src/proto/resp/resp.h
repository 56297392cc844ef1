// RESP2/RESP3 codec: an incremental reader fed bytes, and command encoders.
// No I/O here. The reader keeps its position between Feed() calls, so a reply split
// at any byte boundary is parsed without rescanning what was already seen.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/buffer.h"

namespace memstand::resp {

enum class Type : uint8_t {
  kSimpleString,  // +
  kError,         // -
  kInteger,       // :
  kBulkString,    // $
  kArray,         // *
  kNull,          // _  (and RESP2 $-1 / *-1, reported with is_null)
  kDouble,        // ,
  kBoolean,       // #
  kBigNumber,     // (
  kBlobError,     // !
  kVerbatim,      // =
  kMap,           // %
  kSet,           // ~
  kAttribute,     // |
  kPush,          // >
};

const char* TypeName(Type t);

/// A fully materialized reply (Reader::Mode::kFull).
struct Reply {
  Type type = Type::kNull;
  bool is_null = false;    // RESP3 null, RESP2 null bulk ($-1) or null array (*-1)
  std::string str;         // simple/bulk/verbatim/error/blob error/big number/double text
  int64_t integer = 0;     // kInteger; kBoolean as 0/1
  std::vector<Reply> elements;  // aggregates; a map holds key, value, key, value, ...

  bool is_error() const { return type == Type::kError || type == Type::kBlobError; }
  /// For a map reply: the value for `key`, or nullptr.
  const Reply* Find(std::string_view key) const;
};

/// What the load engine needs of a top-level reply, without materializing it.
struct Summary {
  Type type = Type::kNull;
  bool is_null = false;
  bool is_error = false;
  int64_t integer = 0;   // kInteger
  std::string error;     // error text (first 256 bytes) when is_error
  size_t wire_bytes = 0; // bytes of the whole reply on the wire
};

class Reader {
 public:
  enum class Mode { kSummary, kFull };
  enum class Event { kNeedMore, kReply, kProtocolError };
  struct Limits {
    size_t max_line = 64 * 1024;            // longest header/simple line
    int64_t max_bulk = 512LL * 1024 * 1024;  // longest bulk string
    int64_t max_elements = 1LL << 26;        // largest aggregate
    int max_depth = 64;                      // deepest nesting
  };

  explicit Reader(Mode mode = Mode::kSummary) : Reader(mode, Limits{}) {}
  Reader(Mode mode, Limits limits);

  /// Consumes bytes of data[0..len) and stops right after the first complete
  /// top-level reply (kReply) or at the end of the input (kNeedMore). *consumed is the
  /// number of bytes used. After kProtocolError the reader stays failed until Reset();
  /// error() describes the fault.
  /// RESP3 attributes (|) are consumed and dropped; push messages (>) are replies.
  Event Feed(const char* data, size_t len, size_t* consumed);

  /// REQUIRES: the last Feed() returned kReply.
  const Summary& summary() const { return summary_; }
  /// REQUIRES: Mode::kFull and the last Feed() returned kReply. Moves the reply out.
  Reply TakeReply();
  const std::string& error() const { return error_; }
  void Reset();

 private:
  struct Frame;  // defined in resp.cc
  Mode mode_;
  Limits limits_;
  Summary summary_;
  std::string error_;
  // Implementation state (parser stack, partial line, partial bulk, reply under
  // construction) is owned here; see resp.cc.
  struct State;
  std::shared_ptr<State> state_;
};

/// Appends `*N\r\n` for an array of n elements.
void AppendArrayHeader(Buffer* out, size_t n);
/// Appends `$len\r\n<bytes>\r\n`.
void AppendBulk(Buffer* out, std::string_view bytes);
/// Appends a whole command as an array of bulk strings.
void AppendCommand(Buffer* out, std::span<const std::string_view> args);
std::string EncodeCommand(std::initializer_list<std::string_view> args);

}  // namespace memstand::resp

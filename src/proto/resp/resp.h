// RESP2/RESP3 codec: an incremental reader fed bytes, and command encoders.
// No I/O here. The reader keeps its position between Feed() calls, so a reply split
// at any byte boundary is parsed without rescanning what was already seen.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
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
  kNull,          // _  (and RESP2 $-1 / *-1: all three are kNull with is_null set)
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
  bool is_null = false;         // RESP3 null, RESP2 null bulk ($-1) or null array (*-1)
  std::string str;              // simple/bulk/verbatim/error/blob error/big number/double text;
                                // kVerbatim holds the text without its "txt:" format prefix
  int64_t integer = 0;          // kInteger; kBoolean as 0/1
  std::vector<Reply> elements;  // aggregates; a map holds key, value, key, value, ...

  bool is_error() const { return type == Type::kError || type == Type::kBlobError; }
  /// For a map reply: the value for `key`, or nullptr.
  const Reply* Find(std::string_view key) const;
};

/// What the load engine needs of a top-level reply, without materializing it.
/// is_error and error describe the top-level reply only (not errors nested in an array).
struct Summary {
  Type type = Type::kNull;
  bool is_null = false;
  bool is_error = false;
  int64_t integer = 0;    // kInteger; kBoolean as 0/1
  std::string error;      // error text (first 256 bytes) when is_error
  size_t wire_bytes = 0;  // bytes of the whole reply on the wire
  /// Reader::KeepHead(n), type kBulkString: the string's first n bytes (all of a
  /// shorter one). Not kept otherwise, and stale for other types: read it only then.
  std::string head;
};

class Reader {
 public:
  enum class Mode { kSummary, kFull };
  enum class Event { kNeedMore, kReply, kProtocolError };
  struct Limits {
    size_t max_line = 64 * 1024;             // longest header/simple line
    int64_t max_bulk = 512LL * 1024 * 1024;  // longest bulk string
    int64_t max_elements = 1LL << 26;        // largest aggregate
    int max_depth = 64;                      // deepest nesting
  };

  explicit Reader(Mode mode = Mode::kSummary) : Reader(mode, Limits{}) {}
  Reader(Mode mode, Limits limits);

  /// Consumes bytes of data[0..len) and stops right after the first complete
  /// top-level reply (kReply) or at the end of the input (kNeedMore). *consumed is the
  /// number of bytes used. After kProtocolError the reader stays failed until Reset();
  /// error() describes the fault and its byte offset within the reply.
  /// RESP3 attributes (|) are consumed and dropped; push messages (>) are replies.
  /// Streamed RESP3 strings and aggregates ($? *? ...) are protocol errors.
  /// Bytes are never rescanned: a partial header line is kept (at most max_line bytes)
  /// and a partial bulk string is skipped (kSummary) or copied (kFull) as it arrives.
  /// kSummary does not allocate in steady state, except to copy error text.
  Event Feed(const char* data, size_t len, size_t* consumed) {
    // "+OK\r\n", the reply to most writes, right after another reply: handled in line.
    if (emitted_ && mode_ == Mode::kSummary && len >= 5 && std::memcmp(data, "+OK\r\n", 5) == 0) {
      summary_.type = Type::kSimpleString;
      summary_.is_null = false;
      summary_.is_error = false;
      summary_.integer = 0;
      if (!summary_.error.empty()) summary_.error.clear();
      summary_.wire_bytes = 5;
      *consumed = 5;
      return Event::kReply;
    }
    return FeedAny(data, len, consumed);
  }

  /// REQUIRES: the last Feed() returned kReply.
  const Summary& summary() const { return summary_; }
  /// kSummary: keep the first n bytes of each top-level bulk string in
  /// Summary::head (an operation history reads the tag at a value's start); 0: none.
  void KeepHead(size_t n) {
    head_max_ = n;
    summary_.head.reserve(n);
  }
  /// REQUIRES: Mode::kFull and the last Feed() returned kReply. Moves the reply out.
  Reply TakeReply();
  const std::string& error() const { return error_; }
  void Reset();

 private:
  enum class Phase : uint8_t { kLine, kBulk };
  enum class Step : uint8_t { kMore, kReply, kError };
  // An aggregate being read: its type and how many elements are still to come.
  struct Frame {
    Type type;
    int64_t remaining;
  };

  Event FeedAny(const char* data, size_t len, size_t* consumed);
  void StartReply();
  Step FeedLine(const char* data, size_t len, size_t* pos);
  Step FeedBulk(const char* data, size_t len, size_t* pos);
  Step ProcessLine(std::string_view line);
  Step ProcessScalar(char type, std::string_view arg);
  Step StartBulk(Type type, std::string_view arg);
  Step StartAggregate(Type type, std::string_view arg);
  Step FinishBulk();
  Step Leaf(Type type, std::string_view text, int64_t integer, bool is_null);
  Step Complete(Reply* value);
  Step CompleteSummary();
  void NoteTopLevel(Type type, bool is_null, int64_t integer, std::string_view text);
  void CopyBulkBytes(const char* p, size_t n);
  Step Fail(const std::string& what, size_t offset);

  Mode mode_;
  Limits limits_;
  Summary summary_;
  size_t head_max_ = 0;  // KeepHead
  std::string error_;
  size_t FastSummary(const char* data, size_t len);

  bool failed_ = false;
  bool emitted_ = false;  // the last Feed() returned kReply
  size_t base_ = 0;       // reply offset of the first byte of the current Feed() input
  Phase phase_ = Phase::kLine;
  std::string line_;       // header line bytes carried over from earlier input
  size_t line_start_ = 0;  // reply offset of the current line's type byte
  std::vector<Frame> frames_;
  // The bulk string being read: its type, data bytes left, CRLF bytes left.
  Type bulk_type_ = Type::kBulkString;
  int64_t bulk_size_ = 0;
  int64_t bulk_left_ = 0;
  int crlf_left_ = 0;
  std::string bulk_;  // kFull: the payload; kSummary: the verbatim prefix
  // kFull only: aggregates under construction (parallel to frames_) and the result.
  std::vector<Reply> building_;
  Reply result_;
};

/// Appends `*N\r\n` for an array of n elements.
void AppendArrayHeader(Buffer* out, size_t n);
/// Appends `$len\r\n<bytes>\r\n`.
void AppendBulk(Buffer* out, std::string_view bytes);
/// Appends a whole command as an array of bulk strings.
void AppendCommand(Buffer* out, std::span<const std::string_view> args);
std::string EncodeCommand(std::initializer_list<std::string_view> args);

}  // namespace memstand::resp

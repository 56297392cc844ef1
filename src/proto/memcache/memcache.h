// memcached text protocol codec: command encoders that append to a Buffer, and an
// incremental reader of replies fed bytes. No I/O here. The reader keeps its position
// between Feed() calls, so a reply split at any byte boundary is parsed without
// rescanning what was already seen.
//
// Replies are self-describing, so the reader needs no knowledge of the command sent,
// with one exception the caller must handle: a command sent with `noreply` gets no
// reply at all.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/buffer.h"
#include "proto/line_accumulator.h"

namespace memstand::memcache {

/// memcached's own key rule: 1 to 250 bytes, no control bytes and no space.
constexpr size_t kMaxKeyLength = 250;
bool IsValidKey(std::string_view key);
/// The offset of the first byte the rule refuses (a control byte or a space), or npos.
size_t FirstInvalidKeyByte(std::string_view key);

// ---- Encoders. Keys must satisfy IsValidKey (REQUIRES); values are any bytes. ----

/// `get k1 k2 ...\r\n` (gets: `gets ...`, whose VALUE lines carry the cas unique).
/// REQUIRES: !keys.empty().
void AppendGet(Buffer* out, std::span<const std::string_view> keys, bool with_cas = false);
void AppendGet(Buffer* out, std::string_view key, bool with_cas = false);

enum class StoreCommand : uint8_t { kSet, kAdd, kReplace, kAppend, kPrepend };
const char* StoreCommandName(StoreCommand c);

/// `<cmd> <key> <flags> <exptime> <bytes>[ noreply]\r\n<value>\r\n`.
void AppendStore(Buffer* out, StoreCommand cmd, std::string_view key, uint32_t flags,
                 int64_t exptime, std::string_view value, bool noreply = false);
/// `cas <key> <flags> <exptime> <bytes> <cas unique>[ noreply]\r\n<value>\r\n`.
void AppendCas(Buffer* out, std::string_view key, uint32_t flags, int64_t exptime,
               std::string_view value, uint64_t cas_unique, bool noreply = false);
/// `delete <key>[ noreply]\r\n`.
void AppendDelete(Buffer* out, std::string_view key, bool noreply = false);
/// `incr|decr <key> <delta>[ noreply]\r\n`.
void AppendIncr(Buffer* out, std::string_view key, uint64_t delta, bool noreply = false);
void AppendDecr(Buffer* out, std::string_view key, uint64_t delta, bool noreply = false);
/// `touch <key> <exptime>[ noreply]\r\n`.
void AppendTouch(Buffer* out, std::string_view key, int64_t exptime, bool noreply = false);
/// `version\r\n`.
void AppendVersion(Buffer* out);
/// `stats\r\n`, or `stats <group>\r\n` (e.g. "settings", "slabs").
void AppendStats(Buffer* out, std::string_view group = {});

// ---- Reader. ----

enum class Kind : uint8_t {
  kValues,       // VALUE ... END (0 or more values: an empty get is a miss)
  kStored,       // STORED
  kNotStored,    // NOT_STORED
  kExists,       // EXISTS (cas on a changed item)
  kNotFound,     // NOT_FOUND
  kDeleted,      // DELETED
  kTouched,      // TOUCHED
  kOk,           // OK (flush_all, verbosity)
  kNumber,       // the new value after incr/decr
  kVersion,      // VERSION <text>
  kStats,        // STAT <name> <value> ... END (one STAT at least)
  kError,        // ERROR (unknown command)
  kClientError,  // CLIENT_ERROR <message>
  kServerError,  // SERVER_ERROR <message>
};
const char* KindName(Kind k);

/// What the load engine needs of a reply, without materializing it.
struct Summary {
  Kind kind = Kind::kError;
  bool is_error = false;  // kError, kClientError, kServerError
  uint32_t values = 0;    // VALUE blocks of a kValues reply, STAT lines of a kStats one
  uint64_t value_bytes = 0;  // data bytes of those blocks
  uint64_t number = 0;    // kNumber
  std::string error;      // error text (first 256 bytes); "ERROR" for a bare ERROR
  size_t wire_bytes = 0;  // bytes of the whole reply on the wire
  /// Reader::KeepHead(n): the first VALUE's first n bytes (all of a shorter one). Stale
  /// in a reply without a VALUE: read it only when values > 0.
  std::string head;

  /// For a get of one key: a VALUE came. (For several keys, compare `values`.)
  bool hit() const { return values > 0; }
};

struct Value {
  std::string key;
  uint32_t flags = 0;
  std::string data;
  bool has_cas = false;  // gets
  uint64_t cas = 0;
};

/// A fully materialized reply (Reader::Mode::kFull).
struct Reply {
  Kind kind = Kind::kError;
  std::vector<Value> values;                               // kValues
  std::vector<std::pair<std::string, std::string>> stats;  // kStats, in server order
  std::string text;     // kVersion: the version; errors: the message
  uint64_t number = 0;  // kNumber
};

/// The STAT lines of a `stats` reply by name (a later duplicate wins).
std::map<std::string, std::string> StatsMap(const Reply& reply);

class Reader {
 public:
  enum class Mode { kSummary, kFull };
  enum class Event { kNeedMore, kReply, kProtocolError };
  struct Limits {
    size_t max_line = 8 * 1024;               // longest line; a VALUE line is under 300
    uint64_t max_value = 128ULL * 1024 * 1024;  // memcached's item_size_max tops at 1 GiB;
                                              // its default is 1 MiB
    uint32_t max_values = 1u << 20;           // VALUE or STAT lines in one reply
  };

  explicit Reader(Mode mode = Mode::kSummary) : Reader(mode, Limits{}) {}
  Reader(Mode mode, Limits limits);

  /// Consumes bytes of data[0..len) and stops right after the first complete reply
  /// (kReply) or at the end of the input (kNeedMore). *consumed is the number of bytes
  /// used. After kProtocolError the reader stays failed until Reset(); error()
  /// describes the fault and its byte offset within the reply.
  /// An error line (ERROR, CLIENT_ERROR, SERVER_ERROR) inside a VALUE or STAT sequence
  /// ends the reply as that error: memcached sends SERVER_ERROR in place of END when a
  /// get runs out of memory midway.
  /// kSummary does not allocate in steady state, except to copy error text.
  Event Feed(const char* data, size_t len, size_t* consumed);

  /// REQUIRES: the last Feed() returned kReply.
  const Summary& summary() const { return summary_; }
  /// REQUIRES: Mode::kFull and the last Feed() returned kReply. Moves the reply out.
  Reply TakeReply();
  /// Keep the first n bytes of a reply's first VALUE in Summary::head (--history reads
  /// a write's tag there); 0, the default, keeps none.
  void KeepHead(size_t n) {
    head_max_ = n;
    summary_.head.reserve(n);
  }
  const std::string& error() const { return error_; }
  void Reset();

 private:
  enum class Phase : uint8_t { kLine, kData };
  enum class Step : uint8_t { kMore, kReply, kError };

  void StartReply();
  Step FeedLine(const char* data, size_t len, size_t* pos);
  Step FeedData(const char* data, size_t len, size_t* pos);
  Step ProcessLine(std::string_view line);  // a complete line without its CRLF
  Step ProcessBlockLine(std::string_view line);
  Step StartValue(std::string_view args);
  Step AddStat(std::string_view args);
  Step Single(Kind kind, std::string_view text);
  Step ErrorLine(Kind kind, std::string_view message);
  Step Fail(const std::string& what, size_t offset);
  /// The reply offset of the current line.
  size_t line_start() const { return lines_.line_start(); }

  Mode mode_;
  Limits limits_;
  Summary summary_;
  Reply reply_;
  std::string error_;
  bool failed_ = false;
  bool emitted_ = false;
  bool in_block_ = false;  // inside VALUE ... END or STAT ... END
  size_t base_ = 0;        // reply offset of the first byte of the current Feed() input
  Phase phase_ = Phase::kLine;
  proto::LineAccumulator lines_;
  uint64_t data_size_ = 0;
  uint64_t data_left_ = 0;
  int crlf_left_ = 0;
  size_t head_max_ = 0;  // KeepHead
};

}  // namespace memstand::memcache

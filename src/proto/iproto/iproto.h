// Tarantool IPROTO codec: request encoders that append to a Buffer, and an incremental
// reader of responses fed bytes. No I/O here.
//
// Every packet is a 5-byte length prefix (0xce + big-endian uint32), a header map
// ({IPROTO_REQUEST_TYPE: type or status, IPROTO_SYNC: id, ...}) and a body map.
// Responses carry the sync of their request and may come in any order, so one
// connection multiplexes many requests in flight; matching syncs is the caller's job.
//
// Tuples, keys, update operations and call arguments are passed already encoded as a
// MessagePack array (see value.h), so the hot path encodes them once into a scratch
// buffer, or patches a pre-encoded template, and no Value tree is built per request.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/buffer.h"
#include "proto/iproto/constants.h"
#include "proto/iproto/value.h"

namespace memstand::iproto {

// ---- Encoders. `tuple`, `key`, `ops` and `args` must each be one encoded MessagePack
// array (REQUIRES; IsEncodedArray checks it); `sync` is any id the caller chooses. ----

void AppendPing(Buffer* out, uint64_t sync);
/// AUTH with chap-sha1: {USER_NAME: user, TUPLE: ["chap-sha1", scramble]}.
/// `scramble` is ChapSha1Scramble(password, greeting salt).
void AppendAuth(Buffer* out, uint64_t sync, std::string_view user, std::string_view scramble);

struct SelectRequest {
  uint32_t space_id = 0;
  uint32_t index_id = 0;
  Iterator iterator = Iterator::kEq;
  uint32_t limit = UINT32_MAX;  // Tarantool's own default: no limit
  uint32_t offset = 0;
  std::string_view key = "\x90";  // an empty array: every tuple (with kAll or kGe)
};
void AppendSelect(Buffer* out, uint64_t sync, const SelectRequest& request);
void AppendInsert(Buffer* out, uint64_t sync, uint32_t space_id, std::string_view tuple);
void AppendReplace(Buffer* out, uint64_t sync, uint32_t space_id, std::string_view tuple);
void AppendDelete(Buffer* out, uint64_t sync, uint32_t space_id, uint32_t index_id,
                  std::string_view key);
/// UPDATE and UPSERT send IPROTO_INDEX_BASE = 1, so field numbers in `ops` count from 1
/// as in box.space:update() ([["=", 2, "x"]] sets the second field).
void AppendUpdate(Buffer* out, uint64_t sync, uint32_t space_id, uint32_t index_id,
                  std::string_view key, std::string_view ops);
void AppendUpsert(Buffer* out, uint64_t sync, uint32_t space_id, std::string_view tuple,
                  std::string_view ops);
/// CALL (the 1.7+ form: results are returned as they are, not wrapped into tuples).
void AppendCall(Buffer* out, uint64_t sync, std::string_view function, std::string_view args);
void AppendEval(Buffer* out, uint64_t sync, std::string_view expr, std::string_view args);

// ---- Reader. ----

/// What the load engine needs of a response.
struct Summary {
  uint64_t sync = 0;
  uint32_t status = 0;      // IPROTO_REQUEST_TYPE of the response: kOk, kChunk, or
                            // kTypeError | code
  bool is_error = false;
  bool is_push = false;     // kChunk: a box.session.push message; the response follows
  uint32_t error_code = 0;  // box error code (e.g. 3 ER_TUPLE_FOUND) when is_error
  std::string error;        // the message (first 256 bytes): IPROTO_ERROR_24, else the top
                            // of the IPROTO_ERROR stack
  std::string error_type;   // "ClientError", ... from IPROTO_ERROR (2.4.1+), if sent
  uint64_t schema_version = 0;
  bool has_data = false;    // the body had IPROTO_DATA
  uint32_t data_count = 0;  // elements of IPROTO_DATA (tuples, or results of a CALL)
  /// IPROTO_DATA's bytes (one MessagePack array, checked), empty when none: a view into
  /// the bytes fed, or the reader's copy of a split packet, valid until the next Feed()
  /// and while the bytes last fed are (call_error.h reads a CALL's results from it).
  std::string_view data;
  size_t wire_bytes = 0;    // the whole packet, prefix included
};

class Reader {
 public:
  enum class Mode { kSummary, kFull };
  enum class Event { kNeedMore, kReply, kProtocolError };
  struct Limits {
    // Tarantool's own packets are bounded by its memtx_max_tuple_size (1 MiB default)
    // times the tuples of one select; 256 MiB leaves room for a large select.
    uint32_t max_packet = 256u * 1024 * 1024;
    int max_depth = 64;  // deepest MessagePack nesting decoded in kFull or skipped
  };

  explicit Reader(Mode mode = Mode::kSummary) : Reader(mode, Limits{}) {}
  Reader(Mode mode, Limits limits);

  /// Consumes bytes of data[0..len) and stops right after the first complete response
  /// (kReply) or at the end of the input (kNeedMore). *consumed is the number of bytes
  /// used. After kProtocolError the reader stays failed until Reset(); error()
  /// describes the fault and its byte offset within the packet.
  /// A packet whole in the input is decoded in place; a split one is copied into a
  /// buffer kept between packets, so kSummary does not allocate in steady state,
  /// except to copy error text.
  Event Feed(const char* data, size_t len, size_t* consumed);

  /// REQUIRES: the last Feed() returned kReply.
  const Summary& summary() const { return summary_; }
  /// REQUIRES: Mode::kFull and the last Feed() returned kReply. IPROTO_DATA (an array;
  /// nil if the body had none), moved out.
  Value TakeData();
  const std::string& error() const { return error_; }
  void Reset();

 private:
  enum class Step : uint8_t { kMore, kReply, kError };

  void StartPacket();
  Step FeedPrefix(const char* data, size_t len, size_t* pos);
  Step FeedBody(const char* data, size_t len, size_t* pos);
  Step DecodePacket(const char* p, const char* end);
  Step DecodeHeader(class Cursor* c, const char* start);
  Step DecodeBody(class Cursor* c, const char* start);
  Step DecodeErrorStack(class Cursor* c, const char* start);
  Step Fail(const std::string& what, size_t offset);

  Mode mode_;
  Limits limits_;
  Summary summary_;
  Value data_;
  std::string error_;
  bool failed_ = false;
  bool emitted_ = false;
  char prefix_[5] = {};
  size_t prefix_len_ = 0;
  uint32_t body_len_ = 0;
  std::string packet_;  // a split packet's header and body, copied as they arrive
};

}  // namespace memstand::iproto

// HTTP/1.1 client codec for keep-alive connections: a POST encoder that appends to a
// Buffer, and an incremental response reader fed bytes (status line, headers,
// Content-Length or chunked body). No I/O here; only what a JSON API client needs:
// no body-until-close, no upgrades, no multipart.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/buffer.h"
#include "proto/line_accumulator.h"

namespace memstand::http {

/// Appends `POST <path> HTTP/1.1` with Host, Content-Type: application/json and
/// Content-Length headers, then `body`.
void AppendPost(Buffer* out, std::string_view host, std::string_view path, std::string_view body);

/// Appends the request line and headers of a POST whose body of body_size bytes the
/// caller writes right after (so a body can be written in place).
void AppendPostHead(Buffer* out, std::string_view host, std::string_view path, size_t body_size);

struct Response {
  int status = 0;           // 200, 404, ...
  bool keep_alive = true;   // false after "Connection: close" or an HTTP/1.0 reply
  bool chunked = false;     // the body came in chunks
  std::string body;         // the whole body, de-chunked
  size_t wire_bytes = 0;    // bytes of the response on the wire (skipped 1xx included)
};

class ResponseReader {
 public:
  enum class Event { kNeedMore, kReply, kProtocolError };
  struct Limits {
    size_t max_line = 16 * 1024;          // status, header or chunk-size line
    size_t max_headers = 100;             // header lines of one response
    size_t max_body = 64 * 1024 * 1024;   // etcd's largest replies (range of many keys)
  };

  ResponseReader() : ResponseReader(Limits{}) {}
  explicit ResponseReader(Limits limits);

  /// Consumes bytes of data[0..len) and stops right after the first complete response
  /// (kReply) or at the end of the input (kNeedMore). After kProtocolError the reader
  /// stays failed until Reset(); error() gives the fault and its byte offset within the
  /// response. Interim 1xx responses are skipped. The body's buffer keeps its capacity
  /// between responses, so steady state does not allocate.
  Event Feed(const char* data, size_t len, size_t* consumed);

  /// REQUIRES: the last Feed() returned kReply. Valid until the next Feed().
  const Response& response() const { return response_; }
  const std::string& error() const { return error_; }
  void Reset();

 private:
  enum class Phase : uint8_t { kStatus, kHeader, kBody, kChunkSize, kChunkData, kChunkEnd, kTrailer };
  enum class Step : uint8_t { kMore, kReply, kError };

  void StartResponse();
  Step FeedLine(const char* data, size_t len, size_t* pos);
  Step FeedBody(const char* data, size_t len, size_t* pos);
  Step ProcessLine(std::string_view line);  // a complete line without its CRLF
  Step StatusLine(std::string_view line);
  Step HeaderLine(std::string_view line);
  Step EndOfHeaders();
  Step ChunkSizeLine(std::string_view line);
  Step Fail(const std::string& what, size_t offset);
  /// The response offset of the current line.
  size_t line_start() const { return lines_.line_start(); }

  Limits limits_;
  Response response_;
  std::string error_;
  bool failed_ = false;
  bool emitted_ = false;
  Phase phase_ = Phase::kStatus;
  size_t base_ = 0;        // response offset of the current Feed() input's first byte
  proto::LineAccumulator lines_;
  size_t headers_ = 0;
  bool http10_ = false;
  bool has_length_ = false;
  uint64_t content_length_ = 0;
  uint64_t left_ = 0;      // body or chunk bytes still to come
};

}  // namespace memstand::http

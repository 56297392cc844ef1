// PostgreSQL frontend/backend protocol 3.0, the part compute-locality speaks: the
// startup message, simple queries and Terminate; an incremental reader of the backend's
// messages up to ReadyForQuery. No I/O here (client/pg_client does it). The reader
// keeps a partial message between Feed() calls, so a reply split at any byte boundary
// parses the same as whole.
//
// What is refused, as a protocol error: a length below 4 or above the limit, a DataRow
// whose column count or lengths run past its end, COPY (the client never sends one), a
// message type the phase does not allow, and an authentication request other than
// "OK" (memstand's client supports trust only; the private cluster uses trust).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace memstand::pg {

// ---- Encoders: each appends one complete message. ----

/// StartupMessage: protocol 3.0, user and database.
void AppendStartup(std::string* out, std::string_view user, std::string_view database);
/// Query ('Q'): one simple query. REQUIRES: sql holds no NUL byte.
void AppendQuery(std::string* out, std::string_view sql);
/// Terminate ('X').
void AppendTerminate(std::string* out);

// ---- Reader. ----

/// What came back up to ReadyForQuery.
struct Reply {
  std::vector<std::vector<std::string>> rows;  // DataRows, text format; NULL as ""
  std::string tag;                             // CommandComplete: "SELECT 10"
  bool has_error = false;                      // an ErrorResponse came
  std::string error;                           // its M field ("error without a message")
  int64_t messages = 0;                        // every message, ReadyForQuery included
};

class Reader {
 public:
  enum class Event { kNeedMore, kReply, kProtocolError };
  /// kStartup: the answer to a StartupMessage (Authentication, ParameterStatus,
  /// BackendKeyData, notices; an ErrorResponse ends it at once, since the server then
  /// closes). kQuery: the answer to a simple query.
  enum class Phase { kStartup, kQuery };
  struct Limits {
    uint32_t max_message = 1u << 30;  // a length field above this is a protocol error
  };

  explicit Reader(Phase phase);
  Reader(Phase phase, Limits limits);

  /// Consumes bytes of `data` (sets *used). kReply: a reply is complete (TakeReply);
  /// the bytes after it are not consumed. kProtocolError: error() says why; the reader
  /// stays failed. kNeedMore: every byte was consumed.
  Event Feed(const char* data, size_t n, size_t* used);
  Reply TakeReply();
  /// After kReply: the reader reads the next reply in `phase`.
  void Reset(Phase phase);
  const std::string& error() const { return error_; }

 private:
  Event Message(char type, std::string_view body);
  Event Fail(std::string message);

  Phase phase_;
  Limits limits_;
  std::string partial_;  // the current message's bytes so far (header included)
  Reply reply_;
  std::string error_;
  bool failed_ = false;
};

/// The M field of an ErrorResponse body; "error without a message" when it has none.
std::string ErrorText(std::string_view body);

}  // namespace memstand::pg

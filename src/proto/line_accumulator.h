// Gathers CRLF-terminated lines from input that arrives in pieces: the part of a line
// seen so far is kept across Feed() calls, so a line split at any byte is found
// without rescanning. The text codecs (memcache replies, HTTP heads) share it. No I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace memstand::proto {

class LineAccumulator {
 public:
  enum class Step : uint8_t { kMore, kLine, kError };

  /// max_line: the longest line accepted, without its CRLF. reserve: bytes kept for a
  /// line split between two inputs, so steady state does not allocate.
  LineAccumulator(size_t max_line, size_t reserve);

  /// Scans data[*pos..len) for the end of the current line; `base` is the message
  /// offset of data[0] (used for line_start() and error offsets).
  /// kLine: line() is the complete line without its CRLF, valid until the next Feed()
  ///   or Clear(); *pos is just past its '\n'.
  /// kMore: the rest of the input is kept; *pos == len.
  /// kError: the line is longer than max_line, or its '\n' is not preceded by '\r';
  ///   error() and error_offset() describe the fault.
  Step Feed(const char* data, size_t len, size_t base, size_t* pos);

  /// REQUIRES: the last Feed() returned kLine.
  std::string_view line() const { return line_; }
  /// Message offset of the first byte of the current (or last complete) line.
  size_t line_start() const { return line_start_; }
  /// REQUIRES: the last Feed() returned kError. "line longer than N bytes" or
  /// "line not terminated by CRLF"; error_offset() is where, in the message.
  std::string error() const;
  size_t error_offset() const { return error_offset_; }
  /// Forgets a partial line (for a reader's Reset()).
  void Clear();

 private:
  Step Complete(std::string_view line);
  Step Error(bool too_long, size_t offset);

  size_t max_line_;
  std::string partial_;    // line bytes carried over from earlier input
  bool done_ = false;      // partial_ holds a line already returned: clear on next Feed()
  std::string_view line_;  // the last complete line (into the input or partial_)
  size_t line_start_ = 0;
  bool too_long_ = false;  // the fault: too long, or no CR before the '\n'
  size_t error_offset_ = 0;
};

}  // namespace memstand::proto

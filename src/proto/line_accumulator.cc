#include "proto/line_accumulator.h"

#include <cstring>

namespace memstand::proto {

LineAccumulator::LineAccumulator(size_t max_line, size_t reserve) : max_line_(max_line) {
  partial_.reserve(reserve);
}

void LineAccumulator::Clear() {
  partial_.clear();
  done_ = false;
}

LineAccumulator::Step LineAccumulator::Feed(const char* data, size_t len, size_t base,
                                            size_t* pos) {
  if (done_) Clear();
  const char* start = data + *pos;
  const size_t avail = len - *pos;
  if (partial_.empty()) line_start_ = base + *pos;
  const char* nl = static_cast<const char*>(std::memchr(start, '\n', avail));
  const size_t n = nl == nullptr ? avail : static_cast<size_t>(nl - start);
  if (partial_.size() + n > max_line_ + 1) return Error(true, line_start_);  // line + CR
  if (nl == nullptr) {
    partial_.append(start, avail);
    *pos = len;
    return Step::kMore;
  }
  *pos += n + 1;
  if (partial_.empty()) return Complete({start, n});
  partial_.append(start, n);
  done_ = true;
  return Complete(partial_);
}

LineAccumulator::Step LineAccumulator::Complete(std::string_view line) {
  if (line.empty() || line.back() != '\r') return Error(false, line_start_ + line.size());
  line.remove_suffix(1);
  line_ = line;
  return Step::kLine;
}

LineAccumulator::Step LineAccumulator::Error(bool too_long, size_t offset) {
  too_long_ = too_long;
  error_offset_ = offset;
  return Step::kError;
}

std::string LineAccumulator::error() const {
  if (too_long_) return "line longer than " + std::to_string(max_line_) + " bytes";
  return "line not terminated by CRLF";
}

}  // namespace memstand::proto

#include "proto/etcd/http.h"

#include <algorithm>
#include <cstring>

#include "proto/wire_text.h"

namespace memstand::http {

namespace {

using proto::Quote;

bool EqualsNoCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return (x | 0x20) == (y | 0x20);
         });
}

bool ContainsNoCase(std::string_view hay, std::string_view needle) {
  for (size_t i = 0; i + needle.size() <= hay.size(); ++i) {
    if (EqualsNoCase(hay.substr(i, needle.size()), needle)) return true;
  }
  return false;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f') return (c | 0x20) - 'a' + 10;
  return -1;
}

}  // namespace

void AppendPostHead(Buffer* out, std::string_view host, std::string_view path, size_t body_size) {
  constexpr std::string_view kParts[] = {"POST ", " HTTP/1.1\r\nHost: ",
                                         "\r\nContent-Type: application/json\r\nContent-Length: ",
                                         "\r\n\r\n"};
  size_t max = path.size() + host.size() + 20;
  for (std::string_view p : kParts) max += p.size();
  out->EnsureWritable(max);
  char* start = out->WritePtr();
  char* p = start;
  auto put = [&p](std::string_view s) {
    std::memcpy(p, s.data(), s.size());
    p += s.size();
  };
  put(kParts[0]);
  put(path);
  put(kParts[1]);
  put(host);
  put(kParts[2]);
  p = proto::WriteDecimal(p, body_size);
  put(kParts[3]);
  out->Commit(static_cast<size_t>(p - start));
}

void AppendPost(Buffer* out, std::string_view host, std::string_view path, std::string_view body) {
  AppendPostHead(out, host, path, body.size());
  out->Append(body);
}

ResponseReader::ResponseReader(Limits limits)
    : limits_(limits), lines_(limits.max_line, /*reserve=*/128) {}

void ResponseReader::Reset() {
  StartResponse();
  error_.clear();
  failed_ = false;
}

void ResponseReader::StartResponse() {
  response_.status = 0;
  response_.keep_alive = true;
  response_.chunked = false;
  response_.body.clear();
  response_.wire_bytes = 0;
  phase_ = Phase::kStatus;
  lines_.Clear();
  headers_ = 0;
  http10_ = false;
  has_length_ = false;
  content_length_ = 0;
  left_ = 0;
  emitted_ = false;
}

ResponseReader::Event ResponseReader::Feed(const char* data, size_t len, size_t* consumed) {
  *consumed = 0;
  if (failed_) return Event::kProtocolError;
  if (emitted_) StartResponse();
  base_ = response_.wire_bytes;
  size_t pos = 0;
  while (pos < len) {
    const bool body = phase_ == Phase::kBody || phase_ == Phase::kChunkData;
    Step step = body ? FeedBody(data, len, &pos) : FeedLine(data, len, &pos);
    if (step == Step::kMore) continue;
    *consumed = pos;
    response_.wire_bytes = base_ + pos;
    if (step == Step::kError) return Event::kProtocolError;
    emitted_ = true;
    return Event::kReply;
  }
  *consumed = len;
  response_.wire_bytes = base_ + len;
  return Event::kNeedMore;
}

ResponseReader::Step ResponseReader::Fail(const std::string& what, size_t offset) {
  error_ = what + " at byte " + std::to_string(offset) + " of the HTTP response";
  failed_ = true;
  return Step::kError;
}

ResponseReader::Step ResponseReader::FeedLine(const char* data, size_t len, size_t* pos) {
  using LineStep = proto::LineAccumulator::Step;
  const LineStep step = lines_.Feed(data, len, base_, pos);
  if (step == LineStep::kLine) return ProcessLine(lines_.line());
  if (step == LineStep::kMore) return Step::kMore;
  return Fail(lines_.error(), lines_.error_offset());
}

ResponseReader::Step ResponseReader::ProcessLine(std::string_view line) {
  switch (phase_) {
    case Phase::kStatus:
      return StatusLine(line);
    case Phase::kHeader:
      return line.empty() ? EndOfHeaders() : HeaderLine(line);
    case Phase::kChunkSize:
      return ChunkSizeLine(line);
    case Phase::kChunkEnd:
      if (!line.empty()) return Fail("chunk not followed by CRLF", line_start());
      phase_ = Phase::kChunkSize;
      return Step::kMore;
    case Phase::kTrailer:
      if (!line.empty()) return Step::kMore;  // trailer fields are ignored
      return Step::kReply;
    case Phase::kBody:
    case Phase::kChunkData:
      break;
  }
  return Fail("internal: line in a body phase", line_start());
}

// `HTTP/1.1 200 OK`
ResponseReader::Step ResponseReader::StatusLine(std::string_view line) {
  const bool v11 = line.substr(0, 9) == "HTTP/1.1 ";
  const bool v10 = line.substr(0, 9) == "HTTP/1.0 ";
  const std::string_view code = line.size() >= 12 ? line.substr(9, 3) : std::string_view();
  const bool digits = code.size() == 3 && std::all_of(code.begin(), code.end(), [](char c) {
                        return c >= '0' && c <= '9';
                      });
  if (!(v11 || v10) || !digits || (line.size() > 12 && line[12] != ' ')) {
    return Fail("bad HTTP status line " + Quote(line), line_start());
  }
  response_.status = (code[0] - '0') * 100 + (code[1] - '0') * 10 + (code[2] - '0');
  if (response_.status < 100) return Fail("bad HTTP status line " + Quote(line), line_start());
  http10_ = v10;
  phase_ = Phase::kHeader;
  return Step::kMore;
}

ResponseReader::Step ResponseReader::HeaderLine(std::string_view line) {
  if (++headers_ > limits_.max_headers) {
    return Fail("more than " + std::to_string(limits_.max_headers) + " header lines", line_start());
  }
  const size_t colon = line.find(':');
  if (colon == 0 || colon == std::string_view::npos || line[0] == ' ' || line[0] == '\t') {
    return Fail("bad header line " + Quote(line), line_start());
  }
  const std::string_view name = line.substr(0, colon);
  const std::string_view value = Trim(line.substr(colon + 1));
  if (EqualsNoCase(name, "Content-Length")) {
    uint64_t n = 0;
    if (!proto::ParseUint64(value, &n) || (has_length_ && n != content_length_)) {
      return Fail("bad Content-Length " + Quote(value), line_start());
    }
    has_length_ = true;
    content_length_ = n;
  } else if (EqualsNoCase(name, "Transfer-Encoding")) {
    if (!ContainsNoCase(value, "chunked")) {
      return Fail("unsupported Transfer-Encoding " + Quote(value), line_start());
    }
    response_.chunked = true;
  } else if (EqualsNoCase(name, "Connection")) {
    if (ContainsNoCase(value, "close")) response_.keep_alive = false;
    if (ContainsNoCase(value, "keep-alive")) http10_ = false;
  }
  return Step::kMore;
}

ResponseReader::Step ResponseReader::EndOfHeaders() {
  if (http10_) response_.keep_alive = false;
  const int status = response_.status;
  if (status < 200) {  // interim (100 Continue): the real response follows. Its bytes
    StartResponse();    // still count in wire_bytes, which Feed() takes from base_.
    return Step::kMore;
  }
  if (status == 204 || status == 304) return Step::kReply;
  if (response_.chunked) {
    phase_ = Phase::kChunkSize;
    return Step::kMore;
  }
  if (!has_length_) {
    return Fail("response without Content-Length or chunked encoding", line_start());
  }
  if (content_length_ > limits_.max_body) {
    return Fail("body of " + std::to_string(content_length_) + " bytes over the limit of " +
                    std::to_string(limits_.max_body),
                line_start());
  }
  if (content_length_ == 0) return Step::kReply;
  left_ = content_length_;
  phase_ = Phase::kBody;
  return Step::kMore;
}

// `<hex size>[;extension]`
ResponseReader::Step ResponseReader::ChunkSizeLine(std::string_view line) {
  const std::string_view hex = Trim(line.substr(0, line.find(';')));
  uint64_t n = 0;
  if (hex.empty() || hex.size() > 15) return Fail("bad chunk size " + Quote(line), line_start());
  for (char c : hex) {
    const int d = HexDigit(c);
    if (d < 0) return Fail("bad chunk size " + Quote(line), line_start());
    n = n * 16 + static_cast<uint64_t>(d);
  }
  if (n > limits_.max_body - std::min(limits_.max_body, response_.body.size())) {
    return Fail("body over the limit of " + std::to_string(limits_.max_body) + " bytes",
                line_start());
  }
  if (n == 0) {
    phase_ = Phase::kTrailer;
    return Step::kMore;
  }
  left_ = n;
  phase_ = Phase::kChunkData;
  return Step::kMore;
}

ResponseReader::Step ResponseReader::FeedBody(const char* data, size_t len, size_t* pos) {
  const size_t n = static_cast<size_t>(std::min<uint64_t>(left_, len - *pos));
  response_.body.append(data + *pos, n);
  *pos += n;
  left_ -= n;
  if (left_ > 0) return Step::kMore;
  if (phase_ == Phase::kBody) return Step::kReply;
  phase_ = Phase::kChunkEnd;
  return Step::kMore;
}

}  // namespace memstand::http

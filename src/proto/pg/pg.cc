#include "proto/pg/pg.h"

#include <algorithm>
#include <utility>

namespace memstand::pg {
namespace {

constexpr uint32_t kProtocol30 = 196608;  // 3 << 16
constexpr size_t kHeader = 5;              // type byte and int32 length

void PutInt32(std::string* out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<char>((v >> shift) & 0xff));
}

uint32_t GetInt32(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return (uint32_t{u[0]} << 24) | (uint32_t{u[1]} << 16) | (uint32_t{u[2]} << 8) | u[3];
}

void PutMessage(std::string* out, char type, std::string_view body) {
  out->push_back(type);
  PutInt32(out, static_cast<uint32_t>(body.size() + 4));
  out->append(body);
}

// A DataRow body: int16 column count, then per column int32 length (-1: NULL) and bytes.
bool ParseDataRow(std::string_view body, std::vector<std::string>* row, std::string* why) {
  if (body.size() < 2) {
    *why = "a DataRow without a column count";
    return false;
  }
  const size_t columns = (static_cast<unsigned char>(body[0]) << 8) | static_cast<unsigned char>(body[1]);
  // Each column takes 4 bytes at least: a count the body cannot hold is refused before
  // anything is reserved for it.
  if (columns * 4 > body.size() - 2) {
    *why = "a DataRow cut short";
    return false;
  }
  row->reserve(columns);
  size_t at = 2;
  for (size_t i = 0; i < columns; ++i) {
    if (body.size() - at < 4) {
      *why = "a DataRow cut short";
      return false;
    }
    const uint32_t len = GetInt32(body.data() + at);
    at += 4;
    if (len == 0xffffffffu) {
      row->emplace_back();
      continue;
    }
    if (len > body.size() - at) {
      *why = "a DataRow cut short";
      return false;
    }
    row->emplace_back(body.substr(at, len));
    at += len;
  }
  if (at != body.size()) {
    *why = "a DataRow with bytes after its last column";
    return false;
  }
  return true;
}

std::string Printable(char type) {
  const auto u = static_cast<unsigned char>(type);
  if (u >= 0x21 && u < 0x7f) return std::string("'") + type + "'";
  static const char kHex[] = "0123456789abcdef";
  return std::string("0x") + kHex[u >> 4] + kHex[u & 15];
}

}  // namespace

void AppendStartup(std::string* out, std::string_view user, std::string_view database) {
  std::string body;
  PutInt32(&body, kProtocol30);
  for (std::string_view s : {std::string_view("user"), user, std::string_view("database"), database}) {
    body.append(s);
    body.push_back('\0');
  }
  body.push_back('\0');
  PutInt32(out, static_cast<uint32_t>(body.size() + 4));
  out->append(body);
}

void AppendQuery(std::string* out, std::string_view sql) {
  std::string body(sql);
  body.push_back('\0');
  PutMessage(out, 'Q', body);
}

void AppendTerminate(std::string* out) { PutMessage(out, 'X', ""); }

std::string ErrorText(std::string_view body) {
  for (size_t at = 0; at < body.size() && body[at] != '\0';) {
    const char field = body[at];
    const size_t end = body.find('\0', at + 1);
    if (end == std::string_view::npos) break;
    if (field == 'M') return std::string(body.substr(at + 1, end - at - 1));
    at = end + 1;
  }
  return "error without a message";
}

Reader::Reader(Phase phase) : Reader(phase, Limits{}) {}

Reader::Reader(Phase phase, Limits limits) : phase_(phase), limits_(limits) {}

Reader::Event Reader::Fail(std::string message) {
  failed_ = true;
  error_ = std::move(message);
  return Event::kProtocolError;
}

Reader::Event Reader::Feed(const char* data, size_t n, size_t* used) {
  *used = 0;
  if (failed_) return Event::kProtocolError;
  while (*used < n) {
    const char* p = data + *used;
    const size_t left = n - *used;
    if (partial_.empty() && left >= kHeader) {
      // The common case: a whole message in `data`, parsed where it lies.
      const uint32_t len = GetInt32(p + 1);
      if (len < 4 || len > limits_.max_message) return Fail("a message of length " + std::to_string(len));
      if (left >= 1 + size_t{len}) {
        *used += 1 + size_t{len};
        const Event ev = Message(p[0], std::string_view(p + kHeader, len - 4));
        if (ev != Event::kNeedMore) return ev;
        continue;
      }
    }
    // A message split across Feed() calls: its bytes gather in partial_.
    size_t want = kHeader;
    if (partial_.size() >= kHeader) want = 1 + size_t{GetInt32(partial_.data() + 1)};
    const size_t take = std::min(left, want - std::min(want, partial_.size()));
    partial_.append(p, take);
    *used += take;
    if (partial_.size() == kHeader) {
      const uint32_t len = GetInt32(partial_.data() + 1);
      if (len < 4 || len > limits_.max_message) return Fail("a message of length " + std::to_string(len));
      // Grows as the bytes come, never to an announced length up front.
    }
    if (partial_.size() >= kHeader && partial_.size() == 1 + size_t{GetInt32(partial_.data() + 1)}) {
      std::string whole = std::move(partial_);
      partial_.clear();
      const Event ev = Message(whole[0], std::string_view(whole).substr(kHeader));
      if (ev != Event::kNeedMore) return ev;
    }
  }
  return Event::kNeedMore;
}

Reader::Event Reader::Message(char type, std::string_view body) {
  ++reply_.messages;
  switch (type) {
    case 'E':
      reply_.has_error = true;
      reply_.error = ErrorText(body);
      return phase_ == Phase::kStartup ? Event::kReply : Event::kNeedMore;
    case 'N':  // NoticeResponse
    case 'S':  // ParameterStatus
    case 'A':  // NotificationResponse
      return Event::kNeedMore;
    case 'Z':
      if (body.size() != 1) return Fail("a ReadyForQuery of " + std::to_string(body.size()) + " bytes");
      return Event::kReply;
    default:
      break;
  }
  if (phase_ == Phase::kStartup) {
    switch (type) {
      case 'R': {
        if (body.size() < 4) return Fail("an Authentication message of " + std::to_string(body.size()) + " bytes");
        const uint32_t method = GetInt32(body.data());
        if (method != 0) {
          return Fail("postgresql asks for authentication method " + std::to_string(method) +
                      " (a password); memstand's client supports trust only");
        }
        return Event::kNeedMore;
      }
      case 'K':  // BackendKeyData
      case 'v':  // NegotiateProtocolVersion
        return Event::kNeedMore;
      default:
        return Fail("message " + Printable(type) + " during the startup");
    }
  }
  switch (type) {
    case 'T':  // RowDescription
    case 'I':  // EmptyQueryResponse
      return Event::kNeedMore;
    case 'D': {
      std::vector<std::string> row;
      std::string why;
      if (!ParseDataRow(body, &row, &why)) return Fail(why);
      reply_.rows.push_back(std::move(row));
      return Event::kNeedMore;
    }
    case 'C':
      reply_.tag = std::string(body.substr(0, body.find('\0')));
      return Event::kNeedMore;
    case 'G':
    case 'H':
    case 'W':
      return Fail("a COPY reply (" + Printable(type) + ") to a query that is not a COPY");
    default:
      return Fail("message " + Printable(type) + " in a query's reply");
  }
}

Reply Reader::TakeReply() {
  Reply out = std::move(reply_);
  reply_ = Reply{};
  return out;
}

void Reader::Reset(Phase phase) {
  phase_ = phase;
  reply_ = Reply{};
}

}  // namespace memstand::pg

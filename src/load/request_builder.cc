#include "load/request_builder.h"

#include <cstring>

#include "proto/resp/resp.h"

namespace memstand {

size_t FormatUint(uint64_t v, char* buf) {
  char tmp[20];
  size_t n = 0;
  do {
    tmp[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  for (size_t i = 0; i < n; ++i) buf[i] = tmp[n - 1 - i];
  return n;
}

namespace {

bool IsLiteral(const TemplateArg& arg) {
  for (const auto& p : arg) {
    if (p.kind != TemplatePart::Kind::kLiteral) return false;
  }
  return true;
}

std::string JoinLiteral(const TemplateArg& arg) {
  std::string s;
  for (const auto& p : arg) s += p.literal;
  return s;
}

}  // namespace

RequestBuilder::RequestBuilder(const CommandTemplate& tmpl, std::string key_prefix)
    : key_prefix_(std::move(key_prefix)) {
  Buffer raw;
  resp::AppendArrayHeader(&raw, tmpl.args.size());
  for (const TemplateArg& arg : tmpl.args) {
    if (IsLiteral(arg)) {
      resp::AppendBulk(&raw, JoinLiteral(arg));
      continue;
    }
    if (raw.Readable() > 0) {
      steps_.push_back({true, std::string(raw.View()), {}, 0, 0, 0});
      raw.Clear();
    }
    Step s{false, {}, arg, 0, 0, 0};
    for (const auto& p : arg) {
      if (p.kind == TemplatePart::Kind::kLiteral) s.literal_len += p.literal.size();
      if (p.kind == TemplatePart::Kind::kKey) ++s.keys;
      if (p.kind == TemplatePart::Kind::kData) ++s.datas;
    }
    steps_.push_back(std::move(s));
  }
  if (raw.Readable() > 0) steps_.push_back({true, std::string(raw.View()), {}, 0, 0, 0});
}

size_t RequestBuilder::Append(Buffer* out, uint64_t key_index, std::string_view data) const {
  char key_digits[20];
  size_t key_digits_len = FormatUint(key_index, key_digits);
  size_t key_len = key_prefix_.size() + key_digits_len;
  size_t start = out->Readable();
  for (const Step& s : steps_) {
    if (s.raw) {
      out->Append(s.bytes);
      continue;
    }
    size_t len = s.literal_len + s.keys * key_len + s.datas * data.size();
    char header[24];
    header[0] = '$';
    size_t h = 1 + FormatUint(len, header + 1);
    header[h++] = '\r';
    header[h++] = '\n';
    out->EnsureWritable(h + len + 2);
    char* w = out->WritePtr();
    std::memcpy(w, header, h);
    w += h;
    for (const auto& p : s.arg) {
      switch (p.kind) {
        case TemplatePart::Kind::kLiteral:
          std::memcpy(w, p.literal.data(), p.literal.size());
          w += p.literal.size();
          break;
        case TemplatePart::Kind::kKey:
          std::memcpy(w, key_prefix_.data(), key_prefix_.size());
          std::memcpy(w + key_prefix_.size(), key_digits, key_digits_len);
          w += key_len;
          break;
        case TemplatePart::Kind::kData:
          std::memcpy(w, data.data(), data.size());
          w += data.size();
          break;
      }
    }
    *w++ = '\r';
    *w++ = '\n';
    out->Commit(h + len + 2);
  }
  return out->Readable() - start;
}

std::vector<std::string> RequestBuilder::Render(uint64_t key_index, std::string_view data) const {
  Buffer b;
  Append(&b, key_index, data);
  resp::Reader reader(resp::Reader::Mode::kFull);
  size_t used = 0;
  std::vector<std::string> args;
  if (reader.Feed(b.ReadPtr(), b.Readable(), &used) != resp::Reader::Event::kReply) return args;
  for (const auto& e : reader.TakeReply().elements) args.push_back(e.str);
  return args;
}

}  // namespace memstand

#include "load/request_builder.h"

#include <bit>
#include <cstring>

#include "load/cluster_map.h"
#include "proto/resp/resp.h"

namespace memstand {

namespace {

constexpr char kDigitPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

// Writes the two digits of x (< 100) ending at end.
inline void WritePair(uint32_t x, char* end) { std::memcpy(end - 2, &kDigitPairs[x * 2], 2); }

// Writes the n decimal digits of v ending at end (n == DigitCount(v)). Eight digits at a
// time in 64-bit arithmetic, the rest in 32-bit, whose division by a constant is cheaper.
void WriteDigitsBackwards(uint64_t v, char* end) {
  while (v >= 100'000'000) {
    const uint64_t q = v / 100'000'000;
    uint32_t r = static_cast<uint32_t>(v - q * 100'000'000);
    for (int i = 0; i < 4; ++i, end -= 2) {
      const uint32_t rq = r / 100;
      WritePair(r - rq * 100, end);
      r = rq;
    }
    v = q;
  }
  uint32_t x = static_cast<uint32_t>(v);
  for (; x >= 100; end -= 2) {
    const uint32_t q = x / 100;
    WritePair(x - q * 100, end);
    x = q;
  }
  if (x >= 10) {
    WritePair(x, end);
  } else {
    end[-1] = static_cast<char>('0' + x);
  }
}

// "$len\r\n" for the lengths most arguments have, formatted once.
struct BulkHeaders {
  static constexpr size_t kCount = 4096;
  char bytes[kCount][8];  // "$4095\r\n" is 7 bytes
  uint8_t size[kCount];
  BulkHeaders() {
    for (size_t len = 0; len < kCount; ++len) {
      char* w = bytes[len];
      *w++ = '$';
      w += FormatUint(len, w);
      *w++ = '\r';
      *w++ = '\n';
      size[len] = static_cast<uint8_t>(w - bytes[len]);
    }
  }
};
const BulkHeaders kBulkHeaders;

// "$len\r\n" at w; returns the end.
char* WriteBulkHeader(char* w, size_t len) {
  if (len < BulkHeaders::kCount) {
    std::memcpy(w, kBulkHeaders.bytes[len], 8);  // REQUIRES: 8 writable bytes
    return w + kBulkHeaders.size[len];
  }
  *w++ = '$';
  const int n = DigitCount(len);
  WriteDigitsBackwards(len, w + n);
  w += n;
  *w++ = '\r';
  *w++ = '\n';
  return w;
}

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

int DigitCount(uint64_t v) {
  // floor(log10) from the bit length (1233 / 4096 ~ log10(2)), then one comparison.
  static constexpr uint64_t kPow10[20] = {1ULL,
                                          10ULL,
                                          100ULL,
                                          1000ULL,
                                          10000ULL,
                                          100000ULL,
                                          1000000ULL,
                                          10000000ULL,
                                          100000000ULL,
                                          1000000000ULL,
                                          10000000000ULL,
                                          100000000000ULL,
                                          1000000000000ULL,
                                          10000000000000ULL,
                                          100000000000000ULL,
                                          1000000000000000ULL,
                                          10000000000000000ULL,
                                          100000000000000000ULL,
                                          1000000000000000000ULL,
                                          10000000000000000000ULL};
  // v | 1: 0 has one digit; no other count changes, as every kPow10[t > 0] is even.
  const uint64_t u = v | 1;
  const int t = (std::bit_width(u) * 1233) >> 12;
  return t + 1 - (u < kPow10[t]);
}

size_t FormatUint(uint64_t v, char* buf) {
  const int n = DigitCount(v);
  WriteDigitsBackwards(v, buf + n);
  return static_cast<size_t>(n);
}

RequestBuilder::RequestBuilder(const CommandTemplate& tmpl, std::string key_prefix)
    : key_prefix_(std::move(key_prefix)) {
  Buffer raw;
  resp::AppendArrayHeader(&raw, tmpl.args.size());
  auto flush_raw = [&] {
    if (raw.Readable() == 0) return;
    steps_.push_back({Step::Kind::kRaw, std::string(raw.View()), {}, 0, 0, 0});
    raw.Clear();
  };
  for (const TemplateArg& arg : tmpl.args) {
    if (IsLiteral(arg)) {
      resp::AppendBulk(&raw, JoinLiteral(arg));
      continue;
    }
    flush_raw();
    Step s{Step::Kind::kMixed, {}, arg, 0, 0, 0};
    for (const auto& p : arg) {
      if (p.kind == TemplatePart::Kind::kLiteral) s.literal_len += p.literal.size();
      if (p.kind == TemplatePart::Kind::kKey) ++s.keys;
      if (p.kind == TemplatePart::Kind::kData) ++s.datas;
    }
    if (arg.size() == 1) s.kind = s.keys == 1 ? Step::Kind::kKey : Step::Kind::kData;
    literal_bytes_ += s.literal_len;
    keys_ += static_cast<size_t>(s.keys);
    datas_ += static_cast<size_t>(s.datas);
    ++args_;
    steps_.push_back(std::move(s));
  }
  flush_raw();
  for (size_t i = 0; i < steps_.size(); ++i) {
    raw_bytes_ += steps_[i].bytes.size();
    if (key_step_ < 0 && steps_[i].keys > 0) key_step_ = static_cast<int>(i);
  }
  if (key_step_ >= 0 && steps_[key_step_].kind == Step::Kind::kKey &&
      key_prefix_.find('{') == std::string::npos) {
    slot_from_digits_ = true;
    prefix_crc_ = Crc16(key_prefix_);
  }
  const size_t n = steps_.size();
  fast_ = (n == 2 || n == 3) && steps_[0].kind == Step::Kind::kRaw &&
          steps_[0].bytes.size() <= kFastHeadMax && steps_[1].kind == Step::Kind::kKey &&
          (n == 2 || steps_[2].kind == Step::Kind::kData) &&
          key_prefix_.size() <= kFastPrefixMax;
  if (fast_) {
    fast_data_ = n == 3;
    fast_head_len_ = steps_[0].bytes.size();
    std::memcpy(fast_head_, steps_[0].bytes.data(), fast_head_len_);
    std::memcpy(fast_prefix_, key_prefix_.data(), key_prefix_.size());
  }
}

size_t RequestBuilder::AppendFast(Buffer* out, uint64_t key_index, std::string_view data) const {
  const int digits = DigitCount(key_index);
  const size_t key_len = key_prefix_.size() + static_cast<size_t>(digits);
  // The bound of each part, the fixed-size copies included: head (32), "$NN\r\n"
  // (8-byte copy), key (16-byte prefix copy + 20 digits), CRLF, "$len\r\n" (<= 23),
  // data, CRLF.
  out->EnsureWritable(kFastHeadMax + 8 + kFastPrefixMax + 20 + 2 + 23 + data.size() + 2);
  char* const begin = out->WritePtr();
  char* w = begin;
  std::memcpy(w, fast_head_, kFastHeadMax);
  w += fast_head_len_;
  w = WriteBulkHeader(w, key_len);
  std::memcpy(w, fast_prefix_, kFastPrefixMax);
  w += key_prefix_.size();
  WriteDigitsBackwards(key_index, w + digits);
  w += digits;
  *w++ = '\r';
  *w++ = '\n';
  if (fast_data_) {
    w = WriteBulkHeader(w, data.size());
    std::memcpy(w, data.data(), data.size());
    w += data.size();
    *w++ = '\r';
    *w++ = '\n';
  }
  out->Commit(static_cast<size_t>(w - begin));
  return static_cast<size_t>(w - begin);
}

int RequestBuilder::Slot(uint64_t key_index, std::string_view data) const {
  if (slot_from_digits_) {
    char digits[20];
    const size_t n = FormatUint(key_index, digits);
    return Crc16(std::string_view(digits, n), prefix_crc_) & (kClusterSlots - 1);
  }
  if (key_step_ < 0) return -1;
  const Step& s = steps_[key_step_];
  const int digits = DigitCount(key_index);
  const size_t len = s.kind == Step::Kind::kKey
                         ? key_prefix_.size() + digits
                         : s.literal_len + s.keys * (key_prefix_.size() + digits) + s.datas * data.size();
  char stack[256];
  std::string heap;
  char* w = stack;
  if (len > sizeof(stack)) {
    heap.resize(len);
    w = heap.data();
  }
  char* end = s.kind == Step::Kind::kKey ? WriteKey(w, key_index, digits)
                                         : WriteMixed(w, s, key_index, digits, data);
  return KeySlot(std::string_view(w, static_cast<size_t>(end - w)));
}

char* RequestBuilder::WriteKey(char* w, uint64_t key_index, int digits) const {
  std::memcpy(w, key_prefix_.data(), key_prefix_.size());
  w += key_prefix_.size();
  WriteDigitsBackwards(key_index, w + digits);
  return w + digits;
}

char* RequestBuilder::WriteMixed(char* w, const Step& s, uint64_t key_index, int digits,
                                 std::string_view data) const {
  for (const auto& p : s.arg) {
    switch (p.kind) {
      case TemplatePart::Kind::kLiteral:
        std::memcpy(w, p.literal.data(), p.literal.size());
        w += p.literal.size();
        break;
      case TemplatePart::Kind::kKey:
        w = WriteKey(w, key_index, digits);
        break;
      case TemplatePart::Kind::kData:
        std::memcpy(w, data.data(), data.size());
        w += data.size();
        break;
    }
  }
  return w;
}

size_t RequestBuilder::Append(Buffer* out, uint64_t key_index, std::string_view data) const {
  if (fast_) return AppendFast(out, key_index, data);
  const int digits = DigitCount(key_index);
  const size_t key_len = key_prefix_.size() + static_cast<size_t>(digits);
  // One capacity check: each templated argument adds at most "$" + 20 digits + 2 CRLFs.
  out->EnsureWritable(raw_bytes_ + literal_bytes_ + keys_ * key_len + datas_ * data.size() +
                      args_ * 25);
  char* const begin = out->WritePtr();
  char* w = begin;
  for (const Step& s : steps_) {
    if (s.kind == Step::Kind::kRaw) {
      std::memcpy(w, s.bytes.data(), s.bytes.size());
      w += s.bytes.size();
      continue;
    }
    if (s.kind == Step::Kind::kKey) {
      w = WriteKey(WriteBulkHeader(w, key_len), key_index, digits);
    } else if (s.kind == Step::Kind::kData) {
      w = WriteBulkHeader(w, data.size());
      std::memcpy(w, data.data(), data.size());
      w += data.size();
    } else {
      w = WriteBulkHeader(w, s.literal_len + s.keys * key_len + s.datas * data.size());
      w = WriteMixed(w, s, key_index, digits, data);
    }
    *w++ = '\r';
    *w++ = '\n';
  }
  out->Commit(static_cast<size_t>(w - begin));
  return static_cast<size_t>(w - begin);
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

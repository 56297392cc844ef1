// Tarantool request templates: the text of a `--command` for a Tarantool target, e.g.
// "replace 512 [__key__, __data__]", parsed once into an IPROTO request whose constant
// parts are pre-encoded. Append() writes one request per call, filling the placeholders,
// with one capacity check and no heap allocation. The grammar is in docs/protocols.md
// ("Tarantool request templates").
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/buffer.h"
#include "proto/iproto/constants.h"
#include "util/rng.h"
#include "util/status.h"

namespace memstand::iproto {

/// A template that reads or writes one register (a key's one value), as a history
/// (load/history_ops.h) needs it: `select SPACE 0 [eq] [KEY] [limit N>0] [offset 0]`
/// reads, `replace SPACE [KEY, ...]` with KEY its first field, one `__data__` field and
/// every other field a constant writes; KEY is __key__ or __keynum__.
struct RegisterForm {
  bool write = false;
  uint32_t space = 0;
  bool key_number = false;  // __keynum__ (an unsigned) rather than __key__ (a string)
  uint32_t data_field = 0;  // write: the tuple's field (0-based) that holds __data__
};

/// What varies per request. The views must stay valid during Append().
struct TemplateArgs {
  uint64_t key_index = 0;          // __key__ = key_prefix + decimal key_index; __keynum__
  std::string_view key_prefix = {};
  std::string_view data = {};      // __data__
  uint64_t seq = 0;                // __seq__, as the caller numbers requests
  Rng* rng = nullptr;              // __rand:N__, __int:A:B__; REQUIRES non-null if uses_rng()
};

class RequestTemplate {
 public:
  /// Parses a template. A fault gives InvalidArgument naming what is wrong and where
  /// ("column 12"), e.g. "unknown placeholder '__kye__' at column 13".
  static Result<RequestTemplate> Parse(std::string_view text);

  /// Appends one complete IPROTO request (0xce length prefix, header {REQUEST_TYPE,
  /// SYNC}, body) to out; returns the bytes appended. Allocates only if out must grow.
  size_t Append(Buffer* out, uint64_t sync, const TemplateArgs& a) const;
  /// The most bytes Append() can write with these args (its one capacity check).
  size_t MaxSize(const TemplateArgs& a) const {
    return MaxSize(a.key_prefix.size(), a.data.size());
  }
  /// The same for a key prefix and a __data__ value of these lengths.
  size_t MaxSize(size_t key_prefix_len, size_t data_len) const;

  bool uses_key() const { return key_ops_ > 0 || uses_keynum_; }  // __key__ or __keynum__
  bool uses_data() const { return data_ops_ > 0; }
  bool uses_seq() const { return uses_seq_; }
  bool uses_rng() const { return uses_rng_; }
  /// SELECT: a reply with >= 1 tuple is a hit, 0 a miss.
  bool is_read() const { return type_ == kSelect; }
  RequestType type() const { return type_; }
  /// "REPLACE", "SELECT", "CALL crud.replace", "EVAL", "PING".
  std::string label() const { return label_; }
  /// The register it reads or writes; nullopt for any other request.
  const std::optional<RegisterForm>& register_form() const { return register_form_; }
  /// When __data__ is its last placeholder (a register's write is so): the bytes Append
  /// writes after the value, the same for every request, so that the value's place in
  /// the request just appended is known (--history stamps its tag there); else npos.
  size_t data_tail() const { return data_tail_; }

 private:
  class Encoder;  // builds bytes_ and ops_ (request_template.cc)

  /// One value written per request, after `literal` bytes of bytes_ copied as they are.
  struct Op {
    enum class Kind : uint8_t { kSync, kKey, kKeyNum, kData, kSeq, kRand, kInt };
    Kind kind = Kind::kSync;
    uint32_t literal = 0;  // bytes of bytes_ before this op
    uint32_t rand_len = 0;  // kRand: characters
    int64_t int_min = 0;    // kInt: the range [int_min, int_min + int_span]
    uint64_t int_span = 0;
  };

  char* WriteOp(char* p, const Op& op, uint64_t sync, const TemplateArgs& a) const;

  RequestType type_ = kPing;
  std::string label_;
  std::string bytes_;     // header and body with the ops' values left out
  std::vector<Op> ops_;   // in order; bytes_ after the last op follow it
  size_t fixed_bound_ = 0;  // prefix + bytes_ + the most every op but key/data can take
  uint32_t key_ops_ = 0;
  uint32_t data_ops_ = 0;
  bool uses_keynum_ = false;
  bool uses_seq_ = false;
  bool uses_rng_ = false;
  std::optional<RegisterForm> register_form_;
  size_t data_tail_ = std::string::npos;
};

}  // namespace memstand::iproto

// Turns a command template into RESP bytes per request, without allocation: literal
// arguments are encoded once; arguments with __key__/__data__ are assembled in place.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/buffer.h"
#include "workload/command_template.h"

namespace memstand {

class RequestBuilder {
 public:
  /// key_prefix is put before the decimal key index: "key:" + 42 -> "key:42".
  RequestBuilder(const CommandTemplate& tmpl, std::string key_prefix);

  /// Appends one request to out. Returns the number of bytes appended.
  size_t Append(Buffer* out, uint64_t key_index, std::string_view data) const;

  /// Redis Cluster: the hash slot of the request's first argument holding __key__
  /// (KeySlot of its text), or -1 when no argument holds it.
  int Slot(uint64_t key_index, std::string_view data) const;

  /// The request as text arguments (for error messages and tests).
  std::vector<std::string> Render(uint64_t key_index, std::string_view data) const;

 private:
  struct Step {
    enum class Kind { kRaw, kKey, kData, kMixed };
    Kind kind;
    std::string bytes;     // kRaw: pre-encoded RESP
    TemplateArg arg;       // kMixed: the argument's parts
    size_t literal_len;    // kMixed: sum of literal parts
    int keys;              // kMixed: count of __key__ parts
    int datas;             // kMixed: count of __data__ parts
  };
  char* WriteKey(char* w, uint64_t key_index, int digits) const;
  char* WriteMixed(char* w, const Step& s, uint64_t key_index, int digits,
                   std::string_view data) const;

  // The common shape "literal arguments, then __key__, then maybe __data__" (GET, SET,
  // DEL, ...) with short literals, written without the loop over steps_: the literals
  // and the prefix are copied as fixed-size blocks from padded copies.
  static constexpr size_t kFastHeadMax = 32;
  static constexpr size_t kFastPrefixMax = 16;
  size_t AppendFast(Buffer* out, uint64_t key_index, std::string_view data) const;
  bool fast_ = false;
  bool fast_data_ = false;  // the shape ends with __data__
  char fast_head_[kFastHeadMax] = {};
  size_t fast_head_len_ = 0;
  char fast_prefix_[kFastPrefixMax] = {};

  std::vector<Step> steps_;
  // Sums over steps_, for one capacity check per request.
  size_t raw_bytes_ = 0, literal_bytes_ = 0, keys_ = 0, datas_ = 0, args_ = 0;
  std::string key_prefix_;
  int key_step_ = -1;  // index in steps_ of the first argument holding __key__
  // Slot's common case: that argument is __key__ alone and the prefix holds no '{', so
  // the slot is the CRC of the prefix (computed once) continued over the digits.
  bool slot_from_digits_ = false;
  uint16_t prefix_crc_ = 0;
};

/// Formats v in decimal into buf (>= 20 bytes); returns the length.
size_t FormatUint(uint64_t v, char* buf);
/// The number of decimal digits of v.
int DigitCount(uint64_t v);

}  // namespace memstand

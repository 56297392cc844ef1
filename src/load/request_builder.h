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

  /// The request as text arguments (for error messages and tests).
  std::vector<std::string> Render(uint64_t key_index, std::string_view data) const;

 private:
  struct Step {
    bool raw;              // true: bytes copied as they are
    std::string bytes;     // raw: pre-encoded RESP; else: unused
    TemplateArg arg;       // !raw: the argument's parts
    size_t literal_len;    // !raw: sum of literal parts
    int keys;              // !raw: count of __key__ parts
    int datas;             // !raw: count of __data__ parts
  };
  std::vector<Step> steps_;
  std::string key_prefix_;
};

/// Formats v in decimal into buf (>= 20 bytes); returns the length.
size_t FormatUint(uint64_t v, char* buf);

}  // namespace memstand

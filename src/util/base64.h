// Standard base64 (RFC 4648 section 4, with '=' padding), as etcd's JSON gateway and
// Tarantool's greeting salt use it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace memstand {

/// Length of the padded encoding of n bytes.
constexpr size_t Base64Size(size_t n) { return (n + 2) / 3 * 4; }

/// Writes the padded encoding of `in` at out; returns the end.
/// REQUIRES: Base64Size(in.size()) bytes of room.
char* Base64Write(char* out, std::string_view in);

std::string Base64Encode(std::string_view in);

/// Decodes padded base64 (whitespace not allowed). False on a length that is not a
/// multiple of 4, a byte outside the alphabet or misplaced padding.
bool Base64Decode(std::string_view in, std::string* out);

}  // namespace memstand

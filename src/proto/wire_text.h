// Small helpers the text codecs share (memcache, HTTP): quoting peer bytes for error
// messages, decimal numbers in and out without locale or allocation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace memstand::proto {

/// `s` in single quotes for an error message: bytes outside printable ASCII as \xHH,
/// text past max_bytes cut and marked with "...".
std::string Quote(std::string_view s, size_t max_bytes = 40);

/// Parses 1 to 20 decimal digits into a uint64_t; false on an empty string, any other
/// byte, or a value over UINT64_MAX.
bool ParseUint64(std::string_view s, uint64_t* out);

/// Writes n in decimal at p and returns the end. REQUIRES: 20 bytes of room.
char* WriteDecimal(char* p, uint64_t n);

/// Digits of n in decimal (1 to 20).
size_t DecimalSize(uint64_t n);

}  // namespace memstand::proto

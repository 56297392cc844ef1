// CRC-32C (Castagnoli), the checksum of each entry of a history file (docs/history.md).
#pragma once

#include <cstdint>
#include <string_view>

namespace memstand::history {

/// CRC-32C of `data` continuing from `crc` (0 to start): reflected polynomial 0x82F63B78,
/// initial and final XOR 0xFFFFFFFF, so Crc32c("123456789") == 0xE3069283.
/// With SSE4.2 (x86-64, checked at run time) the processor's crc32 instruction does it.
uint32_t Crc32c(std::string_view data, uint32_t crc = 0);
/// The same, a byte at a time from a table, on every processor (Crc32c's fallback).
uint32_t Crc32cPortable(std::string_view data, uint32_t crc = 0);

}  // namespace memstand::history

// The unique value a write carries: its (client, seq) at the start of the value, readable
// back from what a read returns (docs/history.md#value-tag). Version 2, written since
// 2026-12-03, 16 bytes:
//   "ms2:" client (u32) seq (u32) check (u32), little-endian
// Version 1, 31 bytes of text, is still read (the values a run of an older memstand left,
// for `memstand check`):
//   "ms1:" CCCCCCCC ":" SSSSSSSS ":" KKKKKKKK ";"   (lower-case hex)
// The checks mix the run's tag in, so a value left by another run (or any other bytes)
// reads as "not ours". What follows the tag is the rest of the value, of any size and
// content.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "util/status.h"

namespace memstand::history {

/// The tag a write stamps (version 2): the least a value must hold.
inline constexpr size_t kValueTagSize = 16;
/// Version 1's tag, read only.
inline constexpr size_t kValueTagV1Size = 31;

/// The run's part of every check: mixed in once per run, not once per write.
constexpr uint64_t TagSalt(uint32_t run_tag) { return uint64_t{run_tag} * 0x9e3779b97f4a7c15ULL; }

/// splitmix64's finalizer: every bit of z changes about half of the result's.
constexpr uint64_t SplitMix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// Version 1's check (read only): the low 32 bits of the finalizer of
/// (client * 2^32 + seq) XOR the run's salt.
constexpr uint32_t TagCheckV1(uint64_t salt, uint32_t client, uint32_t seq) {
  return static_cast<uint32_t>(SplitMix64(((uint64_t{client} << 32) | seq) ^ salt));
}

/// Version 2's check is a client's part, mixed once per client, plus seq times an odd
/// step (mod 2^32): so a write pays a multiply, and a change of seq alone always changes
/// the check.
inline constexpr uint32_t kTagSeqStep = 0x9e3779b9;
/// A client's part of its version 2 checks: the low 32 bits of the finalizer of client
/// XOR the run's salt.
constexpr uint32_t TagClientCheck(uint64_t salt, uint32_t client) {
  return static_cast<uint32_t>(SplitMix64(client ^ salt));
}
constexpr uint32_t TagCheckV2(uint32_t client_check, uint32_t seq) { return client_check + seq * kTagSeqStep; }

/// (client, seq) as a version 2 tag holds them (its bytes 4 to 11, little-endian):
/// client + seq * 2^32: a record stores them at once (the engine's processes read them
/// from the tag they keep whole: TagIdsOf, NextSeqTag).
constexpr uint64_t TagIds(uint32_t client, uint32_t seq) { return client | (uint64_t{seq} << 32); }

/// Writes the version 2 tag of `ids` (TagIds) over value[0, kValueTagSize); its client's
/// part of the check is `client_check` (TagClientCheck). The engine makes a process's
/// first tag with it and copies that tag (then NextSeqTag's) over each write's value.
/// REQUIRES: value has kValueTagSize bytes at least.
inline void StampValueTag(uint64_t ids, uint32_t client_check, char* value) {
  static_assert(std::endian::native == std::endian::little);
  const uint32_t check = TagCheckV2(client_check, static_cast<uint32_t>(ids >> 32));
  std::memcpy(value, "ms2:", 4);
  std::memcpy(value + 4, &ids, 8);
  std::memcpy(value + 12, &check, 4);
}

/// What turns the version 2 tag of (client, seq) into that of (client, seq + 1), added to
/// the tag's bytes 8 to 15 read as one little-endian u64 (seq, then check): seq + 1 and
/// check + kTagSeqStep, as TagCheckV2 gives it. So a writer that keeps the tag of its next
/// write whole (the engine's processes) copies it at a write and makes the next with one
/// add. REQUIRES: seq below 2^32 - 1 (the carry would reach the check).
inline constexpr uint64_t kTagNextSeq = 1 | uint64_t{kTagSeqStep} << 32;

/// The tag's (client, seq) as TagIds holds them: its bytes 4 to 11.
inline uint64_t TagIdsOf(const char* tag) {
  uint64_t ids;
  std::memcpy(&ids, tag + 4, 8);
  return ids;
}

/// The tag over `tag`'s 16 bytes made the next seq's (kTagNextSeq).
inline void NextSeqTag(char* tag) {
  uint64_t v;
  std::memcpy(&v, tag + 8, 8);
  v += kTagNextSeq;
  std::memcpy(tag + 8, &v, 8);
}

/// A value of `size` bytes: the tag (version 2), then '.' up to size. InvalidArgument
/// when size is below kValueTagSize (the value cannot carry it).
Result<std::string> TaggedValue(uint32_t run_tag, uint32_t client, uint32_t seq, size_t size);

/// The ValueId (record.h) a value carries when it begins with a tag of this run, of
/// either version; nullopt ("not ours") for any other bytes: too short, another layout,
/// (version 1) upper-case hex, a check that does not match (another run's tag, or bytes
/// changed).
std::optional<uint64_t> ReadValueTag(uint32_t run_tag, std::string_view value);

}  // namespace memstand::history

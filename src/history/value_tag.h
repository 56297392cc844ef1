// The unique value a write carries: its (client, seq) at the start of the value, readable
// back from what a read returns (docs/history.md#value-tag). 31 bytes of text:
//   "ms1:" CCCCCCCC ":" SSSSSSSS ":" KKKKKKKK ";"
// client, seq and a check in lower-case hex; the check mixes the run's tag in, so a value
// left by another run (or any other bytes) reads as "not ours". What follows the tag is
// the rest of the value, of any size and content.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "util/status.h"

namespace memstand::history {

inline constexpr size_t kValueTagSize = 31;

/// Writes the tag of (run_tag, client, seq) over value[0, kValueTagSize): the engine
/// stamps a value of its pool where its request holds it (or a copy). REQUIRES: size >=
/// kValueTagSize.
void StampValueTag(uint32_t run_tag, uint32_t client, uint32_t seq, char* value, size_t size);

/// A value of `size` bytes: the tag, then '.' up to size. InvalidArgument when size is
/// below kValueTagSize (the value cannot carry it).
Result<std::string> TaggedValue(uint32_t run_tag, uint32_t client, uint32_t seq, size_t size);

/// The ValueId (record.h) a value carries when it begins with a tag of this run;
/// nullopt ("not ours") for any other bytes: too short, another layout, upper-case hex,
/// a check that does not match (another run's tag, or bytes changed).
std::optional<uint64_t> ReadValueTag(uint32_t run_tag, std::string_view value);

}  // namespace memstand::history

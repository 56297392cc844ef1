// Lost writes: Jepsen's set check, on registers. After the run (the load over), every
// key a write touched is read once; the value found is judged against the writes:
// - lost: an acknowledged write that certainly took effect after the write whose value
//   the key holds (an absent key, or bytes of another run, count as before every write);
// - recovered: the key holds the value of a write whose outcome was unknown (told, not
//   a violation: an unknown write may take effect);
// - unexpected: the key holds a value no write of this run put on it, the value of a
//   write that failed, or (keys fresh at the start, or after an acknowledged write)
//   bytes this run did not write.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "history/check_result.h"
#include "history/record.h"

namespace memstand::history {

/// What the read of one key after the run returned.
struct FinalValue {
  Seen seen = Seen::kAbsent;  // kAbsent, kOurs (value) or kForeign (bytes not ours)
  uint64_t value = 0;         // kOurs: the ValueId (value_tag.h read it)
  std::string preview;        // kForeign: the first bytes, for the evidence
};

/// Every key a write or a cas touched (any outcome), ascending: the keys to read.
std::vector<uint64_t> WrittenKeys(const History& h);

/// The check over `finals` (a value per written key). A written key missing from
/// `finals` makes it kCouldNotRun, naming the key.
CheckResult CheckLostWrites(const History& h, const std::map<uint64_t, FinalValue>& finals);

/// The result when the keys could not be read after the run: kCouldNotRun saying why.
CheckResult LostWritesNotRun(const std::string& why);

}  // namespace memstand::history

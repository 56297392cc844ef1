// Session guarantees, per client (a client is one session: a new client id follows an
// unknown outcome). Only reads whose value can be placed are judged: the initial value
// (absent, or bytes of another run) comes before every write; a value of this run comes
// at its write; a value no write explains is linearizable.h's finding, not these.
// - monotonic reads: a client's later read of a key never sees a value whose write
//   certainly came before the write of a value it saw earlier;
// - read-your-writes: after a client's acknowledged write (or cas) of a key, its reads
//   of that key see that value or one whose write may have come after it.
#pragma once

#include "history/check_result.h"
#include "history/record.h"

namespace memstand::history {

CheckResult CheckMonotonicReads(const History& h);
CheckResult CheckReadYourWrites(const History& h);

}  // namespace memstand::history

// An RW pool target (tarantool+rw://): which member of a Tarantool replica set takes
// writes now, found as go-tarantool's connection pool finds it in RW mode: the member
// whose box.info.ro is false. Blocking: the engine's control side calls it, never a
// load thread.
#pragma once

#include <string>

#include "load/sentinel.h"
#include "load/target.h"
#include "util/status.h"

namespace memstand {

/// Asks t's members in turn (each over a control connection of its own, with t's
/// credentials) `return box.info.ro`; the first that answers false is the writable one:
/// PrimaryFound::primary is t with that member's host and port and no members (Display:
/// "tarantool://host:port"), `sent` the requests the asking sent it (EVAL, AUTH: its
/// box.stat() counts them). The member at `current` ("host:port", the writable one known
/// so far; empty: none) is asked last, so that a stopped old master does not hold the
/// answer up while a promoted one waits. Each connect and request is bounded by
/// timeout_ms. REQUIRES: t.rw_pool(). Failed when no member says it is writable; the
/// message says what each answered.
Result<PrimaryFound> FindWritable(const RedisTarget& t, const std::string& current, int timeout_ms);

}  // namespace memstand

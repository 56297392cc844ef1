// A Sentinel target (redis+sentinel://): which node is the primary now, as the
// Sentinels say and the node itself confirms. Blocking: the engine's control side calls
// it, never a load thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "core/tls.h"
#include "load/target.h"
#include "util/status.h"

namespace memstand {

struct PrimaryFound {
  /// The Sentinel target with host and port the primary's and no Sentinels (Display:
  /// "redis://host:port"): what the load connections dial.
  RedisTarget primary;
  /// The commands sent to the primary to confirm it (its handshake and ROLE), by
  /// lower-case name: its INFO commandstats count them, so the cross-check does too.
  std::map<std::string, int64_t> sent;
};

/// Asks t's Sentinels in turn (each over a connection of its own, in plaintext and with
/// no credentials: the URL's are the data nodes', as redis-py's) for the address of the
/// primary named t.master_name (SENTINEL GET-MASTER-ADDR-BY-NAME), and that node for
/// ROLE (with t's credentials, over TLS when `tls` is set; at the address t.address_map
/// maps the Sentinel's answer to, if it does): the first answer whose node
/// says "master" is the primary; a node that says otherwise is not used, and the next
/// Sentinel is asked. Each connection and command is bounded by timeout_ms.
/// REQUIRES: t.sentinel(). Failed when no answer holds; the message names the master
/// name and what each Sentinel said.
Result<PrimaryFound> FindPrimary(const RedisTarget& t, const std::shared_ptr<const TlsContext>& tls,
                                 int timeout_ms);

}  // namespace memstand

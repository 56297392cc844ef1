// Which wire protocol `memstand run` speaks: RESP (Redis), memcached text, Tarantool
// IPROTO, or etcd v3 through its JSON gateway.
#pragma once

#include <string_view>

#include "util/status.h"

namespace memstand {

enum class Protocol : uint8_t { kResp, kMemcache, kIproto, kEtcd };

/// "resp", "memcache", "iproto", "etcd" (the --protocol values).
const char* ProtocolName(Protocol p);
/// What a person calls the server that speaks it: "Redis (RESP)", "memcached (text)", ...
const char* ProtocolServer(Protocol p);
/// --protocol's value; InvalidArgument naming the accepted ones.
Result<Protocol> ParseProtocol(std::string_view name);
/// The protocol a target URL's scheme implies: redis -> kResp, memcache -> kMemcache,
/// etcd -> kEtcd, tarantool -> kIproto.
Protocol SchemeProtocol(std::string_view scheme);
/// The URL scheme of a protocol (inverse of SchemeProtocol).
const char* ProtocolScheme(Protocol p);

}  // namespace memstand

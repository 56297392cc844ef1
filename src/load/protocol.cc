#include "load/protocol.h"

#include <string>

namespace memstand {

const char* ProtocolName(Protocol p) {
  switch (p) {
    case Protocol::kResp: return "resp";
    case Protocol::kMemcache: return "memcache";
    case Protocol::kIproto: return "iproto";
    case Protocol::kEtcd: return "etcd";
  }
  return "?";
}

const char* ProtocolServer(Protocol p) {
  switch (p) {
    case Protocol::kResp: return "Redis (RESP)";
    case Protocol::kMemcache: return "memcached (text protocol)";
    case Protocol::kIproto: return "Tarantool (IPROTO)";
    case Protocol::kEtcd: return "etcd (v3 JSON gateway)";
  }
  return "?";
}

Result<Protocol> ParseProtocol(std::string_view name) {
  for (Protocol p : {Protocol::kResp, Protocol::kMemcache, Protocol::kIproto, Protocol::kEtcd}) {
    if (name == ProtocolName(p)) return p;
  }
  return Status::InvalidArgument("'" + std::string(name) +
                                 "' is not one of resp, memcache, iproto, etcd");
}

Protocol SchemeProtocol(std::string_view scheme) {
  if (scheme == "memcache") return Protocol::kMemcache;
  if (scheme == "etcd") return Protocol::kEtcd;
  if (scheme == "tarantool") return Protocol::kIproto;
  return Protocol::kResp;
}

const char* ProtocolScheme(Protocol p) {
  switch (p) {
    case Protocol::kResp: return "redis";
    case Protocol::kMemcache: return "memcache";
    case Protocol::kIproto: return "tarantool";
    case Protocol::kEtcd: return "etcd";
  }
  return "redis";
}

}  // namespace memstand

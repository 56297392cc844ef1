#include "scenario/kit/topology_nodes.h"

#include <fmt/format.h>

namespace memstand {

RedisTarget TargetOfNode(const NodeRecord& n, Protocol p) {
  RedisTarget t;
  t.scheme = ProtocolScheme(p);
  t.host = n.host;
  t.port = n.port;
  return t;
}

std::string NodeAddress(const NodeRecord& n) { return fmt::format("{}:{}", n.host, n.port); }

size_t NodeIndex(const Topology& t, const std::string& name) {
  for (size_t i = 0; i < t.nodes().size(); ++i) {
    if (t.nodes()[i].name == name) return i;
  }
  return t.nodes().size();
}

}  // namespace memstand

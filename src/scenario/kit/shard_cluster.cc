#include "scenario/kit/shard_cluster.h"

#include <cstdlib>

#include <fmt/format.h>

#include "load/proto_control.h"
#include "scenario/kit/scenario_server.h"
#include "scenario/kit/topology_nodes.h"

namespace memstand {
namespace {

Result<std::unique_ptr<ProtoControl>> ConnectNode(const NodeRecord& n) {
  auto c = ProtoControl::Connect(Protocol::kIproto, TargetOfNode(n, Protocol::kIproto), kControlTimeoutMs);
  if (!c.ok()) return c.status().WithContext(fmt::format("{} ({})", n.name, NodeAddress(n)));
  return c;
}

// A counter of a map value by name; 0 when absent.
int64_t Field(const iproto::Value& map, const std::string& name) {
  if (map.type() != iproto::Value::Type::kMap) return 0;
  const auto& kv = map.items();
  for (size_t i = 0; i + 1 < kv.size(); i += 2) {
    if (kv[i].type() != iproto::Value::Type::kString || kv[i].str() != name) continue;
    if (kv[i + 1].type() == iproto::Value::Type::kUint) return static_cast<int64_t>(kv[i + 1].uint_value());
    if (kv[i + 1].type() == iproto::Value::Type::kInt) return kv[i + 1].int_value();
  }
  return 0;
}

}  // namespace

int StorageSetOf(const std::string& node) {
  constexpr std::string_view kPrefix = "storage-";
  if (!node.starts_with(kPrefix)) return 0;
  return std::atoi(node.c_str() + kPrefix.size());
}

Status CheckShardHealth(const Topology& t) {
  for (const NodeRecord& n : t.nodes()) {
    if (n.role != "router") continue;
    auto c = ConnectNode(n);
    if (!c.ok()) return Status::Failed("health check: " + c.status().message());
    auto r = (*c)->Eval("return shard.check()", iproto::Value::Array({}));
    if (!r.ok()) return Status::Failed(fmt::format("health check: {} ({}): {}", n.name, NodeAddress(n),
                                                   r.status().message()));
    const auto& v = r->items();
    if (v.empty() || v[0].type() != iproto::Value::Type::kBool) {
      return Status::Failed(fmt::format("health check: {}: shard.check() returned {}", n.name, iproto::ToString(*r)));
    }
    if (!v[0].boolean()) {
      return Status::Failed(fmt::format("health check: {} ({}): {}", n.name, NodeAddress(n),
                                        v.size() > 1 ? v[1].str() : std::string("no reason given")));
    }
  }
  return Status::OK();
}

Result<std::vector<StorageCount>> ReadStorageCounts(const Topology& t) {
  std::vector<StorageCount> out;
  for (const NodeRecord& n : t.nodes()) {
    if (n.role != "storage-master" && n.role != "storage-replica") continue;
    auto c = ConnectNode(n);
    if (!c.ok()) return c.status();
    auto r = (*c)->Eval("return memstand_storage.counts()", iproto::Value::Array({}));
    if (!r.ok()) return r.status().WithContext(n.name + " memstand_storage.counts()");
    if (r->size() < 1) return Status::Protocol(n.name + ": memstand_storage.counts() returned nothing");
    const iproto::Value& m = r->items()[0];
    StorageCount s{n.name, n.role, StorageSetOf(n.name)};
    s.replace = Field(m, "replace");
    s.insert = Field(m, "insert");
    s.upsert = Field(m, "upsert");
    s.update = Field(m, "update");
    s.del = Field(m, "delete");
    s.get = Field(m, "get");
    s.total = s.replace + s.insert + s.upsert + s.update + s.del + s.get;
    out.push_back(s);
  }
  return out;
}

}  // namespace memstand

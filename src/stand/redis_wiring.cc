#include "stand/redis_wiring.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <sstream>
#include <thread>

#include "client/redis_client.h"
#include "client/redis_info.h"

namespace memstand {
namespace {

constexpr int kSlots = 16384;
constexpr int kControlTimeoutMs = 5000;

using Clock = std::chrono::steady_clock;
using Clients = std::vector<std::unique_ptr<RedisClient>>;

// Polls check() until it is OK; Timeout with its last complaint, or Failed when cancelled.
template <typename Check>
Status WaitFor(const std::string& what, const WiringOptions& options, Clock::time_point deadline,
               Check check) {
  auto pause = std::chrono::milliseconds(5);
  for (;;) {
    Status s = check();
    if (s.ok()) return s;
    if (options.cancel != nullptr && options.cancel->load()) {
      return Status::Failed("interrupted while waiting for " + what);
    }
    if (Clock::now() >= deadline) {
      return Status::Timeout(what + ": not reached within " + std::to_string(options.timeout_ms) +
                             " ms; last seen: " + s.message());
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(100));
  }
}

Result<std::unique_ptr<RedisClient>> Connect(const RedisEndpoint& e) {
  RedisClientOptions o;
  o.host = e.host;
  o.port = e.port;
  o.timeout_ms = kControlTimeoutMs;
  auto c = RedisClient::Connect(o);
  if (!c.ok()) return c.status().WithContext(e.name);
  return c;
}

// One command; an error reply becomes Status::Server. Text replies only.
Result<std::string> Call(RedisClient* c, const RedisEndpoint& e,
                         const std::vector<std::string>& args) {
  auto r = c->Command(args);
  if (!r.ok()) return r.status().WithContext(e.name + " " + args[0]);
  if (r->is_error()) {
    return Status::Server(e.name + " " + args[0] + (args.size() > 1 ? " " + args[1] : "") + ": " +
                          r->str);
  }
  return r->str;
}

// INFO <section>, or CLUSTER INFO for "cluster" (INFO's cluster section holds only
// cluster_enabled).
Result<std::map<std::string, std::string>> Info(RedisClient* c, const RedisEndpoint& e,
                                                const std::string& section) {
  auto text = section == "cluster" ? Call(c, e, {"CLUSTER", "INFO"}) : Call(c, e, {"INFO", section});
  if (!text.ok()) return text.status();
  return ParseInfo(*text);
}

Result<Clients> ConnectAll(const std::vector<RedisEndpoint>& nodes) {
  Clients clients;
  for (const RedisEndpoint& e : nodes) {
    auto c = Connect(e);
    if (!c.ok()) return c.status();
    clients.push_back(std::move(c).value());
  }
  return clients;
}

// --- replication -------------------------------------------------------------------

Status CheckReplication(RedisClient* primary_client, const RedisEndpoint& primary,
                        Clients& replica_clients, const std::vector<RedisEndpoint>& replicas) {
  auto info = Info(primary_client, primary, "replication");
  if (!info.ok()) return info.status();
  std::string connected = (*info)["connected_slaves"];
  if (connected != std::to_string(replicas.size())) {
    return Status::Failed(primary.name + " connected_slaves:" + connected);
  }
  for (size_t i = 0; i < replicas.size(); ++i) {
    std::string line = (*info)["slave" + std::to_string(i)];
    if (line.find("state=online") == std::string::npos) {
      return Status::Failed(primary.name + " slave" + std::to_string(i) + ":" + line);
    }
    auto r = Info(replica_clients[i].get(), replicas[i], "replication");
    if (!r.ok()) return r.status();
    if ((*r)["master_link_status"] != "up") {
      return Status::Failed(replicas[i].name + " master_link_status:" + (*r)["master_link_status"]);
    }
  }
  return Status::OK();
}

// --- cluster -----------------------------------------------------------------------

struct ClusterNode {
  RedisEndpoint endpoint;
  bool master = true;
  int master_index = 0;  // masters: their own index; replicas: their master's
  std::string id;
};

std::string SlotText(int m, int n) {
  auto [lo, hi] = MasterSlotRange(m, n);
  return lo == hi ? std::to_string(lo) : std::to_string(lo) + "-" + std::to_string(hi);
}

// A node's view of the cluster from CLUSTER NODES, as sorted lines
// "<id> master <slots...>" / "<id> replica <master id>"; a failing, handshaking or
// address-less node makes it an error.
Result<std::string> ClusterView(const std::string& nodes_text) {
  std::vector<std::string> lines;
  std::istringstream in(nodes_text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string id, addr, flags, master, ping, pong, epoch, link;
    if (!(f >> id >> addr >> flags >> master >> ping >> pong >> epoch >> link)) continue;
    std::istringstream flag_list(flags);
    for (std::string flag; std::getline(flag_list, flag, ',');) {
      if (flag == "handshake" || flag == "noaddr" || flag == "fail" || flag == "fail?") {
        return Status::Failed("node " + id + " " + addr + " is " + flags);
      }
    }
    std::string view = id;
    if (("," + flags + ",").find(",master,") != std::string::npos) {
      view += " master";
      for (std::string slot; f >> slot;) view += " " + slot;
    } else {
      view += " replica " + master;
    }
    lines.push_back(view);
  }
  std::sort(lines.begin(), lines.end());
  std::string joined;
  for (const std::string& l : lines) joined += l + "\n";
  return joined;
}

std::string ExpectedView(const std::vector<ClusterNode>& nodes, int masters) {
  std::vector<std::string> lines;
  for (const ClusterNode& n : nodes) {
    lines.push_back(n.master ? n.id + " master " + SlotText(n.master_index, masters)
                             : n.id + " replica " + nodes[n.master_index].id);
  }
  std::sort(lines.begin(), lines.end());
  std::string joined;
  for (const std::string& l : lines) joined += l + "\n";
  return joined;
}

// Slots, epochs, then MEET: each master knows only itself while it takes its slots
// and epoch, so no conflict needs resolving.
Status AssignAndMeet(Clients& clients, std::vector<ClusterNode>& nodes, int masters) {
  for (size_t i = 0; i < nodes.size(); ++i) {
    auto id = Call(clients[i].get(), nodes[i].endpoint, {"CLUSTER", "MYID"});
    if (!id.ok()) return id.status();
    nodes[i].id = *id;
    if (nodes[i].master) {
      auto [lo, hi] = MasterSlotRange(nodes[i].master_index, masters);
      auto r = Call(clients[i].get(), nodes[i].endpoint,
                    {"CLUSTER", "ADDSLOTSRANGE", std::to_string(lo), std::to_string(hi)});
      if (!r.ok()) return r.status();
    }
    auto e = Call(clients[i].get(), nodes[i].endpoint,
                  {"CLUSTER", "SET-CONFIG-EPOCH", std::to_string(i + 1)});
    if (!e.ok()) return e.status();
  }
  for (size_t i = 1; i < nodes.size(); ++i) {
    const RedisEndpoint& e = nodes[i].endpoint;
    auto r = Call(clients[0].get(), nodes[0].endpoint,
                  {"CLUSTER", "MEET", e.host, std::to_string(e.port), std::to_string(e.bus_port)});
    if (!r.ok()) return r.status();
  }
  return Status::OK();
}

Status CheckAllKnown(Clients& clients, const std::vector<ClusterNode>& nodes) {
  for (size_t i = 0; i < nodes.size(); ++i) {
    auto info = Info(clients[i].get(), nodes[i].endpoint, "cluster");
    if (!info.ok()) return info.status();
    std::string known = (*info)["cluster_known_nodes"];
    if (known != std::to_string(nodes.size())) {
      return Status::Failed(nodes[i].endpoint.name + " cluster_known_nodes:" + known);
    }
  }
  return Status::OK();
}

Status Replicate(Clients& clients, const std::vector<ClusterNode>& nodes) {
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].master) continue;
    auto r = Call(clients[i].get(), nodes[i].endpoint,
                  {"CLUSTER", "REPLICATE", nodes[nodes[i].master_index].id});
    if (!r.ok()) return r.status();
  }
  return Status::OK();
}

// Every replica's link is up (and, with need_offset, it has replicated some bytes).
Status CheckReplicasLinked(Clients& clients, const std::vector<ClusterNode>& nodes,
                           bool need_offset) {
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].master) continue;
    auto r = Info(clients[i].get(), nodes[i].endpoint, "replication");
    if (!r.ok()) return r.status();
    if ((*r)["master_link_status"] != "up" || (need_offset && (*r)["slave_repl_offset"] == "0")) {
      return Status::Failed(nodes[i].endpoint.name + " master_link_status:" +
                            (*r)["master_link_status"] + " slave_repl_offset:" +
                            (*r)["slave_repl_offset"]);
    }
  }
  return Status::OK();
}

// Replicas announce their new role and replication offset to every node at once:
// otherwise the cluster learns them from random pings, seconds later (and CLUSTER
// SLOTS leaves out a replica whose known offset is 0). A MEET to a known node only
// delivers the sender's header; the duplicate handshake entry is dropped by Redis.
Status AnnounceReplicas(Clients& clients, const std::vector<ClusterNode>& nodes) {
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].master) continue;
    for (size_t j = 0; j < nodes.size(); ++j) {
      if (j == i) continue;
      const RedisEndpoint& e = nodes[j].endpoint;
      auto r = Call(clients[i].get(), nodes[i].endpoint,
                    {"CLUSTER", "MEET", e.host, std::to_string(e.port), std::to_string(e.bus_port)});
      if (!r.ok()) return r.status();
    }
  }
  return Status::OK();
}

// CLUSTER SLOTS as sorted lines "lo-hi port port...": master first, then replicas.
Result<std::string> SlotsView(RedisClient* c, const RedisEndpoint& e) {
  auto r = c->Command({"CLUSTER", "SLOTS"});
  if (!r.ok()) return r.status().WithContext(e.name + " CLUSTER SLOTS");
  if (r->is_error()) return Status::Server(e.name + " CLUSTER SLOTS: " + r->str);
  std::vector<std::string> lines;
  for (const resp::Reply& range : r->elements) {
    if (range.elements.size() < 3) return Status::Protocol(e.name + ": short CLUSTER SLOTS entry");
    std::string line = std::to_string(range.elements[0].integer) + "-" +
                       std::to_string(range.elements[1].integer);
    std::vector<int64_t> replica_ports;
    for (size_t k = 3; k < range.elements.size(); ++k) {
      replica_ports.push_back(range.elements[k].elements.at(1).integer);
    }
    std::sort(replica_ports.begin(), replica_ports.end());
    line += " " + std::to_string(range.elements[2].elements.at(1).integer);
    for (int64_t p : replica_ports) line += " " + std::to_string(p);
    lines.push_back(line);
  }
  std::sort(lines.begin(), lines.end());
  std::string joined;
  for (const std::string& l : lines) joined += l + "\n";
  return joined;
}

std::string ExpectedSlots(const std::vector<ClusterNode>& nodes, int masters) {
  std::vector<std::string> lines;
  for (const ClusterNode& m : nodes) {
    if (!m.master) continue;
    auto [lo, hi] = MasterSlotRange(m.master_index, masters);
    std::string line = std::to_string(lo) + "-" + std::to_string(hi) + " " + std::to_string(m.endpoint.port);
    std::vector<int> replica_ports;
    for (const ClusterNode& r : nodes) {
      if (!r.master && r.master_index == m.master_index) replica_ports.push_back(r.endpoint.port);
    }
    std::sort(replica_ports.begin(), replica_ports.end());
    for (int p : replica_ports) line += " " + std::to_string(p);
    lines.push_back(line);
  }
  std::sort(lines.begin(), lines.end());
  std::string joined;
  for (const std::string& l : lines) joined += l + "\n";
  return joined;
}

Status CheckClusterOk(Clients& clients, const std::vector<ClusterNode>& nodes,
                      const std::string& expected_nodes, const std::string& expected_slots) {
  for (size_t i = 0; i < nodes.size(); ++i) {
    const RedisEndpoint& e = nodes[i].endpoint;
    auto info = Info(clients[i].get(), e, "cluster");
    if (!info.ok()) return info.status();
    if ((*info)["cluster_state"] != "ok" ||
        (*info)["cluster_slots_assigned"] != std::to_string(kSlots)) {
      return Status::Failed(e.name + " cluster_state:" + (*info)["cluster_state"] +
                            " cluster_slots_assigned:" + (*info)["cluster_slots_assigned"]);
    }
    auto text = Call(clients[i].get(), e, {"CLUSTER", "NODES"});
    if (!text.ok()) return text.status();
    auto view = ClusterView(*text);
    if (!view.ok()) return view.status().WithContext(e.name);
    if (*view != expected_nodes) {
      return Status::Failed(e.name + " CLUSTER NODES differs from the plan:\n" + *view);
    }
    auto slots = SlotsView(clients[i].get(), e);
    if (!slots.ok()) return slots.status();
    if (*slots != expected_slots) {
      return Status::Failed(e.name + " CLUSTER SLOTS differs from the plan:\n" + *slots);
    }
  }
  return Status::OK();
}

// Empties every master (they are new and empty: this only moves their replication
// offset off 0, see AnnounceReplicas).
Status BumpOffsets(Clients& clients, const std::vector<ClusterNode>& nodes) {
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!nodes[i].master) continue;
    auto r = Call(clients[i].get(), nodes[i].endpoint, {"FLUSHALL"});
    if (!r.ok()) return r.status();
  }
  return Status::OK();
}

// memstand's setup commands should not show in the commandstats a run reads.
Status ResetStats(Clients& clients, const std::vector<ClusterNode>& nodes) {
  for (size_t i = 0; i < nodes.size(); ++i) {
    auto r = Call(clients[i].get(), nodes[i].endpoint, {"CONFIG", "RESETSTAT"});
    if (!r.ok()) return r.status();
  }
  return Status::OK();
}

}  // namespace

Status WaitReplication(const RedisEndpoint& primary, const std::vector<RedisEndpoint>& replicas,
                       const WiringOptions& options) {
  auto deadline = Clock::now() + std::chrono::milliseconds(options.timeout_ms);
  auto primary_client = Connect(primary);
  if (!primary_client.ok()) return primary_client.status();
  auto replica_clients = ConnectAll(replicas);
  if (!replica_clients.ok()) return replica_clients.status();
  return WaitFor("replication to " + std::to_string(replicas.size()) + " replica(s)", options,
                 deadline, [&] {
                   return CheckReplication(primary_client->get(), primary, *replica_clients,
                                           replicas);
                 });
}

namespace {

// What one Sentinel says of the primary it watches, against what the topology holds.
Status CheckSentinel(RedisClient* c, const RedisEndpoint& sentinel, const std::string& master_name,
                     const RedisEndpoint& primary, int replicas, size_t others) {
  auto r = c->Command({"SENTINEL", "MASTER", master_name});
  if (!r.ok()) return r.status().WithContext(sentinel.name);
  if (r->is_error()) return Status::Server(sentinel.name + " SENTINEL MASTER: " + r->str);
  std::map<std::string, std::string> fields;
  for (size_t i = 0; i + 1 < r->elements.size(); i += 2) fields[r->elements[i].str] = r->elements[i + 1].str;
  const std::string want_addr = primary.host + ":" + std::to_string(primary.port);
  const std::string addr = fields["ip"] + ":" + fields["port"];
  const std::string want = "flags=master num-slaves=" + std::to_string(replicas) +
                           " num-other-sentinels=" + std::to_string(others) + " at " + want_addr;
  const std::string seen = "flags=" + fields["flags"] + " num-slaves=" + fields["num-slaves"] +
                           " num-other-sentinels=" + fields["num-other-sentinels"] + " at " + addr;
  if (seen != want) return Status::Failed(sentinel.name + " sees " + seen + " (want " + want + ")");
  return Status::OK();
}

}  // namespace

Status WaitSentinels(const std::vector<RedisEndpoint>& sentinels, const std::string& master_name,
                     const RedisEndpoint& primary, int replicas, const WiringOptions& options) {
  auto deadline = Clock::now() + std::chrono::milliseconds(options.timeout_ms);
  auto clients = ConnectAll(sentinels);
  if (!clients.ok()) return clients.status();
  return WaitFor("every Sentinel to see the primary, its replicas and the other Sentinels", options, deadline,
                 [&]() -> Status {
                   for (size_t i = 0; i < sentinels.size(); ++i) {
                     Status s = CheckSentinel((*clients)[i].get(), sentinels[i], master_name, primary, replicas,
                                              sentinels.size() - 1);
                     if (!s.ok()) return s;
                   }
                   return Status::OK();
                 });
}

std::pair<int, int> MasterSlotRange(int i, int n) {
  int lo = static_cast<int>(static_cast<int64_t>(kSlots) * i / n);
  int hi = static_cast<int>(static_cast<int64_t>(kSlots) * (i + 1) / n) - 1;
  return {lo, hi};
}

Status FormCluster(const std::vector<RedisEndpoint>& masters,
                   const std::vector<std::vector<RedisEndpoint>>& replicas,
                   const WiringOptions& options) {
  auto deadline = Clock::now() + std::chrono::milliseconds(options.timeout_ms);
  std::vector<ClusterNode> nodes;
  for (size_t m = 0; m < masters.size(); ++m) nodes.push_back({masters[m], true, static_cast<int>(m), ""});
  for (size_t m = 0; m < replicas.size(); ++m) {
    for (const RedisEndpoint& r : replicas[m]) nodes.push_back({r, false, static_cast<int>(m), ""});
  }
  std::vector<RedisEndpoint> endpoints;
  for (const ClusterNode& n : nodes) endpoints.push_back(n.endpoint);
  auto clients = ConnectAll(endpoints);
  if (!clients.ok()) return clients.status();
  const int n_masters = static_cast<int>(masters.size());
  if (Status s = AssignAndMeet(*clients, nodes, n_masters); !s.ok()) return s;
  Status s = WaitFor("every node to know the others", options, deadline,
                     [&] { return CheckAllKnown(*clients, nodes); });
  if (!s.ok()) return s;
  s = WaitFor("replicas to attach", options, deadline, [&] { return Replicate(*clients, nodes); });
  if (!s.ok()) return s;
  bool replicated = masters.size() < nodes.size();
  if (replicated) {
    s = WaitFor("replicas to sync", options, deadline,
                [&] { return CheckReplicasLinked(*clients, nodes, false); });
    if (!s.ok()) return s;
    if (s = BumpOffsets(*clients, nodes); !s.ok()) return s;
    s = WaitFor("replication offsets", options, deadline,
                [&] { return CheckReplicasLinked(*clients, nodes, true); });
    if (!s.ok()) return s;
    if (s = AnnounceReplicas(*clients, nodes); !s.ok()) return s;
  }
  std::string expected_nodes = ExpectedView(nodes, n_masters);
  std::string expected_slots = ExpectedSlots(nodes, n_masters);
  s = WaitFor("cluster_state:ok and the planned slot map on every node", options, deadline,
              [&] { return CheckClusterOk(*clients, nodes, expected_nodes, expected_slots); });
  if (!s.ok()) return s;
  return ResetStats(*clients, nodes);
}

}  // namespace memstand

#include "stand/stand_state.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

namespace memstand {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr int kTermWaitMs = 5000;
constexpr int kKillWaitMs = 2000;

json NodeJson(const NodeRecord& n) {
  return json{{"name", n.name},
              {"role", n.role},
              {"replica_of", n.replica_of},
              {"host", n.host},
              {"port", n.port},
              {"ports", n.ports},
              {"binary", n.binary},
              {"version", n.version},
              {"dir", n.dir},
              {"log", n.log},
              {"pid", n.process.pid},
              {"start_ticks", n.process.start_ticks},
              {"cmdline", n.process.cmdline}};
}

NodeRecord NodeFromJson(const json& j) {
  NodeRecord n;
  n.name = j.at("name").get<std::string>();
  n.role = j.at("role").get<std::string>();
  n.replica_of = j.value("replica_of", "");
  n.host = j.at("host").get<std::string>();
  n.port = j.at("port").get<int>();
  n.ports = j.value("ports", std::vector<int>{});
  n.binary = j.value("binary", "");
  n.version = j.value("version", "");
  n.dir = j.value("dir", "");
  n.log = j.value("log", "");
  n.process.pid = j.at("pid").get<pid_t>();
  n.process.start_ticks = j.at("start_ticks").get<uint64_t>();
  n.process.cmdline = j.at("cmdline").get<std::vector<std::string>>();
  return n;
}

json RecordJson(const TopologyRecord& r) {
  json settings = json::array();
  for (const auto& [key, value] : r.settings) settings.push_back(json::array({key, value}));
  json nodes = json::array();
  for (const NodeRecord& n : r.nodes) nodes.push_back(NodeJson(n));
  return json{{"memstand_state", r.format}, {"name", r.name},
              {"kind", r.kind},             {"status", r.status},
              {"dir", r.dir},               {"created_unix", r.created_unix},
              {"memstand_pid", r.memstand_pid}, {"detached", r.detached},
              {"masters", r.masters},       {"replicas", r.replicas},
              {"settings", settings},       {"nodes", nodes}};
}

TopologyRecord RecordFromJson(const json& j) {
  TopologyRecord r;
  r.format = j.at("memstand_state").get<int>();
  r.name = j.at("name").get<std::string>();
  r.kind = j.at("kind").get<std::string>();
  r.status = j.at("status").get<std::string>();
  r.dir = j.at("dir").get<std::string>();
  r.created_unix = j.value("created_unix", int64_t{0});
  r.memstand_pid = j.value("memstand_pid", 0);
  r.detached = j.value("detached", false);
  r.masters = j.value("masters", 0);
  r.replicas = j.value("replicas", 0);
  for (const json& kv : j.value("settings", json::array())) {
    r.settings.emplace_back(kv.at(0).get<std::string>(), kv.at(1).get<std::string>());
  }
  for (const json& n : j.at("nodes")) r.nodes.push_back(NodeFromJson(n));
  return r;
}

bool StillOurs(const NodeRecord& node) { return NodeOwnership(node) == Ownership::kOurs; }

// Signals the node's process group when it leads one (servers memstand starts do),
// else the process alone.
void Signal(const NodeRecord& node, int sig) {
  pid_t pid = node.process.pid;
  if (getpgid(pid) == pid && kill(-pid, sig) == 0) return;
  kill(pid, sig);
}

// Waits until none of `nodes` is still ours; returns those that are.
std::vector<const NodeRecord*> WaitGone(std::vector<const NodeRecord*> nodes, int timeout_ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    std::erase_if(nodes, [](const NodeRecord* n) { return !StillOurs(*n); });
    if (nodes.empty() || std::chrono::steady_clock::now() >= deadline) return nodes;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

std::string Describe(const NodeRecord& n) {
  return n.name + " (" + n.binary + ", pid " + std::to_string(n.process.pid) + ")";
}

}  // namespace

std::string DefaultRunRoot() {
  const char* env = std::getenv("MEMSTAND_RUN_DIR");
  return env != nullptr && *env != '\0' ? env : "/tmp/memstand-stand";
}

Status WriteTopologyRecord(const std::string& path, const TopologyRecord& record) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << RecordJson(record).dump(2) << "\n";
    out.close();
    if (!out) return Status::IoError("cannot write " + tmp);
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) return Status::IoError("cannot rename " + tmp + " to " + path + ": " + ec.message());
  return Status::OK();
}

Result<TopologyRecord> ReadTopologyRecord(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::IoError("cannot read " + path);
  json j = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || !j.contains("memstand_state")) {
    return Status::Protocol(path + ": not a memstand state file");
  }
  try {
    TopologyRecord r = RecordFromJson(j);
    std::error_code ec;
    r.dir = fs::absolute(fs::path(path), ec).parent_path().string();  // where it is, not what it says
    return r;
  } catch (const json::exception& e) {
    return Status::Protocol(path + ": " + e.what());
  }
}

std::vector<ListedTopology> ListTopologies(const std::string& root) {
  std::vector<ListedTopology> list;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    std::string state = entry.path().string() + "/" + kStateFileName;
    if (!entry.is_directory(ec) || !fs::exists(state, ec)) continue;
    list.push_back({entry.path().string(), ReadTopologyRecord(state)});
  }
  std::sort(list.begin(), list.end(),
            [](const ListedTopology& a, const ListedTopology& b) { return a.dir < b.dir; });
  return list;
}

Ownership NodeOwnership(const NodeRecord& node) {
  ProcessIdentity now;
  return CheckOwnership(node.process, &now);
}

Status StopRecordedTopology(const TopologyRecord& record, std::vector<std::string>* messages) {
  std::vector<const NodeRecord*> ours;
  for (auto it = record.nodes.rbegin(); it != record.nodes.rend(); ++it) {  // replicas first
    ProcessIdentity now;
    switch (CheckOwnership(it->process, &now)) {
      case Ownership::kOurs:
        Signal(*it, SIGTERM);
        ours.push_back(&*it);
        break;
      case Ownership::kGone:
        messages->push_back(Describe(*it) + ": already gone");
        break;
      case Ownership::kOther:
        messages->push_back(Describe(*it) + ": left alone, the pid now runs '" +
                            JoinCmdline(now.cmdline) + "', not the process memstand started");
        break;
    }
  }
  std::vector<const NodeRecord*> stubborn = WaitGone(ours, kTermWaitMs);
  for (const NodeRecord* n : stubborn) Signal(*n, SIGKILL);
  stubborn = WaitGone(stubborn, kKillWaitMs);
  for (const NodeRecord* n : ours) {
    bool left = std::find(stubborn.begin(), stubborn.end(), n) != stubborn.end();
    messages->push_back(Describe(*n) + (left ? ": still running after SIGKILL" : ": stopped"));
  }
  if (!stubborn.empty()) {
    return Status::Failed(std::to_string(stubborn.size()) + " process(es) of '" + record.name +
                          "' did not stop; " + record.dir + " kept");
  }
  std::error_code ec;
  fs::remove_all(record.dir, ec);
  if (ec) return Status::IoError("cannot remove " + record.dir + ": " + ec.message());
  return Status::OK();
}

}  // namespace memstand

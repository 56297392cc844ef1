#include "stand/stand_state.h"

#include <poll.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include <nlohmann/json.hpp>

#include "util/json_depth.h"

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
              {"fronts", n.fronts},
              {"host", n.host},
              {"port", n.port},
              {"ports", n.ports},
              {"binary", n.binary},
              {"version", n.version},
              {"dir", n.dir},
              {"log", n.log},
              {"pid", n.process.pid},
              {"start_ticks", n.process.start_ticks},
              {"cmdline", n.process.cmdline},
              {"uid", n.process.uid}};
}

NodeRecord NodeFromJson(const json& j) {
  NodeRecord n;
  n.name = j.at("name").get<std::string>();
  n.role = j.at("role").get<std::string>();
  n.replica_of = j.value("replica_of", "");
  n.fronts = j.value("fronts", "");
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
  n.process.uid = j.value("uid", int64_t{-1});
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
              {"memstand_pid", r.memstand_pid}, {"token", r.token},
              {"detached", r.detached},
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
  r.token = j.value("token", "");
  r.detached = j.value("detached", false);
  r.masters = j.value("masters", 0);
  r.replicas = j.value("replicas", 0);
  for (const json& kv : j.value("settings", json::array())) {
    r.settings.emplace_back(kv.at(0).get<std::string>(), kv.at(1).get<std::string>());
  }
  for (const json& n : j.at("nodes")) r.nodes.push_back(NodeFromJson(n));
  return r;
}

bool StillOurs(const TopologyRecord& r, const NodeRecord& n) {
  return NodeOwnership(r, n).verdict == Ownership::kOurs;
}

// True once the process a pidfd refers to has exited (the pidfd polls readable).
bool Exited(int pidfd) {
  pollfd p{pidfd, POLLIN, 0};
  return poll(&p, 1, 0) != 0;
}

// The only place `down` sends a signal. Pins the process with a pidfd, then proves it
// ours again (a pid may have changed hands since the last check; whatever the pidfd
// pinned, the check is about a process that holds our token file). The process alone
// gets the signal through its pidfd, so a pid reused after the check cannot; its
// process group only when it leads it (pgid == pid: the group memstand made with it)
// and has not exited, as the leader's pid cannot be reused while it is unreaped. pid
// > 1 is checked at the kill call, so kill(-1), kill(0) and init cannot be hit.
void SignalIfOurs(const TopologyRecord& r, const NodeRecord& n, int sig) {
  pid_t pid = n.process.pid;
  if (pid <= 1) return;
  int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (pidfd < 0 && errno != ENOSYS) return;  // gone
  OwnerCheck check = NodeOwnership(r, n);
  bool ours = check.verdict == Ownership::kOurs && check.now.pid == pid;
  if (ours && check.now.pgid == pid && (pidfd < 0 || !Exited(pidfd)) && pid > 1) {
    kill(-pid, sig);
  } else if (ours && pidfd >= 0) {
    syscall(SYS_pidfd_send_signal, pidfd, sig, nullptr, 0);
  } else if (ours && pid > 1) {  // no pidfds (Linux < 5.3)
    kill(pid, sig);
  }
  if (pidfd >= 0) close(pidfd);
}

// Waits until none of `nodes` is still ours; returns those that are.
std::vector<const NodeRecord*> WaitGone(const TopologyRecord& r, std::vector<const NodeRecord*> nodes,
                                        int timeout_ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    std::erase_if(nodes, [&](const NodeRecord* n) { return !StillOurs(r, *n); });
    if (nodes.empty() || std::chrono::steady_clock::now() >= deadline) return nodes;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

// Processes not in the record that hold the topology's token file open: a node that a
// memstand killed between spawning it and recording it left running. Each is added as
// a node named "unrecorded" with its identity of now, so the usual proof (uid, token
// held) decides whether it is signalled. Our own pid and the recorded memstand's are
// skipped (a memstand still starting holds the file open for a moment).
void AddUnrecorded(const TopologyRecord& r, std::vector<NodeRecord>* nodes) {
  struct stat token {};
  if (r.token.empty() || stat((r.dir + "/" + kOwnerTokenFile).c_str(), &token) < 0) return;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    pid_t pid = static_cast<pid_t>(std::strtol(name.c_str(), nullptr, 10));
    if (pid <= 1 || pid == getpid() || pid == r.memstand_pid) continue;
    if (std::any_of(nodes->begin(), nodes->end(),
                    [&](const NodeRecord& n) { return n.process.pid == pid; })) {
      continue;
    }
    if (!HoldsFile(pid, token.st_dev, token.st_ino)) continue;
    auto id = ReadProcessIdentity(pid);
    if (!id.ok()) continue;
    NodeRecord n;
    n.name = "unrecorded";
    // The program's name; a title such as redis-server's "/usr/bin/redis-server
    // 127.0.0.1:6379 [cluster]" is cut at its first space.
    const std::string first = id->cmdline.empty() ? "?" : id->cmdline[0].substr(0, id->cmdline[0].find(' '));
    n.binary = fs::path(first).filename().string();
    n.process = *id;
    nodes->push_back(std::move(n));
  }
}

std::string Describe(const NodeRecord& n) {
  return n.name + " (" + n.binary + ", pid " + std::to_string(n.process.pid) + ")";
}

}  // namespace

Status WriteTopologyRecord(const std::string& path, const TopologyRecord& record) {
  return WritePrivateFile(path, RecordJson(record).dump(2) + "\n");
}

Result<TopologyRecord> ReadTopologyRecord(const std::string& path) {
  auto text = ReadPrivateFile(path, "state file");
  if (!text.ok()) return text.status();
  // A forged file nested a million deep would end nlohmann's recursion on the stack's end.
  if (Status depth = CheckJsonDepth(*text); !depth.ok()) {
    return Status::Protocol(path + ": not a memstand state file: " + depth.message());
  }
  json j = json::parse(*text, nullptr, /*allow_exceptions=*/false);
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

Result<std::vector<ListedTopology>> ListTopologies(const std::string& root) {
  std::vector<ListedTopology> list;
  Status s = CheckPrivateDir(root, "run root");
  if (s.code() == Status::Code::kNotFound) return list;
  if (!s.ok()) return s;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    std::string state = entry.path().string() + "/" + kStateFileName;
    if (!entry.is_directory(ec) || entry.is_symlink(ec) || !fs::exists(fs::symlink_status(state, ec))) {
      continue;
    }
    list.push_back({entry.path().string(), ReadTopologyRecord(state)});
  }
  std::sort(list.begin(), list.end(),
            [](const ListedTopology& a, const ListedTopology& b) { return a.dir < b.dir; });
  return list;
}

OwnerCheck NodeOwnership(const TopologyRecord& record, const NodeRecord& node) {
  return CheckOwner(node.process, record.dir + "/" + kOwnerTokenFile, record.token);
}

Status StopRecordedTopology(const TopologyRecord& record, std::vector<std::string>* messages) {
  std::vector<NodeRecord> nodes = record.nodes;
  AddUnrecorded(record, &nodes);  // stopped first: they came last
  std::vector<const NodeRecord*> ours;
  int unproven = 0;
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {  // replicas first
    OwnerCheck check = NodeOwnership(record, *it);
    switch (check.verdict) {
      case Ownership::kOurs:
        SignalIfOurs(record, *it, SIGTERM);
        ours.push_back(&*it);
        break;
      case Ownership::kGone:
        messages->push_back(Describe(*it) + ": already gone");
        break;
      case Ownership::kOther:
        messages->push_back(Describe(*it) + ": left alone, the pid now runs '" +
                            JoinCmdline(check.now.cmdline) + "', not the process memstand started");
        break;
      case Ownership::kUnproven:
        ++unproven;
        messages->push_back(Describe(*it) + ": left alone, not proven to be the process memstand "
                            "started: " + check.why);
        break;
    }
  }
  std::vector<const NodeRecord*> stubborn = WaitGone(record, ours, kTermWaitMs);
  for (const NodeRecord* n : stubborn) SignalIfOurs(record, *n, SIGKILL);
  stubborn = WaitGone(record, stubborn, kKillWaitMs);
  for (const NodeRecord* n : ours) {
    bool left = std::find(stubborn.begin(), stubborn.end(), n) != stubborn.end();
    messages->push_back(Describe(*n) + (left ? ": still running after SIGKILL" : ": stopped"));
  }
  if (!stubborn.empty()) {
    return Status::Failed(std::to_string(stubborn.size()) + " process(es) of '" + record.name +
                          "' did not stop; " + record.dir + " kept");
  }
  if (unproven > 0) {
    return Status::Failed(std::to_string(unproven) + " process(es) of '" + record.name +
                          "' could not be proven memstand's and were not signalled; " +
                          record.dir + " kept");
  }
  std::error_code ec;
  fs::remove_all(record.dir, ec);
  if (ec) return Status::IoError("cannot remove " + record.dir + ": " + ec.message());
  return Status::OK();
}

}  // namespace memstand

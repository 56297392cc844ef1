// Where a scenario's client and servers run (--client-cpus, --server-cpus; docs/method.md:
// the instrument off the CPUs of the system it measures). One plan per process, set by
// `memstand scenario run` before the scenario starts: the scenario's thread is pinned to
// the client's CPUs (every load thread and relay thread it starts inherits them), and
// the kit starts every server on the servers' CPUs and notes what the kernel says each
// one may run on, for the report.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/cpu_set.h"
#include "util/status.h"

namespace memstand {

/// What a --client-cpus or --server-cpus flag says: `auto` (the default), `none` (not
/// pinned), or a CPU list.
struct CpuChoice {
  enum class Kind { kAuto, kNone, kList };
  Kind kind = Kind::kAuto;
  CpuList list;  // kList: the CPUs, each online here
};

/// "auto", "none" or a CPU list (core/cpu_set.h) whose CPUs are online here. An error
/// names `flag` (InvalidArgument: exit 2).
Result<CpuChoice> ParseCpuChoice(std::string_view text, std::string_view flag);

struct CpuPlan {
  CpuList client;   // the scenario's thread pinned here; empty: not pinned
  CpuList servers;  // every server process pinned here; empty: not pinned
  /// The CPUs memstand may run on when the plan was made: an unpinned server gets
  /// them (so that it does not inherit the client's CPUs from the thread that starts it).
  CpuList usable;
};

/// The plan for the two choices on a machine where memstand may use `usable` (its
/// affinity, ascending). With more than one usable CPU, `auto` puts the client on the
/// last usable CPU not given to the servers, and the servers on the usable CPUs not the
/// client's; with one, or when nothing is left for a side, `auto` pins that side nowhere.
/// A list is taken as given (the two may overlap: the user's choice); `none` pins nothing.
CpuPlan PlanCpus(const CpuChoice& client, const CpuChoice& servers, const CpuList& usable);

/// The process's plan: set once before the scenario runs; until then nothing is pinned.
void SetScenarioCpuPlan(const CpuPlan& plan);
const CpuPlan& ScenarioCpuPlan();
/// The CPUs a server the kit starts gets (SpawnOptions::cpus): the plan's servers, else
/// with a pinned client the usable CPUs, else none (inherit).
CpuList ScenarioServerCpus();

/// A server the scenario started and the CPUs it could run on, read back from
/// /proc/PID/status (Cpus_allowed_list) once it ran.
struct ServerCpus {
  std::string name;  // "redis-allkeys-lru", "primary (redis-server)"
  CpuList cpus;
};

/// Notes server `name` (pid `pid`, running): its CPUs read back now. A server started
/// again under the same name adds its CPUs to the name's. Thread-safe.
void NoteServerCpus(const std::string& name, pid_t pid);
/// The servers noted so far, in the order first noted.
std::vector<ServerCpus> NotedServerCpus();

/// What the report says of the CPUs: the client's read back from the scenario's thread
/// after the run, the servers' as noted.
struct CpuReport {
  CpuList client;
  bool client_pinned = false;
  bool servers_pinned = false;
  std::vector<ServerCpus> servers;
  /// "CPUs (read back from the kernel): client 1 (pinned); servers 0 (pinned): a, b".
  std::string Describe() const;
  /// {"client": [1], "client_pinned": true, "servers_pinned": true,
  ///  "servers": [{"name": "a", "cpus": [0]}, ...]}
  nlohmann::json ToJson() const;
};

/// The report of this process's plan and notes, the client's CPUs read back from the
/// calling thread (the scenario's).
CpuReport CollectCpuReport();

}  // namespace memstand

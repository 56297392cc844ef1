// The nemesis: a timed schedule of faults on a topology's nodes while a scenario's load
// runs (docs/faults.md, "A schedule of faults"). `kill primary at 5s; restart at 15s`
// parses into steps, checked against the topology's node names and the order a node can
// go through (running, paused, killed); RunFaults carries them out at their times and
// says, step by step, when each was due, began and ended and which process it hit.
// Whatever happens, no node is left paused.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "stand/topology.h"
#include "util/status.h"

namespace memstand {

enum class FaultAction : uint8_t { kKill, kPause, kResume, kRestart };
const char* FaultActionName(FaultAction a);  // "kill", "pause", "resume", "restart"

/// One step: `action node at at_s`, at_s seconds after the load's start.
struct FaultStep {
  FaultAction action = FaultAction::kKill;
  std::string node;
  double at_s = 0;
  bool operator==(const FaultStep&) const = default;
};

/// Parses a schedule:
///   schedule := step (";" step)*
///   step     := ACTION [NODE] "at" DURATION       (kill primary at 5s)
/// ACTION is kill, pause, resume or restart; NODE one of `nodes` (a step without one acts
/// on the previous step's node); DURATION as --duration takes it (500ms, 5s, 1m), at most
/// 24 h. Steps come in time order, and each must make sense where its node is by then:
/// kill or pause a running node, resume a paused one, restart a killed one (a paused node
/// may be killed). InvalidArgument naming the step and what is wrong.
Result<std::vector<FaultStep>> ParseFaultSchedule(std::string_view text, const std::vector<std::string>& nodes);

/// What one step did. Times are the wall clock (Unix ns).
struct FaultEvent {
  FaultStep step;
  int64_t due_unix_ns = 0;    // the load's start + at_s
  int64_t start_unix_ns = 0;  // when the action began (0: not carried out)
  int64_t end_unix_ns = 0;    // when it returned (a restart: once the node was ready again)
  int pid_before = 0;         // the node's process when the step began
  int pid_after = 0;          // and when it ended (a restart's new process)
  std::string error;          // "" when it took effect; else why not ("interrupted" too)
};

/// Carries out `steps` on `topology` at their times after `start_ns` (NowNs, the load's
/// start), on the calling thread: a restart must run on the thread that started the
/// topology (stand/process.h). An interrupt, or a step that fails, ends the schedule:
/// the steps not carried out are returned with their error. Before it returns, every node
/// a step paused is resumed, whatever happened (an event `resume`, at_s -1, records it).
/// `on_step` (may be empty) is called with each step's event once it was carried out (a
/// scenario's watcher of the failure detector starts with the fault).
std::vector<FaultEvent> RunFaults(Topology& topology, const std::vector<FaultStep>& steps, int64_t start_ns,
                                  const std::atomic<bool>* interrupt,
                                  const std::function<void(const FaultEvent&)>& on_step = {});

}  // namespace memstand

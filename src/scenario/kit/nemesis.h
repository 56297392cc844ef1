// The nemesis: a timed schedule of faults on a topology's nodes and on the links a
// scenario put relays on, while its load runs (docs/faults.md, "A schedule of faults").
// `kill primary at 5s; restart at 15s` or `blackhole peers at 3s; heal at 10s` parses
// into steps, checked against the node and link names and the order a node (running,
// paused, killed) or a link (forwarding, cut, blackholed) can go through; RunFaults
// carries them out at their times and says, step by step, when each was due, began and
// ended and which process it hit, and can put each into the run's history. Whatever
// happens, no node is left paused and no link left cut.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "load/history_events.h"
#include "stand/topology.h"
#include "util/status.h"

namespace memstand {

/// kKill .. kRestart act on a node; kCut, kBlackhole and kHeal on a link (relay/relay.h's
/// link modes: a peer that refuses, a peer that does not answer, forwarding again).
enum class FaultAction : uint8_t { kKill, kPause, kResume, kRestart, kCut, kBlackhole, kHeal };
/// "kill", "pause", "resume", "restart", "cut", "blackhole", "heal".
const char* FaultActionName(FaultAction a);
/// True for cut, blackhole and heal.
bool IsLinkAction(FaultAction a);

/// One step: `action node at at_s`, at_s seconds after the load's start; for a link
/// action `node` is the link's name.
struct FaultStep {
  FaultAction action = FaultAction::kKill;
  std::string node;
  double at_s = 0;
  bool operator==(const FaultStep&) const = default;
};

/// Parses a schedule:
///   schedule := step (";" step)*
///   step     := ACTION [NAME] "at" DURATION       (kill primary at 5s)
/// ACTION is kill, pause, resume or restart with NAME one of `nodes`, or cut, blackhole
/// or heal with NAME one of `links`; a step without NAME acts on the previous step's;
/// DURATION as --duration takes it (500ms, 5s, 1m), at most 24 h. Steps come in time
/// order (equal times keep their order), and each must make sense where its node or link
/// is by then: kill or pause a running node, resume a paused one, restart a killed one (a
/// paused node may be killed); cut or blackhole a forwarding link, heal a cut or
/// blackholed one. InvalidArgument naming the step and what is wrong.
Result<std::vector<FaultStep>> ParseFaultSchedule(std::string_view text, const std::vector<std::string>& nodes,
                                                  const std::vector<std::string>& links = {});

/// The links a schedule's link steps act on: their names, and what sets one's mode
/// (`apply(i, action)`: cut, blackhole or heal link names[i]; any thread).
struct FaultLinks {
  std::vector<std::string> names;
  std::function<Status(size_t, FaultAction)> apply;
};

/// What one step did. Times are the wall clock (Unix ns).
struct FaultEvent {
  FaultStep step;
  int64_t due_unix_ns = 0;    // the load's start + at_s
  int64_t start_unix_ns = 0;  // when the action began (0: not carried out)
  int64_t end_unix_ns = 0;    // when it returned (a restart: once the node was ready again)
  int pid_before = 0;         // the node's process when the step began (a link: 0)
  int pid_after = 0;          // and when it ended (a restart's new process)
  std::string error;          // "" when it took effect; else why not ("interrupted" too)
};

/// Carries out `steps` on `topology` at their times after `start_ns` (NowNs, the load's
/// start), on the calling thread: a restart must run on the thread that started the
/// topology (stand/process.h). An interrupt, or a step that fails, ends the schedule:
/// the steps not carried out are returned with their error. Before it returns, every node
/// a step paused is resumed and every link a step cut or blackholed is healed, whatever
/// happened (an event `resume` or `heal`, at_s -1, records each). `on_step` (may be
/// empty) is called with each step's event once it was carried out (a scenario's watcher
/// of the failure detector starts with the fault). `links` (may be null: no link step)
/// carries out the link steps. `history` (may be null: none) gets each step carried out
/// or tried, the final resumes and heals included, as it ends (its times on the
/// monotonic clock; the detail the process it hit, "pid 1234" or a restart's
/// "pid 1234 -> 1240", and for one that failed "not carried out: " and why): hand it to
/// the load (LoadOptions::history_events) and the run's history holds the faults. Steps
/// never begun (after an interrupt or a failed step) are not in it.
std::vector<FaultEvent> RunFaults(Topology& topology, const std::vector<FaultStep>& steps, int64_t start_ns,
                                  const std::atomic<bool>* interrupt,
                                  const std::function<void(const FaultEvent&)>& on_step = {},
                                  const FaultLinks* links = nullptr, HistoryEvents* history = nullptr);

}  // namespace memstand

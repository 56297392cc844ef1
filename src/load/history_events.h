// The nemesis's side of a run's history (docs/history.md, "The event"): a scenario that
// carries out faults while the engine runs its load puts each action in a
// HistoryEvents, handed to the engine in LoadOptions::history_events; the run's
// HistoryLog takes them out and writes them into the history beside the operations.
// Nothing here is on an operation's path: the load threads never look at it.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace memstand {

/// One nemesis action as its maker tells it. Times are on the monotonic clock
/// (core/clock.h NowNs), the clock the records are taken on, so an action and an
/// operation compare exactly however the wall clock steps.
struct NemesisEvent {
  int64_t start_mono_ns = 0;  // the action began
  int64_t end_mono_ns = 0;    // it returned
  std::string action{};  // "kill", "blackhole": a-z, 0-9 and '-', from a letter, at most 32 bytes
  std::string target{};  // the node or link ("primary", "peers"); cut to 256 bytes
  std::string detail{};  // "pid 1234", or why it was not carried out; cut to 1024 bytes
  bool operator==(const NemesisEvent&) const = default;
};

/// A queue of nemesis events, filled from any thread and drained by a run's HistoryLog
/// (its writer thread). Shared: the scenario makes it, the engine holds it for the run.
/// Events put in after the run's history was finished are not in the file.
class HistoryEvents {
 public:
  /// Any thread.
  void Add(NemesisEvent event);
  /// Every event added since the last Take, in the order they were added. Any thread.
  std::vector<NemesisEvent> Take();

 private:
  std::mutex mu_;
  std::vector<NemesisEvent> events_;
};

}  // namespace memstand

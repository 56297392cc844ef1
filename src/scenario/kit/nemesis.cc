#include "scenario/kit/nemesis.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "core/clock.h"
#include "scenario/kit/poll.h"
#include "util/parse.h"

namespace memstand {
namespace {

constexpr double kMaxAtS = 86400;
// How often a wait for a step's time looks at the interrupt.
constexpr int64_t kWaitSliceNs = 20'000'000;

enum class NodeState : uint8_t { kRunning, kPaused, kKilled };

const char* StateName(NodeState s) {
  switch (s) {
    case NodeState::kRunning: return "running";
    case NodeState::kPaused: return "paused";
    case NodeState::kKilled: return "killed";
  }
  return "?";
}

// The words of a step, split at blanks.
std::vector<std::string_view> Words(std::string_view text) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    const size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t') ++i;
    if (i > start) words.push_back(text.substr(start, i - start));
  }
  return words;
}

std::optional<FaultAction> ActionOf(std::string_view word) {
  for (FaultAction a : {FaultAction::kKill, FaultAction::kPause, FaultAction::kResume, FaultAction::kRestart}) {
    if (word == FaultActionName(a)) return a;
  }
  return std::nullopt;
}

// Where the action leaves a node in state `s`; nullopt when it cannot act there.
std::optional<NodeState> After(FaultAction a, NodeState s) {
  switch (a) {
    case FaultAction::kKill:
      return s == NodeState::kKilled ? std::nullopt : std::optional(NodeState::kKilled);
    case FaultAction::kPause:
      return s == NodeState::kRunning ? std::optional(NodeState::kPaused) : std::nullopt;
    case FaultAction::kResume:
      return s == NodeState::kPaused ? std::optional(NodeState::kRunning) : std::nullopt;
    case FaultAction::kRestart:
      return s == NodeState::kKilled ? std::optional(NodeState::kRunning) : std::nullopt;
  }
  return std::nullopt;
}

Status StepError(size_t index, std::string_view text, const std::string& what) {
  return Status::InvalidArgument(fmt::format("--fault: step {} '{}': {}", index + 1, text, what));
}

Status Act(Topology& t, size_t node, FaultAction a) {
  switch (a) {
    case FaultAction::kKill: return t.KillNode(node);
    case FaultAction::kPause: return t.PauseNode(node);
    case FaultAction::kResume: return t.ResumeNode(node);
    case FaultAction::kRestart: return t.RestartNode(node);
  }
  return Status::InvalidArgument("unknown fault action");
}

}  // namespace

const char* FaultActionName(FaultAction a) {
  switch (a) {
    case FaultAction::kKill: return "kill";
    case FaultAction::kPause: return "pause";
    case FaultAction::kResume: return "resume";
    case FaultAction::kRestart: return "restart";
  }
  return "?";
}

Result<std::vector<FaultStep>> ParseFaultSchedule(std::string_view text, const std::vector<std::string>& nodes) {
  std::vector<FaultStep> steps;
  std::map<std::string, NodeState> states;
  for (const std::string& n : nodes) states[n] = NodeState::kRunning;
  size_t from = 0;
  for (size_t index = 0; from <= text.size(); ++index) {
    const size_t end = std::min(text.find(';', from), text.size());
    const std::string_view step_text = text.substr(from, end - from);
    from = end + 1;
    const std::vector<std::string_view> w = Words(step_text);
    if (w.empty()) {
      if (end == text.size() && index > 0) break;  // a trailing ';'
      return StepError(index, step_text, "empty; a step is ACTION [NODE] at TIME, e.g. 'kill primary at 5s'");
    }
    FaultStep s;
    const auto action = ActionOf(w[0]);
    if (!action) {
      return StepError(index, step_text,
                       fmt::format("'{}' is not an action (kill, pause, resume, restart)", w[0]));
    }
    s.action = *action;
    size_t at = 1;
    if (w.size() == 4) {
      s.node = std::string(w[1]);
      at = 2;
    } else if (w.size() == 3 && w[1] == "at") {
      if (steps.empty()) return StepError(index, step_text, "the first step names its node: ACTION NODE at TIME");
      s.node = steps.back().node;
    } else {
      return StepError(index, step_text, "a step is ACTION [NODE] at TIME, e.g. 'kill primary at 5s'");
    }
    if (w[at] != "at") return StepError(index, step_text, fmt::format("'at' expected, not '{}'", w[at]));
    auto seconds = ParseDurationSeconds(w[at + 1]);
    if (!seconds.ok()) return StepError(index, step_text, seconds.status().message());
    if (*seconds > kMaxAtS) return StepError(index, step_text, "later than 24 h (a typo?)");
    s.at_s = *seconds;
    const auto state = states.find(s.node);
    if (state == states.end()) {
      std::string known;
      for (const std::string& n : nodes) known += (known.empty() ? "" : ", ") + n;
      return StepError(index, step_text, fmt::format("no node '{}' (the topology has {})", s.node, known));
    }
    if (!steps.empty() && s.at_s < steps.back().at_s) {
      return StepError(index, step_text, "before the step ahead of it: steps come in time order");
    }
    const auto next = After(s.action, state->second);
    if (!next) {
      return StepError(index, step_text,
                       fmt::format("{} cannot {} it: it is {} by then", s.node, FaultActionName(s.action),
                                   StateName(state->second)));
    }
    state->second = *next;
    steps.push_back(std::move(s));
  }
  if (steps.empty()) return Status::InvalidArgument("--fault: no step");
  return steps;
}

std::vector<FaultEvent> RunFaults(Topology& topology, const std::vector<FaultStep>& steps, int64_t start_ns,
                                  const std::atomic<bool>* interrupt,
                                  const std::function<void(const FaultEvent&)>& on_step) {
  // The wall clock at the load's start, for the events (NowNs is monotonic).
  const int64_t start_unix_ns = UnixNowNs() - (NowNs() - start_ns);
  std::vector<FaultEvent> events;
  std::map<size_t, bool> paused;  // node index: paused by a step and not resumed
  std::string stopped;            // why the schedule ended early
  for (const FaultStep& s : steps) {
    FaultEvent& e = events.emplace_back();
    e.step = s;
    const int64_t due_ns = start_ns + static_cast<int64_t>(s.at_s * 1e9);
    e.due_unix_ns = start_unix_ns + (due_ns - start_ns);
    if (!stopped.empty()) {
      e.error = stopped;
      continue;
    }
    const PollResult wait = PollUntil(due_ns, kWaitSliceNs, []() -> Result<bool> { return false; }, interrupt);
    if (wait.cancelled) {
      e.error = stopped = "interrupted";
      continue;
    }
    size_t node = topology.nodes().size();
    for (size_t i = 0; i < topology.nodes().size(); ++i) {
      if (topology.nodes()[i].name == s.node) node = i;
    }
    if (node == topology.nodes().size()) {
      e.error = stopped = "no node '" + s.node + "' in the topology";
      continue;
    }
    e.pid_before = topology.nodes()[node].process.pid;
    e.start_unix_ns = UnixNowNs();
    Status done = Act(topology, node, s.action);
    e.end_unix_ns = UnixNowNs();
    e.pid_after = topology.nodes()[node].process.pid;
    if (!done.ok()) {
      e.error = done.message();
      stopped = "not carried out: step '" + std::string(FaultActionName(s.action)) + " " + s.node + "' failed";
      continue;
    }
    if (s.action == FaultAction::kPause) paused[node] = true;
    if (s.action == FaultAction::kResume || s.action == FaultAction::kKill) paused.erase(node);
    if (on_step) on_step(e);
  }
  for (const auto& [node, unused] : paused) {  // nothing is left stopped
    FaultEvent& e = events.emplace_back();
    e.step = {FaultAction::kResume, topology.nodes()[node].name, -1};
    e.pid_before = topology.nodes()[node].process.pid;
    e.start_unix_ns = UnixNowNs();
    Status done = topology.ResumeNode(node);
    e.end_unix_ns = UnixNowNs();
    e.pid_after = e.pid_before;
    if (!done.ok()) e.error = done.message();
  }
  return events;
}

}  // namespace memstand

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

// Where a node or a link is, as the schedule goes.
enum class State : uint8_t { kRunning, kPaused, kKilled, kForwarding, kCut, kBlackholed };

const char* StateName(State s) {
  switch (s) {
    case State::kRunning: return "running";
    case State::kPaused: return "paused";
    case State::kKilled: return "killed";
    case State::kForwarding: return "forwarding";
    case State::kCut: return "cut";
    case State::kBlackholed: return "blackholed";
  }
  return "?";
}

constexpr FaultAction kActions[] = {FaultAction::kKill, FaultAction::kPause,     FaultAction::kResume,
                                    FaultAction::kRestart, FaultAction::kCut, FaultAction::kBlackhole,
                                    FaultAction::kHeal};

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
  for (FaultAction a : kActions) {
    if (word == FaultActionName(a)) return a;
  }
  return std::nullopt;
}

// Where the action leaves a node or link in state `s`; nullopt when it cannot act there.
// Each action's move as three states (also_from == from: one state it acts from), the
// optional built in one place: built in each case, g++ 12 took it for one read
// uninitialized in the sanitizer build (-Wmaybe-uninitialized).
std::optional<State> After(FaultAction a, State s) {
  struct Move {
    State from, also_from, to;
  };
  Move m{};
  switch (a) {
    case FaultAction::kKill: m = {State::kRunning, State::kPaused, State::kKilled}; break;
    case FaultAction::kPause: m = {State::kRunning, State::kRunning, State::kPaused}; break;
    case FaultAction::kResume: m = {State::kPaused, State::kPaused, State::kRunning}; break;
    case FaultAction::kRestart: m = {State::kKilled, State::kKilled, State::kRunning}; break;
    case FaultAction::kCut: m = {State::kForwarding, State::kForwarding, State::kCut}; break;
    case FaultAction::kBlackhole: m = {State::kForwarding, State::kForwarding, State::kBlackholed}; break;
    case FaultAction::kHeal: m = {State::kCut, State::kBlackholed, State::kForwarding}; break;
  }
  if (s != m.from && s != m.also_from) return std::nullopt;
  return m.to;
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
    case FaultAction::kCut:
    case FaultAction::kBlackhole:
    case FaultAction::kHeal: break;
  }
  return Status::InvalidArgument(fmt::format("'{}' does not act on a node", FaultActionName(a)));
}

// The clocks around one action: the wall clock of FaultEvent, and the monotonic one a
// history's records are taken on (load/history_events.h).
struct MonoTimes {
  int64_t start = 0;
  int64_t end = 0;
};

template <class Act>
Status Timed(FaultEvent& e, MonoTimes* mono, Act act) {
  mono->start = NowNs();
  e.start_unix_ns = UnixNowNs();
  Status done = act();
  e.end_unix_ns = UnixNowNs();
  mono->end = NowNs();
  return done;
}

// The process a node step hit: "pid 1234", a restart's "pid 1234 -> 1240"; "" for a link.
std::string PidText(const FaultEvent& e) {
  if (e.pid_before != 0 && e.pid_after != 0 && e.pid_after != e.pid_before) {
    return fmt::format("pid {} -> {}", e.pid_before, e.pid_after);
  }
  if (e.pid_before != 0) return fmt::format("pid {}", e.pid_before);
  if (e.pid_after != 0) return fmt::format("pid {}", e.pid_after);
  return "";
}

// A step that was carried out (or tried: then why it failed), into the history.
void Tell(HistoryEvents* history, const FaultEvent& e, const MonoTimes& mono) {
  if (history == nullptr) return;
  std::string detail = PidText(e);
  if (!e.error.empty()) detail += (detail.empty() ? "" : "; ") + ("not carried out: " + e.error);
  history->Add({.start_mono_ns = mono.start,
                .end_mono_ns = mono.end,
                .action = FaultActionName(e.step.action),
                .target = e.step.node,
                .detail = std::move(detail)});
}

}  // namespace

const char* FaultActionName(FaultAction a) {
  switch (a) {
    case FaultAction::kKill: return "kill";
    case FaultAction::kPause: return "pause";
    case FaultAction::kResume: return "resume";
    case FaultAction::kRestart: return "restart";
    case FaultAction::kCut: return "cut";
    case FaultAction::kBlackhole: return "blackhole";
    case FaultAction::kHeal: return "heal";
  }
  return "?";
}

bool IsLinkAction(FaultAction a) {
  return a == FaultAction::kCut || a == FaultAction::kBlackhole || a == FaultAction::kHeal;
}

Result<std::vector<FaultStep>> ParseFaultSchedule(std::string_view text, const std::vector<std::string>& nodes,
                                                  const std::vector<std::string>& links) {
  std::vector<FaultStep> steps;
  std::map<std::string, State> states;
  for (const std::string& n : nodes) states[n] = State::kRunning;
  for (const std::string& l : links) states[l] = State::kForwarding;
  const auto is_link = [&](const std::string& name) {
    return std::find(links.begin(), links.end(), name) != links.end();
  };
  size_t from = 0;
  for (size_t index = 0; from <= text.size(); ++index) {
    const size_t end = std::min(text.find(';', from), text.size());
    const std::string_view step_text = text.substr(from, end - from);
    from = end + 1;
    const std::vector<std::string_view> w = Words(step_text);
    if (w.empty()) {
      if (end == text.size() && index > 0) break;  // a trailing ';'
      return StepError(index, step_text, "empty; a step is ACTION [NAME] at TIME, e.g. 'kill primary at 5s'");
    }
    FaultStep s;
    const auto action = ActionOf(w[0]);
    if (!action) {
      return StepError(index, step_text,
                       fmt::format("'{}' is not an action (kill, pause, resume, restart; cut, blackhole, heal "
                                   "on a link)",
                                   w[0]));
    }
    s.action = *action;
    size_t at = 1;
    if (w.size() == 4) {
      s.node = std::string(w[1]);
      at = 2;
    } else if (w.size() == 3 && w[1] == "at") {
      if (steps.empty()) return StepError(index, step_text, "the first step names its node or link: ACTION NAME at TIME");
      s.node = steps.back().node;
    } else {
      return StepError(index, step_text, "a step is ACTION [NAME] at TIME, e.g. 'kill primary at 5s'");
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
      std::string known_links;
      for (const std::string& l : links) known_links += (known_links.empty() ? "" : ", ") + l;
      return StepError(index, step_text,
                       fmt::format("no node or link '{}' (the topology has {}{})", s.node, known,
                                   links.empty() ? "; no link has a relay" : "; links " + known_links));
    }
    if (IsLinkAction(s.action) != is_link(s.node)) {
      return StepError(index, step_text,
                       IsLinkAction(s.action)
                           ? fmt::format("'{}' is a node: cut, blackhole and heal act on a link", s.node)
                           : fmt::format("'{}' is a link: kill, pause, resume and restart act on a node", s.node));
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
                                  const std::function<void(const FaultEvent&)>& on_step, const FaultLinks* links,
                                  HistoryEvents* history) {
  // The wall clock at the load's start, for the events (NowNs is monotonic).
  const int64_t start_unix_ns = UnixNowNs() - (NowNs() - start_ns);
  std::vector<FaultEvent> events;
  std::map<size_t, bool> paused;  // node index: paused by a step and not resumed
  std::map<size_t, bool> broken;  // link index: cut or blackholed by a step and not healed
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
    if (IsLinkAction(s.action)) {
      size_t link = links == nullptr ? 0 : links->names.size();
      for (size_t i = 0; links != nullptr && i < links->names.size(); ++i) {
        if (links->names[i] == s.node) link = i;
      }
      if (links == nullptr || link == links->names.size()) {
        e.error = stopped = "no link '" + s.node + "' has a relay";
        continue;
      }
      MonoTimes mono;
      Status done = Timed(e, &mono, [&] { return links->apply(link, s.action); });
      if (!done.ok()) e.error = done.message();
      Tell(history, e, mono);
      if (!done.ok()) {
        stopped = "not carried out: step '" + std::string(FaultActionName(s.action)) + " " + s.node + "' failed";
        continue;
      }
      if (s.action == FaultAction::kHeal) {
        broken.erase(link);
      } else {
        broken[link] = true;
      }
      if (on_step) on_step(e);
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
    MonoTimes mono;
    Status done = Timed(e, &mono, [&] { return Act(topology, node, s.action); });
    e.pid_after = topology.nodes()[node].process.pid;
    if (!done.ok()) e.error = done.message();
    Tell(history, e, mono);
    if (!done.ok()) {
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
    MonoTimes mono;
    Status done = Timed(e, &mono, [&] { return topology.ResumeNode(node); });
    e.pid_after = e.pid_before;
    if (!done.ok()) e.error = done.message();
    Tell(history, e, mono);
  }
  for (const auto& [link, unused] : broken) {  // no link is left cut
    FaultEvent& e = events.emplace_back();
    e.step = {FaultAction::kHeal, links->names[link], -1};
    MonoTimes mono;
    Status done = Timed(e, &mono, [&] { return links->apply(link, FaultAction::kHeal); });
    if (!done.ok()) e.error = done.message();
    Tell(history, e, mono);
  }
  return events;
}

}  // namespace memstand

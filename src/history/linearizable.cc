#include "history/linearizable.h"

#include <algorithm>
#include <chrono>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "history/history_index.h"

namespace memstand::history {
namespace {

// The register: kUnset is a value this run did not write, not yet seen (absent or
// foreign: the first read says which).
enum class Reg : uint8_t { kUnset = 0, kAbsent = 1, kOurs = 2, kForeign = 3 };

struct RegState {
  Reg kind = Reg::kUnset;
  uint64_t value = 0;
  bool operator==(const RegState&) const = default;
};

std::string RegName(RegState s) {
  switch (s.kind) {
    case Reg::kUnset: return "its value from before the run";
    case Reg::kAbsent: return "nil";
    case Reg::kOurs: return ValueName(s.value);
    case Reg::kForeign: return "bytes this run did not write";
  }
  return "?";
}

// Whether a register in `s` shows what a read saw (or a cas expected); `after` is the
// state once looked at (kUnset turns into what was seen).
bool Shows(RegState s, Seen seen, uint64_t value, RegState* after) {
  *after = s;
  if (s.kind == Reg::kUnset) {
    if (seen != Seen::kAbsent && seen != Seen::kForeign) return false;
    *after = {seen == Seen::kAbsent ? Reg::kAbsent : Reg::kForeign, 0};
    return true;
  }
  switch (seen) {
    case Seen::kAbsent: return s.kind == Reg::kAbsent;
    case Seen::kOurs: return s.kind == Reg::kOurs && s.value == value;
    case Seen::kForeign: return s.kind == Reg::kForeign;
    case Seen::kNone: return false;
  }
  return false;
}

// The register's step: whether `r` can take effect in state `s`, and the state after.
bool Apply(RegState s, const Record& r, RegState* next) {
  switch (r.f) {
    case Op::kRead: return Shows(s, r.seen, r.value, next);
    case Op::kWrite: *next = {Reg::kOurs, r.written()}; return true;
    case Op::kCas: {
      RegState seen;
      if (!Shows(s, r.seen, r.value, &seen)) return false;
      *next = {Reg::kOurs, r.written()};
      return true;
    }
  }
  return false;
}

uint64_t Mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdULL;
}

// Lowe's memo: the (set of operations placed, register state) pairs already explored.
class LinMemo {
 public:
  explicit LinMemo(size_t words) : words_(words) {}
  /// True when the pair was new (and is now kept).
  bool Insert(const std::vector<uint64_t>& bits, RegState s) {
    uint64_t h = Mix(static_cast<uint64_t>(s.kind), s.value);
    for (uint64_t w : bits) h = Mix(h, w);
    const auto [lo, hi] = index_.equal_range(h);
    for (auto it = lo; it != hi; ++it) {
      const uint64_t* e = &store_[it->second * (words_ + 2)];
      if (e[words_] == static_cast<uint64_t>(s.kind) && e[words_ + 1] == s.value &&
          std::equal(bits.begin(), bits.end(), e)) {
        return false;
      }
    }
    index_.emplace(h, static_cast<uint32_t>(store_.size() / (words_ + 2)));
    store_.insert(store_.end(), bits.begin(), bits.end());
    store_.push_back(static_cast<uint64_t>(s.kind));
    store_.push_back(s.value);
    return true;
  }
  /// The bytes held: the entries and about 48 bytes of hash node each.
  uint64_t bytes() const { return store_.size() * 8 + index_.size() * 48; }

 private:
  size_t words_;
  std::vector<uint64_t> store_;  // each entry: words_ words of bits, the state's kind and value
  std::unordered_multimap<uint64_t, uint32_t> index_;
};

enum class KeyVerdict { kLinearizable, kNot, kGaveUpSteps, kGaveUpMemory, kGaveUpTime };

// Where a failed search got furthest: the operations placed, in order, and the one that
// could not be placed next.
struct Deepest {
  std::vector<uint32_t> placed;
  uint32_t stuck = 0;
  RegState state;
  bool found = false;
};

int64_t SteadyNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// One key's search over `ops` (ok operations, and unknown writes and cas).
class KeySearch {
 public:
  KeySearch(const std::vector<const Record*>& ops, RegState initial, const LinearizabilityLimits& limits,
            int64_t deadline_ns)
      : ops_(ops), state_(initial), limits_(limits), deadline_ns_(deadline_ns),
        placed_((ops.size() + 63) / 64, 0), memo_(placed_.size()) {
    BuildList();
  }

  KeyVerdict Run();
  const Deepest& deepest() const { return deepest_; }
  uint64_t steps() const { return steps_; }

 private:
  struct Frame {
    int32_t entry;
    RegState state;
  };

  void BuildList();
  void Unlink(int32_t e) {
    next_[prev_[e]] = next_[e];
    if (next_[e] >= 0) prev_[next_[e]] = prev_[e];
  }
  void Relink(int32_t e) {
    next_[prev_[e]] = e;
    if (next_[e] >= 0) prev_[next_[e]] = e;
  }
  void Lift(int32_t call) {
    Unlink(call);
    if (ret_of_[op_of_[call]] >= 0) Unlink(ret_of_[op_of_[call]]);
  }
  void Unlift(int32_t call) {
    if (ret_of_[op_of_[call]] >= 0) Relink(ret_of_[op_of_[call]]);
    Relink(call);
  }
  void SetPlaced(uint32_t op, bool on) {
    if (on) {
      placed_[op / 64] |= uint64_t{1} << (op % 64);
    } else {
      placed_[op / 64] &= ~(uint64_t{1} << (op % 64));
    }
  }
  bool IsOk(uint32_t op) const { return ops_[op]->outcome == Outcome::kOk; }
  void NoteStuck(int32_t ret);
  bool TryPlace(int32_t call);
  bool Backtrack(int32_t* entry);

  const std::vector<const Record*>& ops_;
  RegState state_;
  const LinearizabilityLimits& limits_;
  int64_t deadline_ns_;
  std::vector<uint64_t> placed_;
  LinMemo memo_;
  // The entries (a call per operation, a return per ok one) in time order as a doubly
  // linked list; index head_ is the list's head, -1 its end.
  std::vector<int32_t> next_, prev_;
  std::vector<uint32_t> op_of_;
  std::vector<bool> is_return_;
  std::vector<int32_t> ret_of_;  // an operation's return entry, -1 for an unknown one
  int32_t head_ = 0;
  std::vector<Frame> stack_;
  size_t ok_left_ = 0;
  uint64_t steps_ = 0;
  Deepest deepest_;
};

void KeySearch::BuildList() {
  struct Ev {
    int64_t time;
    bool ret;
    uint32_t op;
  };
  std::vector<Ev> evs;
  for (uint32_t i = 0; i < ops_.size(); ++i) {
    evs.push_back({ops_[i]->invoke_ns, false, i});
    if (IsOk(i)) {
      evs.push_back({ops_[i]->complete_ns, true, i});
      ++ok_left_;
    }
  }
  // At equal times a call comes first: the two operations overlap.
  std::sort(evs.begin(), evs.end(), [](const Ev& a, const Ev& b) {
    if (a.time != b.time) return a.time < b.time;
    if (a.ret != b.ret) return !a.ret;
    return a.op < b.op;
  });
  const auto n = static_cast<int32_t>(evs.size());
  head_ = n;
  next_.assign(n + 1, -1);
  prev_.assign(n + 1, -1);
  op_of_.resize(n);
  is_return_.resize(n);
  ret_of_.assign(ops_.size(), -1);
  for (int32_t e = 0; e < n; ++e) {
    op_of_[e] = evs[e].op;
    is_return_[e] = evs[e].ret;
    if (evs[e].ret) ret_of_[evs[e].op] = e;
    prev_[e] = e == 0 ? head_ : e - 1;
    next_[e] = e + 1 < n ? e + 1 : -1;
  }
  next_[head_] = n > 0 ? 0 : -1;
}

void KeySearch::NoteStuck(int32_t ret) {
  if (deepest_.found && stack_.size() <= deepest_.placed.size()) return;
  deepest_.found = true;
  deepest_.placed.clear();
  for (const Frame& f : stack_) deepest_.placed.push_back(op_of_[f.entry]);
  deepest_.stuck = op_of_[ret];
  deepest_.state = state_;
}

// Places the operation of `call` if the register allows it and the pair is new.
bool KeySearch::TryPlace(int32_t call) {
  const uint32_t op = op_of_[call];
  RegState next;
  if (!Apply(state_, *ops_[op], &next)) return false;
  SetPlaced(op, true);
  if (!memo_.Insert(placed_, next)) {
    SetPlaced(op, false);
    return false;
  }
  stack_.push_back({call, state_});
  state_ = next;
  Lift(call);
  if (IsOk(op)) --ok_left_;
  return true;
}

// Undoes the last placement; the search goes on after its call. False: nothing to undo.
bool KeySearch::Backtrack(int32_t* entry) {
  if (stack_.empty()) return false;
  const Frame top = stack_.back();
  stack_.pop_back();
  const uint32_t op = op_of_[top.entry];
  state_ = top.state;
  SetPlaced(op, false);
  Unlift(top.entry);
  if (IsOk(op)) ++ok_left_;
  *entry = next_[top.entry];
  return true;
}

KeyVerdict KeySearch::Run() {
  int32_t entry = next_[head_];
  while (ok_left_ > 0 && entry >= 0) {
    if (++steps_ > limits_.max_steps_per_key) return KeyVerdict::kGaveUpSteps;
    if ((steps_ & 1023) == 0) {
      if (memo_.bytes() > limits_.max_memory_per_key) return KeyVerdict::kGaveUpMemory;
      if (deadline_ns_ != 0 && SteadyNowNs() > deadline_ns_) return KeyVerdict::kGaveUpTime;
    }
    if (!is_return_[entry]) {
      entry = TryPlace(entry) ? next_[head_] : next_[entry];
      continue;
    }
    NoteStuck(entry);  // an ok operation's return: it had to be placed by now
    if (!Backtrack(&entry)) return KeyVerdict::kNot;
  }
  return KeyVerdict::kLinearizable;
}

// The pieces of the whole check: per key, the reads found wrong before any search, then
// the search.
class Checker {
 public:
  Checker(const History& h, const LinearizabilityLimits& limits, CheckResult* result)
      : h_(h), index_(h), limits_(limits), result_(result) {}
  void Run();
  std::string Summary() const;
  bool gave_up() const { return gave_up_ + not_reached_ > 0; }

 private:
  bool PreCheck(uint64_t key, const std::vector<const Record*>& ops);
  void Search(uint64_t key, const std::vector<const Record*>& ops);
  void NotLinearizable(uint64_t key, const std::vector<const Record*>& ops, const Deepest& d);

  const History& h_;
  HistoryIndex index_;
  const LinearizabilityLimits& limits_;
  CheckResult* result_;
  int64_t deadline_ns_ = 0;
  size_t keys_ = 0, linearizable_ = 0, not_ = 0, gave_up_ = 0, not_reached_ = 0;
};

// Reads (and cas) that no order could explain, found alone: a value never written, one
// written to another key, one whose write began after the read ended, one of a write
// that failed, bytes of another run on a key that was fresh. True when the key had none.
bool Checker::PreCheck(uint64_t key, const std::vector<const Record*>& ops) {
  bool clean = true;
  auto add = [&](const Record& r, const Record* w, const std::string& why) {
    clean = false;
    std::vector<Record> evidence;
    if (w != nullptr) evidence.push_back(*w);
    evidence.push_back(r);
    result_->Add({"impossible read", true, key, fmt::format("{}: {} {}", h_.KeyName(key), DescribeOp(r), why),
                  std::move(evidence)});
  };
  for (const Record* r : ops) {
    if (r->outcome != Outcome::kOk || r->f == Op::kWrite) continue;
    const char* saw = r->f == Op::kRead ? "read" : "expected (and found)";
    if (r->seen == Seen::kForeign && h_.header.keys_fresh) {
      add(*r, nullptr, fmt::format("{} bytes this run did not write, on a key that was fresh", saw));
    }
    if (r->seen != Seen::kOurs) continue;
    const Record* w = index_.WriteOf(r->value);
    if (w == nullptr) {
      add(*r, nullptr, fmt::format("{} {}, a value no operation wrote", saw, ValueName(r->value)));
    } else if (w->key != key) {
      add(*r, w, fmt::format("{} {}, a value written to {}", saw, ValueName(r->value), h_.KeyName(w->key)));
    } else if (w->outcome == Outcome::kFail) {
      add(*r, w, fmt::format("{} {}, the value of op {}, a write that failed", saw, ValueName(r->value), w->op_id));
    } else if (w->invoke_ns > r->complete_ns) {
      add(*r, w, fmt::format("{} {}, whose write (op {}) began after this ended", saw, ValueName(r->value), w->op_id));
    }
  }
  return clean;
}

void Checker::NotLinearizable(uint64_t key, const std::vector<const Record*>& ops, const Deepest& d) {
  const Record& stuck = *ops[d.stuck];
  std::vector<const Record*> shown;
  const size_t from = d.placed.size() > 3 ? d.placed.size() - 3 : 0;
  for (size_t i = from; i < d.placed.size(); ++i) shown.push_back(ops[d.placed[i]]);
  shown.push_back(&stuck);
  for (const Record* o : ops) {  // what ran concurrently with the stuck operation
    const int64_t end = o->outcome == Outcome::kOk ? o->complete_ns : INT64_MAX;
    if (shown.size() >= 10) break;
    if (o->invoke_ns <= stuck.complete_ns && end >= stuck.invoke_ns &&
        std::find(shown.begin(), shown.end(), o) == shown.end()) {
      shown.push_back(o);
    }
  }
  std::sort(shown.begin(), shown.end(), [](const Record* a, const Record* b) {
    return a->invoke_ns != b->invoke_ns ? a->invoke_ns < b->invoke_ns : a->op_id < b->op_id;
  });
  std::vector<Record> evidence;
  for (const Record* o : shown) evidence.push_back(*o);
  const std::string last = d.placed.empty() ? "none" : DescribeOp(*ops[d.placed.back()]);
  result_->Add({"not linearizable", true, key,
                fmt::format("{}: {} cannot take effect: the longest order found that agrees with the times places {} "
                            "of {} operations (the last: {}), and the register then holds {}",
                            h_.KeyName(key), DescribeOp(stuck), d.placed.size(), ops.size(), last, RegName(d.state)),
                std::move(evidence)});
}

void Checker::Search(uint64_t key, const std::vector<const Record*>& all) {
  std::vector<const Record*> ops;  // what may have taken effect
  for (const Record* r : all) {
    if (r->outcome == Outcome::kOk || (r->outcome == Outcome::kUnknown && r->writes())) ops.push_back(r);
  }
  const RegState initial = h_.header.keys_fresh ? RegState{Reg::kAbsent, 0} : RegState{};
  KeySearch search(ops, initial, limits_, deadline_ns_);
  const KeyVerdict v = search.Run();
  const char* bound = nullptr;
  switch (v) {
    case KeyVerdict::kLinearizable: ++linearizable_; return;
    case KeyVerdict::kNot: ++not_; NotLinearizable(key, ops, search.deepest()); return;
    case KeyVerdict::kGaveUpSteps: bound = "its step bound"; break;
    case KeyVerdict::kGaveUpMemory: bound = "its memory bound"; break;
    case KeyVerdict::kGaveUpTime: bound = "the time limit"; break;
  }
  ++gave_up_;
  result_->Add({"gave up", false, key,
                fmt::format("{}: gave up after {} steps over {} operations: {} ran out", h_.KeyName(key),
                            search.steps(), ops.size(), bound),
                {}});
}

void Checker::Run() {
  if (limits_.time_limit_ns > 0) deadline_ns_ = SteadyNowNs() + limits_.time_limit_ns;
  for (const auto& [key, ops] : index_.by_key()) {
    ++keys_;
    if (deadline_ns_ != 0 && SteadyNowNs() > deadline_ns_) {
      ++not_reached_;
      continue;
    }
    if (!PreCheck(key, ops)) {
      ++not_;
      continue;
    }
    Search(key, ops);
  }
}

std::string Checker::Summary() const {
  std::string s = fmt::format("{} key(s): {} linearizable, {} not, {} given up on", keys_, linearizable_, not_,
                              gave_up_);
  if (not_reached_ > 0) s += fmt::format(", {} not reached before the time limit", not_reached_);
  return s;
}

}  // namespace

CheckResult CheckLinearizable(const History& h, const LinearizabilityLimits& limits) {
  CheckResult result;
  result.check = "linearizable";
  Checker checker(h, limits, &result);
  checker.Run();
  result.summary = checker.Summary();
  result.verdict = result.violations > 0 ? Verdict::kViolated
                   : checker.gave_up()   ? Verdict::kGaveUp
                                         : Verdict::kPass;
  return result;
}

}  // namespace memstand::history

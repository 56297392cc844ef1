#include "history/lost_writes.h"

#include <set>

#include <fmt/format.h>

#include "history/history_index.h"

namespace memstand::history {
namespace {

constexpr size_t kMaxLostOps = 10;  // lost writes a finding shows (it counts them all)

struct KeyJudge {
  const History& h;
  const HistoryIndex& index;
  CheckResult* result;
  uint64_t lost = 0, unexpected = 0, recovered = 0, held = 0;

  void Unexpected(uint64_t key, std::string text, std::vector<Record> ops) {
    ++unexpected;
    result->Add({"unexpected", true, key, std::move(text), std::move(ops)});
  }

  // The acknowledged writes on the key that certainly came after `source` (null: the
  // initial value, before all of them): lost.
  void Lost(uint64_t key, const std::vector<const Record*>& ops, const Record* source, const std::string& holds) {
    std::vector<Record> evidence;
    if (source != nullptr) evidence.push_back(*source);
    uint64_t n = 0;
    std::string first;
    for (const Record* w : ops) {
      if (!w->writes() || w->outcome != Outcome::kOk) continue;
      if (source != nullptr && !CertainlyBefore(*source, *w)) continue;
      if (n++ < kMaxLostOps) evidence.push_back(*w);
      if (first.empty()) first = DescribeOp(*w);
    }
    if (n == 0) return;
    lost += n;
    const std::string after =
        source == nullptr ? "" : fmt::format(", which began after {} completed", DescribeOp(*source));
    result->Add({"lost", true, key,
                 fmt::format("{}: {} acknowledged write(s){} are gone: the key holds {}; first: {}", h.KeyName(key),
                             n, after, holds, first),
                 std::move(evidence)});
  }

  void Ours(uint64_t key, const std::vector<const Record*>& ops, uint64_t value) {
    const Record* w = index.WriteOf(value);
    if (w == nullptr || w->key != key) {
      const std::string where = w == nullptr ? "no write of this run put it anywhere"
                                             : fmt::format("{} put it on {}", DescribeOp(*w), h.KeyName(w->key));
      Unexpected(key, fmt::format("{} holds {}: {}", h.KeyName(key), ValueName(value), where),
                 w == nullptr ? std::vector<Record>{} : std::vector<Record>{*w});
      Lost(key, ops, nullptr, ValueName(value));
      return;
    }
    if (w->outcome == Outcome::kFail) {
      Unexpected(key, fmt::format("{} holds {}, the value of {}, a write that failed", h.KeyName(key),
                                  ValueName(value), DescribeOp(*w)),
                 {*w});
      return;
    }
    if (w->outcome == Outcome::kUnknown) {
      ++recovered;
      result->Add({"recovered", false, key,
                   fmt::format("{} holds {}, the value of {}: it took effect", h.KeyName(key), ValueName(value),
                               DescribeOp(*w)),
                   {*w}});
      return;
    }
    ++held;
    Lost(key, ops, w, ValueName(value) + " (" + fmt::format("op {}", w->op_id) + ")");
  }

  void Judge(uint64_t key, const std::vector<const Record*>& ops, const FinalValue& final) {
    bool acknowledged = false;
    for (const Record* r : ops) acknowledged |= r->writes() && r->outcome == Outcome::kOk;
    switch (final.seen) {
      case Seen::kOurs:
        Ours(key, ops, final.value);
        return;
      case Seen::kForeign:
        if (acknowledged || h.header.keys_fresh) {
          Unexpected(key, fmt::format("{} holds bytes this run did not write: '{}'", h.KeyName(key), final.preview),
                     {});
        }
        Lost(key, ops, nullptr, "bytes this run did not write");
        return;
      case Seen::kAbsent:
      case Seen::kNone:
        Lost(key, ops, nullptr, "nothing (absent)");
        return;
    }
  }
};

}  // namespace

std::vector<uint64_t> WrittenKeys(const History& h) {
  std::set<uint64_t> keys;
  for (const Record& r : h.records) {
    if (r.writes()) keys.insert(r.key);
  }
  return {keys.begin(), keys.end()};
}

CheckResult LostWritesNotRun(const std::string& why) {
  CheckResult result;
  result.check = "lost-writes";
  result.verdict = Verdict::kCouldNotRun;
  result.summary = why;
  return result;
}

CheckResult CheckLostWrites(const History& h, const std::map<uint64_t, FinalValue>& finals) {
  const std::vector<uint64_t> keys = WrittenKeys(h);
  for (uint64_t key : keys) {
    if (finals.find(key) == finals.end()) {
      return LostWritesNotRun(fmt::format("{} was written but not read after the run", h.KeyName(key)));
    }
  }
  CheckResult result;
  result.check = "lost-writes";
  const HistoryIndex index(h);
  KeyJudge judge{h, index, &result};
  for (uint64_t key : keys) judge.Judge(key, index.by_key().at(key), finals.at(key));
  result.verdict = result.violations > 0 ? Verdict::kViolated : Verdict::kPass;
  result.summary = fmt::format(
      "{} written key(s) read after the run: {} hold an acknowledged write's value; {} lost write(s), {} "
      "unexpected value(s), {} recovered (unknown writes that took effect)",
      keys.size(), judge.held, judge.lost, judge.unexpected, judge.recovered);
  return result;
}

}  // namespace memstand::history

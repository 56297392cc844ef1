#include "history/sessions.h"

#include <map>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "history/history_index.h"

namespace memstand::history {
namespace {

// Where the value a read saw comes from: the initial value (null write) or a write.
struct ReadSource {
  const Record* write = nullptr;
};

// The source of an ok read's value; nullopt when it cannot be placed (a value no write
// of this key explains).
std::optional<ReadSource> SourceOf(const HistoryIndex& index, const Record& r) {
  if (r.seen == Seen::kAbsent || r.seen == Seen::kForeign) return ReadSource{};
  const Record* w = index.WriteOf(r.value);
  if (w == nullptr || w->key != r.key) return std::nullopt;
  return ReadSource{w};
}

// `a` certainly took effect before `b`: the initial value is before every write.
bool SourceBefore(ReadSource a, ReadSource b) {
  if (b.write == nullptr) return false;
  if (a.write == nullptr) return true;
  return CertainlyBefore(*a.write, *b.write);
}

std::string SourceName(ReadSource s) {
  return s.write == nullptr ? "the value from before the run" : DescribeOp(*s.write);
}

struct SeenRead {
  const Record* read;
  ReadSource source;
};

// One client's reads of one key: the sources seen so far that nothing seen since
// certainly follows (an antichain: concurrent writes may be seen in either order).
void MonotonicKey(const History& h, const HistoryIndex& index, const std::vector<const Record*>& reads,
                  CheckResult* result) {
  std::vector<SeenRead> newest;
  for (const Record* r : reads) {
    const auto s = SourceOf(index, *r);
    if (!s) continue;
    const SeenRead* newer = nullptr;
    for (const SeenRead& p : newest) {
      if (SourceBefore(*s, p.source)) newer = &p;
    }
    if (newer != nullptr) {
      std::vector<Record> ops = {*newer->read, *r};
      if (newer->source.write != nullptr) ops.push_back(*newer->source.write);
      if (s->write != nullptr) ops.push_back(*s->write);
      result->Add({"non-monotonic read", true, r->key,
                   fmt::format("{}: client {} read {} after it had read {}: the value it saw second came from {}, "
                               "which completed before {} began",
                               h.KeyName(r->key), r->client, DescribeOp(*r), DescribeOp(*newer->read),
                               SourceName(*s), SourceName(newer->source)),
                   std::move(ops)});
      continue;
    }
    std::erase_if(newest, [&](const SeenRead& p) { return SourceBefore(p.source, *s); });
    newest.push_back({r, *s});
  }
}

// One client's operations on one key, in order: each read after its own ok write.
void ReadYourWritesKey(const History& h, const HistoryIndex& index, const std::vector<const Record*>& ops,
                       CheckResult* result) {
  const Record* own = nullptr;  // the client's last acknowledged write of the key
  for (const Record* r : ops) {
    if (r->writes() && r->outcome == Outcome::kOk) {
      own = r;
      continue;
    }
    if (own == nullptr || r->f != Op::kRead || r->outcome != Outcome::kOk) continue;
    const auto s = SourceOf(index, *r);
    if (!s || !SourceBefore(*s, ReadSource{own})) continue;
    std::vector<Record> evidence = {*own, *r};
    if (s->write != nullptr && s->write != own) evidence.push_back(*s->write);
    result->Add({"read-your-writes", true, r->key,
                 fmt::format("{}: client {} wrote {} and then {}: what it read came from {}, before its own write",
                             h.KeyName(r->key), r->client, DescribeOp(*own), DescribeOp(*r), SourceName(*s)),
                 std::move(evidence)});
  }
}

// Runs `per_key` over every client's operations grouped by key (in the client's order),
// `reads_only` keeping just its ok reads.
template <typename PerKey>
CheckResult PerClient(const History& h, const char* name, bool reads_only, PerKey per_key) {
  CheckResult result;
  result.check = name;
  const HistoryIndex index(h);
  uint64_t judged = 0;
  for (const auto& [client, ops] : index.by_client()) {
    std::map<uint64_t, std::vector<const Record*>> by_key;
    for (const Record* r : ops) {
      const bool ok_read = r->f == Op::kRead && r->outcome == Outcome::kOk;
      judged += ok_read ? 1 : 0;
      if (!reads_only || ok_read) by_key[r->key].push_back(r);
    }
    for (const auto& [key, key_ops] : by_key) per_key(h, index, key_ops, &result);
  }
  result.verdict = result.violations > 0 ? Verdict::kViolated : Verdict::kPass;
  result.summary = fmt::format("{} ok read(s) of {} client(s): {} violation(s)", judged, index.by_client().size(),
                               result.violations);
  return result;
}

}  // namespace

CheckResult CheckMonotonicReads(const History& h) {
  return PerClient(h, "monotonic-reads", true, MonotonicKey);
}

CheckResult CheckReadYourWrites(const History& h) {
  return PerClient(h, "read-your-writes", false, ReadYourWritesKey);
}

}  // namespace memstand::history

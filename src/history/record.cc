#include "history/record.h"

#include <fmt/format.h>

#include "history/history_format.h"

namespace memstand::history {
namespace {

Status RecordError(const Record& r, std::string_view what) {
  return Status::InvalidArgument(fmt::format("record op {}: {}", r.op_id, what));
}

// What a read saw, or a cas expected, against its outcome.
Status CheckSeen(const Record& r) {
  if (r.seen > Seen::kForeign) return RecordError(r, fmt::format("seen {} is not 0..3", static_cast<int>(r.seen)));
  if (r.seen != Seen::kOurs && r.value != 0) {
    return RecordError(r, "a value is given but seen does not say ours (2)");
  }
  switch (r.f) {
    case Op::kRead:
      if (r.outcome == Outcome::kOk && r.seen == Seen::kNone) {
        return RecordError(r, "a read that ended ok says nothing of what it saw (seen 0)");
      }
      if (r.outcome != Outcome::kOk && r.seen != Seen::kNone) {
        return RecordError(r, "a read that did not end ok says what it saw");
      }
      return Status::OK();
    case Op::kWrite:
      if (r.seen != Seen::kNone) return RecordError(r, "a write says what it saw (seen must be 0)");
      return Status::OK();
    case Op::kCas:
      if (r.seen != Seen::kAbsent && r.seen != Seen::kOurs) {
        return RecordError(r, "a cas expects neither the key absent (1) nor a value of ours (2)");
      }
      return Status::OK();
  }
  return Status::OK();
}

Status CheckTimes(const Record& r, const RunHeader& header) {
  if (r.invoke_ns < 0) return RecordError(r, fmt::format("invoke time {} ns is negative", r.invoke_ns));
  if (r.complete_ns < r.invoke_ns) {
    return RecordError(r, fmt::format("completes at {} ns, before its invoke at {} ns", r.complete_ns,
                                      r.invoke_ns));
  }
  if (!header.open_loop && r.intended_ns != kNoIntendedTime) {
    return RecordError(r, "an intended time in a closed-loop run (the run header says closed loop)");
  }
  if (header.open_loop && (r.intended_ns < 0 || r.intended_ns > r.invoke_ns)) {
    return RecordError(r, fmt::format("open loop: intended time {} ns is not within 0..invoke ({} ns)",
                                      r.intended_ns, r.invoke_ns));
  }
  return Status::OK();
}

}  // namespace

const char* OpName(Op f) {
  switch (f) {
    case Op::kRead: return "read";
    case Op::kWrite: return "write";
    case Op::kCas: return "cas";
  }
  return "?";
}

const char* OutcomeName(Outcome o) {
  switch (o) {
    case Outcome::kOk: return "ok";
    case Outcome::kFail: return "fail";
    case Outcome::kUnknown: return "unknown";
  }
  return "?";
}

const char* TargetKindName(TargetKind k) {
  switch (k) {
    case TargetKind::kResp: return "redis";
    case TargetKind::kMemcache: return "memcache";
    case TargetKind::kIproto: return "tarantool";
    case TargetKind::kEtcd: return "etcd";
  }
  return "?";
}

std::string ValueName(uint64_t value_id) {
  return fmt::format("{}:{}", ValueClient(value_id), ValueSeq(value_id));
}

Status CheckRunHeader(const RunHeader& h) {
  const bool tarantool = h.target_kind == TargetKind::kIproto;
  if (!tarantool && (h.key_numbers || h.value_field != 0 || h.space != 0)) {
    return Status::InvalidArgument("keys as numbers, a value field or a space outside a tarantool history");
  }
  if (tarantool && h.value_field == 0) {
    return Status::InvalidArgument("a tarantool history's value field is 0 (field 0 is the key)");
  }
  if (h.key_numbers && !h.key_prefix.empty()) {
    return Status::InvalidArgument("keys are numbers, yet there is a key prefix");
  }
  return Status::OK();
}

Status CheckRecord(const Record& r, const RunHeader& header, size_t strings) {
  if (r.reserved != 0) return RecordError(r, fmt::format("reserved byte {} is not 0", r.reserved));
  if (r.f < Op::kRead || r.f > Op::kCas) {
    return RecordError(r, fmt::format("f {} is not read (1), write (2) or cas (3)", static_cast<int>(r.f)));
  }
  if (r.outcome < Outcome::kOk || r.outcome > Outcome::kUnknown) {
    return RecordError(r, fmt::format("outcome {} is not ok (1), fail (2) or unknown (3)",
                                      static_cast<int>(r.outcome)));
  }
  if (Status s = CheckTimes(r, header); !s.ok()) return s;
  if (Status s = CheckSeen(r); !s.ok()) return s;
  if (r.node >= strings || r.error >= strings) {
    return RecordError(r, fmt::format("string id {} is not in the table (ids 1..{} defined so far)",
                                      r.node >= strings ? r.node : r.error, strings - 1));
  }
  if (r.outcome == Outcome::kOk && r.error != 0) return RecordError(r, "ended ok, yet has an error kind");
  if (r.outcome != Outcome::kOk && r.error == 0) {
    return RecordError(r, fmt::format("ended {} without an error kind", OutcomeName(r.outcome)));
  }
  if (r.revision < 0) return RecordError(r, fmt::format("revision {} is negative", r.revision));
  if (r.revision != 0 && header.target_kind != TargetKind::kEtcd) {
    return RecordError(r, "a revision in a history that is not etcd's");
  }
  return Status::OK();
}

namespace {

Status EventError(const Event& e, std::string_view what) {
  return Status::InvalidArgument(fmt::format("event '{}' at {} ns: {}", e.action.substr(0, format::kMaxEventAction),
                                             e.start_ns, what));
}

bool IsActionWord(std::string_view a) {
  if (a.empty() || a[0] < 'a' || a[0] > 'z') return false;
  for (char c : a) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  }
  return true;
}

}  // namespace

Status CheckEvent(const Event& e) {
  if (e.action.size() > format::kMaxEventAction) {
    return EventError(e, fmt::format("the action is {} bytes, above {}", e.action.size(), format::kMaxEventAction));
  }
  if (!IsActionWord(e.action)) {
    return EventError(e, "the action is not a word of a-z, 0-9 and '-' that begins with a letter");
  }
  if (e.start_ns < 0) return EventError(e, "its start is negative (before the run's time 0)");
  if (e.end_ns < e.start_ns) return EventError(e, fmt::format("it ends at {} ns, before it began", e.end_ns));
  if (e.target.size() > format::kMaxEventTarget) {
    return EventError(e, fmt::format("the target is {} bytes, above {}", e.target.size(), format::kMaxEventTarget));
  }
  if (e.detail.size() > format::kMaxEventDetail) {
    return EventError(e, fmt::format("the detail is {} bytes, above {}", e.detail.size(), format::kMaxEventDetail));
  }
  return Status::OK();
}

}  // namespace memstand::history

// --history: the record of each operation (load/history_log.h, docs/history.md). The
// worker calls these only when the history is on; each operation is recorded once,
// where it ends: its reply (HistoryReply), its connection lost or its send impossible
// (HistoryNoReply), or the run's end with it still in flight.
#include <algorithm>
#include <bit>
#include <cstring>

#include "history/value_tag.h"
#include "load/worker_conn.h"

namespace memstand {

using history::Outcome;
using history::Seen;
using history::format::TailV2;

std::string_view WorkerBase::HistoryStamp(uint32_t process, std::string_view value) {
  const HistoryProcess& p = history_procs_[process];
  if (stamp_.size() < value.size()) stamp_.resize(value.size());  // sized for the largest value at the start
  std::memcpy(stamp_.data(), value.data(), value.size());
  std::memcpy(stamp_.data(), p.tag, sizeof p.tag);
  return {stamp_.data(), value.size()};
}

void WorkerBase::HistoryUnsent(Client& cl, uint16_t node, uint32_t cmd, uint64_t key, bool measured, int64_t now,
                               int64_t intended, std::string_view why) {
  if (history_unsent_ == kNoProcess) history_unsent_ = HistoryNewProcesses(1);
  const InFlight unsent{intended, now, key, nullptr, 0, static_cast<uint16_t>(cmd), measured, 0, history_unsent_};
  HistoryNoReply(node, unsent, false, why, now);
  Unsent(cl, cmd, measured, now);
}

uint32_t WorkerBase::HistoryNewProcesses(size_t n) {
  const auto first = static_cast<uint32_t>(history_procs_.size());
  for (size_t i = 0; i < n; ++i) history_procs_.push_back(HistoryFreshProcess());
  return first;
}

uint32_t WorkerBase::HistoryMoveProcess(uint32_t process) {
  const auto moved = static_cast<uint32_t>(history_procs_.size());
  const HistoryProcess state = history_procs_[process];
  history_procs_.push_back(state);
  history_procs_[process] = HistoryFreshProcess();
  return moved;
}

WorkerBase::HistoryProcess WorkerBase::HistoryFreshProcess() {
  const uint32_t client = history_->NewClient();
  HistoryProcess p;
  history::StampValueTag(history::TagIds(client, 1),
                         history::TagClientCheck(history::TagSalt(history_run_tag_), client), p.tag);
  return p;
}

void WorkerBase::HistoryRecordAny(const InFlight& f, uint64_t tail, bool unknown, uint64_t value, int64_t now,
                                  int64_t revision) {
  HistoryProcess& p = history_procs_[f.process];
  const uint64_t ids = history::TagIdsOf(p.tag);
  if (unknown) {  // the process may still be doing it: a new one follows
    p = HistoryFreshProcess();
  } else {
    history::NextSeqTag(p.tag);
  }
  namespace fmt2 = history::format;
  const uint8_t extras = fmt2::ExtrasV2(value, revision, open_loop_);
  char* const record = history_batch_.AddWithExtras(static_cast<size_t>(std::popcount(extras)));
  fmt2::StoreBaseV2(record, ids, f.sent_ns, now, f.key, tail | uint64_t{extras} << 56);
  char* extra = record + fmt2::kRecordBaseV2;
  if (value != 0) {
    std::memcpy(extra, &value, 8);
    extra += 8;
  }
  if (revision != 0) {
    std::memcpy(extra, &revision, 8);
    extra += 8;
  }
  if (open_loop_) {
    // When it was due, never before time 0 nor after it was sent (the reader's rule).
    const int64_t intended = std::min(std::max(f.intended_ns, history_t0_), f.sent_ns);
    std::memcpy(extra, &intended, 8);
  }
  if (history_batch_.full()) [[unlikely]] HistoryHand();
}

// An error reply: fail, or unknown where the error does not say (EndsUnknown).
void WorkerBase::HistoryErrorReply(const ConnIo& c, const InFlight& f, const ReplyView& r, int64_t now) {
  const bool unknown = EndsUnknown(f.cmd, r);
  const uint16_t error = HistoryError(r.error_kind.empty() ? "error" : r.error_kind);
  const Outcome outcome = unknown ? Outcome::kUnknown : Outcome::kFail;
  HistoryRecordAny(f, TailV2(c.history_node, error, history_op_[f.cmd], outcome, Seen::kNone), unknown, 0, now);
}

// What a read that ended ok saw: the key absent, a value of this run (*value), or other
// bytes.
Seen WorkerBase::HistorySaw(const ReplyView& r, std::string_view value_read, uint64_t* value) const {
  if (!r.positive) return Seen::kAbsent;
  const auto id = history::ReadValueTag(history_run_tag_, value_read);
  if (!id) return Seen::kForeign;
  *value = *id;
  return Seen::kOurs;
}

void WorkerBase::HistoryReplyOther(const ConnIo& c, const InFlight& f, const ReplyView& r,
                                   std::string_view value_read, int64_t now) {
  if (r.is_error) return HistoryErrorReply(c, f, r, now);
  const history::Op op = history_op_[f.cmd];
  uint64_t value = 0;
  const Seen seen = op == history::Op::kRead ? HistorySaw(r, value_read, &value) : Seen::kNone;
  HistoryRecordAny(f, TailV2(c.history_node, 0, op, Outcome::kOk, seen), false, value, now, r.revision);
}

void WorkerBase::HistoryNoReply(uint16_t node, const InFlight& f, bool unknown, std::string_view why,
                                int64_t now) {
  const Outcome outcome = unknown ? Outcome::kUnknown : Outcome::kFail;
  HistoryRecordAny(f, TailV2(node, HistoryError(why), history_op_[f.cmd], outcome, Seen::kNone), unknown, 0, now);
}

// Not ok: the error kind's string id, interned once per kind by this thread.
uint16_t WorkerBase::HistoryError(std::string_view error) {
  auto [it, fresh] = history_errors_.try_emplace(std::string(error), 0);
  if (fresh) it->second = history_->Intern(error);
  return it->second;
}

void WorkerBase::HistoryHand() { history_batch_ = history_->Hand(std::move(history_batch_)); }

void WorkerBase::HistoryHandLast() {
  if (!history_batch_.empty()) HistoryHand();
}

}  // namespace memstand

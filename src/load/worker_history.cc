// --history: the record of each operation (load/history_log.h, docs/history.md). The
// worker calls these only when the history is on; each operation is recorded once,
// where it ends: its reply (HistoryReply), its connection lost or its send impossible
// (HistoryNoReply), or the run's end with it still in flight.
#include <algorithm>
#include <cstring>

#include "history/value_tag.h"
#include "load/worker_conn.h"

namespace memstand {

using history::Outcome;
using history::Seen;

uint32_t WorkerBase::HistoryInvoke(Client& cl) {
  HistoryClient& h = history_clients_[cl.index];
  if (h.idle.empty()) {
    h.procs.push_back({history_->NewClient(), 1, 0});
    return static_cast<uint32_t>(h.procs.size() - 1);
  }
  const uint32_t p = h.idle.back();
  h.idle.pop_back();
  return p;
}

std::string_view WorkerBase::HistoryStamp(const Client& cl, uint32_t process, std::string_view value) {
  const HistoryProcess& p = history_clients_[cl.index].procs[process];
  if (stamp_.size() < value.size()) stamp_.resize(value.size());  // sized for the largest value at the start
  std::memcpy(stamp_.data(), value.data(), value.size());
  history::StampValueTag(history_->run_tag(), p.id, p.seq, stamp_.data(), value.size());
  return {stamp_.data(), value.size()};
}

void WorkerBase::HistoryReply(const ConnIo& c, const InFlight& f, const ReplyView& r, std::string_view value_read,
                              int64_t now) {
  if (r.is_error) {
    const Outcome o = EndsUnknown(f.cmd, r) ? Outcome::kUnknown : Outcome::kFail;
    return HistoryRecord(*c.client, c.history_node, f, o, r.error_kind.empty() ? "error" : r.error_kind,
                         Seen::kNone, 0, now);
  }
  Seen seen = Seen::kNone;
  uint64_t value = 0;
  if (shared_->history_ops[f.cmd] == history::Op::kRead) {
    if (!r.positive) {
      seen = Seen::kAbsent;
    } else if (auto id = history::ReadValueTag(history_->run_tag(), value_read)) {
      seen = Seen::kOurs;
      value = *id;
    } else {
      seen = Seen::kForeign;
    }
  }
  HistoryRecord(*c.client, c.history_node, f, Outcome::kOk, {}, seen, value, now, r.revision);
}

void WorkerBase::HistoryNoReply(const Client& cl, uint16_t node, const InFlight& f, bool unknown,
                                std::string_view why, int64_t now) {
  HistoryRecord(cl, node, f, unknown ? Outcome::kUnknown : Outcome::kFail, why, Seen::kNone, 0, now);
}

void WorkerBase::HistoryRecord(const Client& cl, uint16_t node, const InFlight& f, Outcome outcome,
                               std::string_view error, Seen seen, uint64_t value, int64_t now,
                               int64_t revision) {
  HistoryClient& hc = history_clients_[cl.index];
  HistoryProcess& p = hc.procs[f.process];
  const int64_t t0 = history_->start_ns();
  history::Record& r = history_batch_.emplace_back();
  r.op_id = history_ops_++ * static_cast<uint64_t>(opt_.threads) + static_cast<uint64_t>(thread_index_);
  r.client = p.id;
  r.seq = p.seq;
  // A request is stamped with the loop's time, which may precede the reply just handled
  // in the same wake-up (its own time taken later): its process's previous operation
  // had ended by then, so it was sent after that end.
  const int64_t invoke = std::max(f.sent_ns, p.last_complete_ns);
  const int64_t complete = std::max(now, invoke);
  r.invoke_ns = invoke - t0;
  r.complete_ns = complete - t0;
  if (open_loop_) r.intended_ns = std::clamp<int64_t>(f.intended_ns - t0, 0, r.invoke_ns);
  r.key = f.key;
  r.f = shared_->history_ops[f.cmd];
  r.outcome = outcome;
  r.seen = seen;
  r.value = value;
  r.revision = revision;
  r.node = node;
  if (outcome != Outcome::kOk) {
    auto [it, fresh] = history_errors_.try_emplace(std::string(error), 0);
    if (fresh) it->second = history_->Intern(error);
    r.error = it->second;
  }
  if (outcome == Outcome::kUnknown) {  // the process may still be doing it: a new one follows
    p = HistoryProcess{history_->NewClient(), 1, 0};
  } else {
    ++p.seq;
    p.last_complete_ns = complete;
  }
  hc.idle.push_back(f.process);
  if (history_batch_.size() >= HistoryLog::kBatch) history_batch_ = history_->Hand(std::move(history_batch_));
}

void WorkerBase::HistoryHandLast() {
  if (!history_batch_.empty()) history_batch_ = history_->Hand(std::move(history_batch_));
}

}  // namespace memstand

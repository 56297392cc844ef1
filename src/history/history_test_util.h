// Test helper (header only, for the *_test.cc of this folder): a history built a record
// at a time, each client counting its own seq and each record taking the next op id.
#pragma once

#include <cstdint>
#include <map>

#include "history/record.h"

namespace memstand::history {

class HistoryBuilder {
 public:
  /// Strings: id 1 "127.0.0.1:6379" (a node), id 2 "timeout", id 3 "READONLY".
  explicit HistoryBuilder(TargetKind kind = TargetKind::kResp, bool keys_fresh = true) {
    h.header.target_kind = kind;
    h.header.keys_fresh = keys_fresh;
    h.header.key_prefix = "key:";
    h.header.target = "redis://127.0.0.1:6379";
    h.header.writer = "memstand test";
    h.strings = {"", "127.0.0.1:6379", "timeout", "READONLY"};
  }

  Record Write(uint32_t client, uint64_t key, int64_t invoke, int64_t complete, Outcome o = Outcome::kOk) {
    return Add(Base(Op::kWrite, client, key, invoke, complete, o));
  }
  Record Read(uint32_t client, uint64_t key, int64_t invoke, int64_t complete, Seen seen, uint64_t value = 0,
              Outcome o = Outcome::kOk) {
    Record r = Base(Op::kRead, client, key, invoke, complete, o);
    if (o == Outcome::kOk) {
      r.seen = seen;
      r.value = seen == Seen::kOurs ? value : 0;
    }
    return Add(r);
  }
  /// A read that saw `w`'s value.
  Record ReadOf(uint32_t client, const Record& w, int64_t invoke, int64_t complete) {
    return Read(client, w.key, invoke, complete, Seen::kOurs, w.written());
  }
  Record Cas(uint32_t client, uint64_t key, int64_t invoke, int64_t complete, Seen expected, uint64_t value,
             Outcome o = Outcome::kOk) {
    Record r = Base(Op::kCas, client, key, invoke, complete, o);
    r.seen = expected;
    r.value = expected == Seen::kOurs ? value : 0;
    return Add(r);
  }

  History h;

 private:
  Record Base(Op f, uint32_t client, uint64_t key, int64_t invoke, int64_t complete, Outcome o) {
    Record r;
    r.op_id = next_op_++;
    r.client = client;
    r.seq = ++seq_[client];
    r.invoke_ns = invoke;
    r.complete_ns = complete;
    r.key = key;
    r.node = 1;
    r.f = f;
    r.outcome = o;
    r.error = o == Outcome::kOk ? 0 : o == Outcome::kUnknown ? 2 : 3;
    return r;
  }
  Record Add(const Record& r) {
    h.records.push_back(r);
    return r;
  }

  uint64_t next_op_ = 1;
  std::map<uint32_t, uint32_t> seq_;
};

}  // namespace memstand::history

#include "history/revisions.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

namespace memstand::history {
namespace {

// Operations that began after one completed with a higher revision.
void WentBack(const std::vector<const Record*>& ops, CheckResult* result) {
  std::vector<const Record*> by_complete = ops;
  std::sort(by_complete.begin(), by_complete.end(), [](const Record* a, const Record* b) {
    return a->complete_ns != b->complete_ns ? a->complete_ns < b->complete_ns : a->op_id < b->op_id;
  });
  std::vector<const Record*> by_invoke = ops;
  std::sort(by_invoke.begin(), by_invoke.end(), [](const Record* a, const Record* b) {
    return a->invoke_ns != b->invoke_ns ? a->invoke_ns < b->invoke_ns : a->op_id < b->op_id;
  });
  const Record* highest = nullptr;  // the highest revision among those completed so far
  size_t done = 0;
  for (const Record* r : by_invoke) {
    while (done < by_complete.size() && by_complete[done]->complete_ns < r->invoke_ns) {
      const Record* c = by_complete[done++];
      if (highest == nullptr || c->revision > highest->revision) highest = c;
    }
    if (highest == nullptr || r->revision >= highest->revision) continue;
    result->Add({"revision went back", true, r->key,
                 fmt::format("{} saw revision {}, below the revision {} of {}, which completed before it began",
                             DescribeOp(*r), r->revision, highest->revision, DescribeOp(*highest)),
                 {*highest, *r}});
  }
}

// Acknowledged writes that share a revision.
void SharedRevisions(const std::vector<const Record*>& ops, CheckResult* result) {
  std::vector<const Record*> writes;
  for (const Record* r : ops) {
    if (r->writes()) writes.push_back(r);
  }
  std::sort(writes.begin(), writes.end(), [](const Record* a, const Record* b) {
    return a->revision != b->revision ? a->revision < b->revision : a->op_id < b->op_id;
  });
  for (size_t i = 1; i < writes.size(); ++i) {
    if (writes[i]->revision != writes[i - 1]->revision) continue;
    result->Add({"revision shared", true, writes[i]->key,
                 fmt::format("{} and {} were both acknowledged at revision {}", DescribeOp(*writes[i - 1]),
                             DescribeOp(*writes[i]), writes[i]->revision),
                 {*writes[i - 1], *writes[i]}});
  }
}

}  // namespace

CheckResult CheckRevisions(const History& h) {
  CheckResult result;
  result.check = "revisions";
  if (h.header.target_kind != TargetKind::kEtcd) {
    result.verdict = Verdict::kNotApplicable;
    result.summary = fmt::format("a {} history: revisions are etcd's", TargetKindName(h.header.target_kind));
    return result;
  }
  std::vector<const Record*> ops;
  for (const Record& r : h.records) {
    if (r.outcome == Outcome::kOk && r.revision > 0) ops.push_back(&r);
  }
  if (ops.empty()) {
    result.verdict = Verdict::kCouldNotRun;
    result.summary = "no ok operation carries a revision";
    return result;
  }
  WentBack(ops, &result);
  SharedRevisions(ops, &result);
  result.verdict = result.violations > 0 ? Verdict::kViolated : Verdict::kPass;
  result.summary = fmt::format("{} ok operation(s) with a revision: {} violation(s)", ops.size(), result.violations);
  return result;
}

}  // namespace memstand::history

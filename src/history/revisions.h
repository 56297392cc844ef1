// etcd's revisions never going back: every reply carries the store's revision, which
// only grows. So an operation that began after another completed must not see a lower
// revision (a client's own operations are one case of this), and two acknowledged
// writes never share one (each put makes a revision of its own).
#pragma once

#include "history/check_result.h"
#include "history/record.h"

namespace memstand::history {

/// kNotApplicable for a history that is not etcd's; kCouldNotRun when no ok operation
/// carries a revision.
CheckResult CheckRevisions(const History& h);

}  // namespace memstand::history

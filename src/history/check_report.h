// The checks' results as `memstand check` prints them (text, with the evidence: keys,
// operations, times) and writes them (--json, schema memstand.check, docs/history.md).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "history/check_result.h"
#include "history/record.h"

namespace memstand::history {

/// The verdict of several checks: violated if one is, else could not run if one could
/// not, else gave up if one did, else pass (not applicable ones count as passing).
Verdict OverallVerdict(const std::vector<CheckResult>& results);

/// One line per operation of the evidence: DescribeOp, its key, node and error kind.
std::string EvidenceLine(const History& h, const Record& r);

/// The report: a line per check (its verdict and summary), then each finding kept with
/// its operations, then the overall verdict. Text from the file (key prefix, strings) is
/// as it is: the caller makes it safe for a terminal.
std::string CheckReportText(const History& h, const std::vector<CheckResult>& results);

/// The --json document.
nlohmann::ordered_json CheckReportJson(const History& h, const std::vector<CheckResult>& results);

}  // namespace memstand::history

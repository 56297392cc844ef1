// Parsers for the text of Redis INFO replies. No I/O.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace memstand {

/// INFO text ("# Section" lines, then "key:value" lines, CRLF or LF ended) as a map
/// key -> value. Section lines, blank lines and lines without ':' are skipped; the
/// value is everything after the first ':'. A repeated key keeps its last value.
std::map<std::string, std::string> ParseInfo(std::string_view text);

/// One command's line of INFO commandstats.
struct CommandStat {
  int64_t calls = 0;
  int64_t rejected_calls = 0;  // 0 when the server does not report it (Redis < 6.2)
  int64_t failed_calls = 0;    // likewise
  double usec = 0;
};

/// The "cmdstat_<name>:calls=N,usec=N,usec_per_call=X,rejected_calls=N,failed_calls=N"
/// lines of INFO commandstats, keyed by lower-case <name> ("set", "client|setname").
/// Other lines are ignored; a line without a valid calls and usec, or with a bad
/// number in a known field, is skipped. Unknown fields are ignored.
std::map<std::string, CommandStat> ParseCommandStats(std::string_view text);

}  // namespace memstand

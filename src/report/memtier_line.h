// What a memtier_benchmark command line says that memstand's LoadOptions do not keep,
// for the "configuration" object of memtier's JSON layout (report/memtier_json.h).
#pragma once

#include <cstdint>
#include <string>

namespace memstand {

/// `memstand memtier` fills it from the line (cli/memtier_flags.h), each field as memtier
/// writes it for that line; `memstand run --json-format memtier` has no memtier line.
struct MemtierLine {
  bool uri_given = false;             // -u: "uri" is the target's URL (never its password); else ""
  bool resp2 = false;                 // -P resp2: "protocol" is "resp2", not memtier's default "redis"
  uint64_t connection_timeout_s = 0;  // --connection-timeout; memtier's 0 when not given
  std::string out_file;               // -o; "out_file" is null when empty
  std::string data_size_list;         // --data-size-list (SIZE:WEIGHT); memtier's "data_size" is then 0
  std::string expiry_range = "0:0";   // --expiry-range as memtier prints it (MIN:MAX)
  bool print_all_runs = false;        // --print-all-runs
};

}  // namespace memstand

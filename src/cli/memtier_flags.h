// `memstand memtier`'s flag mapping: memtier_benchmark's command line, with memtier's
// meanings, onto the flags of `memstand run` that do the same (a pure function: nothing
// connects). Each memtier flag memstand does not implement is refused by name with the
// reason (MemtierFlags() is the table docs/memtier.md shows).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "report/memtier_line.h"
#include "util/status.h"

namespace memstand::cli {

/// One of memtier_benchmark's flags (its --help and getopt table, 2.x).
struct MemtierFlag {
  const char* long_name;  // without "--"
  char short_name;        // 0: none
  bool takes_value;
  const char* refused;    // null: implemented; else why memstand refuses it
};

/// Every memtier_benchmark flag, implemented or refused.
const std::vector<MemtierFlag>& MemtierFlags();

/// What the memtier command line asks for.
struct MemtierPlan {
  std::vector<std::string> run_args;  // `memstand run` flags doing the same
  std::vector<std::string> print_percentiles = {"50", "99", "99.9"};  // memtier's default
  bool hide_histogram = false;
  bool show_config = false;
  bool print_all_runs = false;
  bool cluster_mode = false;
  bool arbitrary_commands = false;  // --command given: a row per command, no Hits/Misses
  bool help = false;
  bool version = false;
  int run_count = 1;
  std::string json_out_file;
  std::string out_file;  // -o/--out-file: the report there instead of stdout
  std::string hdr_file_prefix;
  MemtierLine json_line;  // what --json-out-file's "configuration" takes from the line
  /// (memstand run flag, memtier flag without "--") for each memtier value passed on, so
  /// that run's checks name the flag the user gave (MemtierTerms).
  std::vector<std::pair<std::string, std::string>> run_flag_of;
};

/// A message of `memstand run`'s flag checks in memtier's terms: one that starts with a
/// run flag the plan mapped from a memtier flag ("--db: ...") names that memtier flag
/// ("memtier flag --select-db (memstand run --db): ..."); others as they are.
std::string MemtierTerms(const MemtierPlan& plan, const std::string& message);

/// Maps memtier's arguments (after `memstand memtier`). `randomize_seed` is the seed
/// --randomize uses (the caller draws it, so this stays pure). InvalidArgument naming
/// the memtier flag for a refused, unknown or malformed one.
Result<MemtierPlan> MapMemtierArgs(const std::vector<std::string>& args, uint64_t randomize_seed);

}  // namespace memstand::cli

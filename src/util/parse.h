// Parsers for user-supplied quantities. Each fault is an InvalidArgument that quotes the
// text and says what is accepted.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/status.h"

namespace memstand {

/// "30s", "500ms", "2m", "1h", "250us", units combined largest first ("1m30s",
/// "1h2m", "1s500ms"), or a plain number of seconds ("1.5"). >= 0.
Result<double> ParseDurationSeconds(std::string_view text);

/// "100", "4k"/"4K"/"4KB"/"4KiB" (x1024), "1M"/"1MB"/"1MiB" (x1024^2), "1G"/"1GB"/"1GiB"
/// (x1024^3). > 0, at most 1 TiB.
Result<uint64_t> ParseByteSize(std::string_view text);

/// "100-200": two byte sizes, min <= max.
Result<std::pair<uint64_t, uint64_t>> ParseByteRange(std::string_view text);

/// "50,90,99.9": numbers in (0, 100], ascending order after sorting, duplicates dropped.
Result<std::vector<double>> ParsePercentiles(std::string_view text);

/// "1,2,4,8": positive whole numbers (at most 2^40) separated by commas, each above the
/// one before it. At least one.
Result<std::vector<uint64_t>> ParseIncreasingList(std::string_view text);

/// "a,b,c": words separated by commas, none empty, none twice; an error names `flag`.
Result<std::vector<std::string>> ParseWordList(std::string_view text, std::string_view flag);

/// ParseWordList where every word is one of `known` (an error lists them).
Result<std::vector<std::string>> ParseWordList(std::string_view text, std::string_view flag,
                                               std::initializer_list<const char*> known);

}  // namespace memstand

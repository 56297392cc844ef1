// A figure's range over a scenario's runs (docs/method.md rule 8: every range carries its
// N), in one text form and one JSON form, for every scenario's writer and its readers.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/repeat.h"

namespace memstand {

/// The keys of a range's JSON object, {"min": .., "median": .., "max": .., "n": ..}.
namespace range_json {
inline constexpr char kMin[] = "min";
inline constexpr char kMedian[] = "median";
inline constexpr char kMax[] = "max";
inline constexpr char kN[] = "n";  // the values the range is over (runs)
}  // namespace range_json

/// "MIN MEDIAN MAX[ UNIT] (min median max, N=n)", each value as `value` writes it; "-"
/// for a range over nothing (n == 0).
std::string RangeText(const Range& r, const std::function<std::string(double)>& value, std::string_view unit = "");
/// The same, each value formatted by `value_format` (fmt), e.g. "{:.3g}".
std::string RangeText(const Range& r, const char* value_format, std::string_view unit = "");

/// The range of `values` (over the runs) as RangeText writes it, but one value as
/// "VALUE[ UNIT] (N=1)" (its min, median and max are that value); "-" for none.
std::string RangeTextOf(std::vector<double> values, const char* value_format, std::string_view unit = "");

/// {"min": .., "median": .., "max": .., "n": ..}.
nlohmann::json RangeJson(const Range& r);

/// The median of a range RangeJson wrote, at j[key]; nullopt when absent or not a number.
std::optional<double> RangeMedianAt(const nlohmann::json& j, std::string_view key);

}  // namespace memstand

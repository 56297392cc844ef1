#include "scenario/kit/ranges.h"

#include <fmt/format.h>

#include <utility>

#include "report/json_fields.h"

namespace memstand {

std::string RangeText(const Range& r, const std::function<std::string(double)>& value, std::string_view unit) {
  if (r.n == 0) return "-";
  return fmt::format("{} {} {}{}{} (min median max, N={})", value(r.min), value(r.median), value(r.max),
                     unit.empty() ? "" : " ", unit, r.n);
}

std::string RangeText(const Range& r, const char* value_format, std::string_view unit) {
  return RangeText(r, [value_format](double v) { return fmt::format(fmt::runtime(value_format), v); }, unit);
}

std::string RangeTextOf(std::vector<double> values, const char* value_format, std::string_view unit) {
  if (values.empty()) return "-";
  if (values.size() == 1) {
    return fmt::format("{}{}{} (N=1)", fmt::format(fmt::runtime(value_format), values[0]), unit.empty() ? "" : " ",
                       unit);
  }
  return RangeText(RangeOf(std::move(values)), value_format, unit);
}

nlohmann::json RangeJson(const Range& r) {
  namespace key = range_json;
  return {{key::kMin, r.min}, {key::kMedian, r.median}, {key::kMax, r.max}, {key::kN, r.n}};
}

std::optional<double> RangeMedianAt(const nlohmann::json& j, std::string_view key) {
  return Number(Field(j, key), range_json::kMedian);
}

}  // namespace memstand

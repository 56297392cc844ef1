#include "report/json_fields.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

namespace memstand {

const nlohmann::json& Field(const nlohmann::json& j, std::string_view key) {
  static const nlohmann::json kNull;
  if (!j.is_object()) return kNull;
  auto it = j.find(key);
  return it == j.end() ? kNull : *it;
}

std::optional<double> Number(const nlohmann::json& j, std::string_view key) {
  const nlohmann::json& v = Field(j, key);
  if (!v.is_number()) return std::nullopt;
  return v.get<double>();
}

std::string Text(const nlohmann::json& j, std::string_view key) {
  const nlohmann::json& v = Field(j, key);
  if (v.is_string()) return v.get<std::string>();
  return v.is_null() ? "" : v.dump();
}

const nlohmann::json& Array(const nlohmann::json& j, std::string_view key) {
  static const nlohmann::json kEmpty = nlohmann::json::array();
  const nlohmann::json& v = Field(j, key);
  return v.is_array() ? v : kEmpty;
}

std::string Cell(std::optional<double> v) {
  if (!v) return "";
  if (std::isfinite(*v) && *v == std::floor(*v) && std::fabs(*v) < 1e15)
    return fmt::format("{}", int64_t(*v));
  return fmt::format("{:.6g}", *v);
}

std::vector<std::vector<std::optional<double>>> JoinOnX(
    const std::vector<std::vector<std::pair<double, std::optional<double>>>>& series) {
  std::map<double, std::vector<std::optional<double>>> rows;
  for (size_t s = 0; s < series.size(); ++s) {
    for (const auto& [x, y] : series[s]) {
      auto& row = rows[x];
      row.resize(series.size());
      row[s] = y;
    }
  }
  std::vector<std::vector<std::optional<double>>> data(series.size() + 1);
  for (auto& [x, row] : rows) {
    row.resize(series.size());
    data[0].push_back(x);
    for (size_t s = 0; s < row.size(); ++s) data[s + 1].push_back(row[s]);
  }
  return data;
}

}  // namespace memstand

// Reading fields of a JSON document memstand wrote, without trusting it: a field that is
// missing or of another type reads as absent, never as an exception or a crash (the
// report takes any file it is given).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace memstand {

/// j[key] when j is an object holding it, else a null value.
const nlohmann::json& Field(const nlohmann::json& j, std::string_view key);
/// The number at j[key]; nullopt when absent or not a number.
std::optional<double> Number(const nlohmann::json& j, std::string_view key);
/// The string at j[key]; "" when absent; other scalars as their JSON text.
std::string Text(const nlohmann::json& j, std::string_view key);
/// j[key] as an array (empty when absent or not an array).
const nlohmann::json& Array(const nlohmann::json& j, std::string_view key);
/// A number for a table cell: integers as such, others with up to 6 significant digits;
/// "" for nullopt.
std::string Cell(std::optional<double> v);

/// Aligns series of (x, y) points on the union of their x values (uPlot's data layout):
/// the result's [0] is the sorted x, [i] series i-1's y at each x or nullopt.
std::vector<std::vector<std::optional<double>>> JoinOnX(
    const std::vector<std::vector<std::pair<double, std::optional<double>>>>& series);

}  // namespace memstand

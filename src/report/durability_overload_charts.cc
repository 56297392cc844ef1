// durability-overload (docs/scenarios.md): each cell's throughput per durability mode,
// and how many of its runs had errors (the matrix coloured by errors, as two series).
#include <map>
#include <utility>

#include <fmt/format.h>

#include "report/json_fields.h"
#include "report/scenario_charts.h"

namespace memstand {

using nlohmann::json;

void DurabilityOverloadCharts(const ReportInput& in, ReportSection* s) {
  const json& matrix = Array(in.doc, "matrix");
  std::vector<std::string> cells, modes;
  std::map<std::pair<std::string, std::string>, const json*> by;  // (cell, mode)
  for (const json& m : matrix) {
    const std::string cell = fmt::format("{} {} B {}", Text(m, "op"), Text(m, "size"), Text(m, "payload"));
    const std::string mode = Text(m, "mode");
    if (std::find(cells.begin(), cells.end(), cell) == cells.end()) cells.push_back(cell);
    if (std::find(modes.begin(), modes.end(), mode) == modes.end()) modes.push_back(mode);
    by[{cell, mode}] = &m;
  }
  if (cells.empty()) {
    s->blocks.push_back({"Charts", {"no chart: the JSON has no matrix"}});
    return;
  }
  Chart ops, errors;
  ops.title = "durability-overload: throughput per cell and durability mode";
  ops.style = "points";
  ops.x = Axis("cell", "");
  ops.x.ticks = cells;
  ops.y = Axis("median throughput over the runs", "ops/s");
  errors.title = "durability-overload: runs with errors per cell";
  errors.style = "points";
  errors.x = ops.x;
  errors.y = Axis("runs with errors", "runs");
  errors.y.integer = true;
  ops.data.resize(modes.size() + 1);
  errors.data.resize(modes.size() + 1);
  for (size_t i = 0; i < cells.size(); ++i) {
    ops.data[0].push_back(static_cast<double>(i));
    errors.data[0].push_back(static_cast<double>(i));
  }
  for (size_t k = 0; k < modes.size(); ++k) {
    ops.series.push_back(modes[k]);
    errors.series.push_back(modes[k]);
    for (const std::string& cell : cells) {
      auto it = by.find({cell, modes[k]});
      const json* m = it == by.end() ? nullptr : it->second;
      ops.data[k + 1].push_back(m != nullptr ? Number(Field(*m, "ops_per_sec"), "median") : std::nullopt);
      errors.data[k + 1].push_back(m != nullptr ? Number(*m, "runs_with_errors") : std::nullopt);
    }
  }
  ops.caption = "Each cell's median throughput over its runs (JSON matrix[].ops_per_sec.median; its runs with "
                "errors included, METHOD rule 16), per durability mode: the price of durability is the distance "
                "between the modes at one cell.";
  errors.caption = "How many of each cell's runs had any error (JSON matrix[].runs_with_errors): a cell above 0 "
                   "is reported as failed, never by its best run.";
  s->charts.push_back(std::move(ops));
  s->charts.push_back(std::move(errors));
}

}  // namespace memstand

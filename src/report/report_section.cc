#include "report/report_section.h"

#include <fmt/format.h>

#include "util/csv.h"

namespace memstand {
namespace {

using Json = nlohmann::ordered_json;

Json AxisJson(const ChartAxis& a) {
  Json j{{"label", a.label}, {"unit", a.unit}, {"log", a.log}};
  if (a.integer) j["integer"] = true;
  if (!a.ticks.empty()) j["ticks"] = a.ticks;
  return j;
}

Json LinesJson(const std::vector<ChartLine>& lines) {
  Json a = Json::array();
  for (const ChartLine& l : lines) a.push_back({{"at", l.at}, {"label", l.label}});
  return a;
}

std::string AxisName(const ChartAxis& a) {
  return a.unit.empty() ? a.label : a.label + " (" + a.unit + ")";
}

}  // namespace

Json ChartJson(const Chart& c, const ReportSection& section) {
  Json data = Json::array();
  for (const auto& column : c.data) {
    Json values = Json::array();
    for (const auto& v : column) values.push_back(v ? Json(*v) : Json(nullptr));
    data.push_back(std::move(values));
  }
  Json bands = Json::array();
  for (const ChartBand& b : c.bands)
    bands.push_back({{"from", b.from}, {"to", b.to}, {"label", b.label}});
  return {{"title", c.title},
          {"caption", c.caption},
          {"source", section.source},
          {"platform", section.platform},
          {"style", c.style},
          {"x", AxisJson(c.x)},
          {"y", AxisJson(c.y)},
          {"series", c.series},
          {"data", data},
          {"bands", bands},
          {"x_lines", LinesJson(c.x_lines)},
          {"y_lines", LinesJson(c.y_lines)}};
}

std::string ChartCsv(const Chart& c) {
  std::string out;
  std::vector<std::string> header{AxisName(c.x)};
  for (const std::string& s : c.series)
    header.push_back(s + (c.y.unit.empty() ? "" : " (" + c.y.unit + ")"));
  AppendCsvRow(header, &out);
  const size_t rows = c.data.empty() ? 0 : c.data[0].size();
  for (size_t r = 0; r < rows; ++r) {
    std::vector<std::string> fields;
    for (size_t s = 0; s < c.data.size(); ++s) {
      const auto& v = r < c.data[s].size() ? c.data[s][r] : std::nullopt;
      std::string f = v ? fmt::format("{}", *v) : "";
      if (s == 0 && v && !c.x.ticks.empty() && *v >= 0 && *v < c.x.ticks.size())
        f = c.x.ticks[size_t(*v)];
      fields.push_back(std::move(f));
    }
    AppendCsvRow(fields, &out);
  }
  return out;
}

std::string TableCsv(const ReportTable& t) {
  std::string out;
  AppendCsvRow(t.columns, &out);
  for (const auto& r : t.rows) AppendCsvRow(r, &out);
  return out;
}

}  // namespace memstand

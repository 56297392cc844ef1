#include "report_util.h"

#include <gtest/gtest.h>

namespace memstand::testutil {

ReportInput ReportInputOf(const std::string& text, const std::string& path) {
  ReportInput in;
  in.path = in.json_path = path;
  in.doc = nlohmann::json::parse(text);
  auto kind = DetectKind(in.doc);
  EXPECT_TRUE(kind.ok()) << kind.status().message();
  if (kind.ok()) in.kind = *kind;
  return in;
}

const Chart* ChartTitled(const ReportSection& s, const std::string& title) {
  for (const Chart& c : s.charts) {
    if (c.title == title) return &c;
  }
  ADD_FAILURE() << "no chart titled " << title;
  return nullptr;
}

nlohmann::ordered_json ChartData(const ReportSection& s, const std::string& title) {
  const Chart* c = ChartTitled(s, title);
  if (c == nullptr) return nullptr;
  nlohmann::ordered_json j = ChartJson(*c, s);
  return {{"x", j["x"]},
          {"y", j["y"]},
          {"series", j["series"]},
          {"data", j["data"]},
          {"bands", j["bands"]},
          {"x_lines", j["x_lines"]},
          {"y_lines", j["y_lines"]}};
}

nlohmann::ordered_json Golden(const char* text) { return nlohmann::ordered_json::parse(text); }

const ChoiceRow& ChoiceRowOf(const std::vector<ChoiceRow>& rows, const std::string& system) {
  for (const ChoiceRow& r : rows) {
    if (r.system == system) return r;
  }
  static const ChoiceRow kNone;
  ADD_FAILURE() << "no row " << system;
  return kNone;
}

}  // namespace memstand::testutil

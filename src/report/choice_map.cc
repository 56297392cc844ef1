#include "report/choice_map.h"

#include <fmt/format.h>

#include "report/scenario_keys.h"

namespace memstand {
namespace {

using nlohmann::json;

constexpr char kMeasured[] = "measured here";
constexpr char kNotMeasured[] = "not measured here";

}  // namespace

json ChoiceAt(const json& j, std::initializer_list<const char*> path) {
  const json* at = &j;
  for (const char* key : path) {
    if (!at->is_object() || !at->contains(key)) return nullptr;
    at = &(*at)[key];
  }
  return *at;
}

std::string ChoiceValue(const json& v) {
  if (v.is_null()) return "?";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) return fmt::format("{:.1f}", v.get<double>());
  return v.dump();
}

std::string ChoiceRatio(const json& v) { return v.is_number() ? fmt::format("{:.1f}x", v.get<double>()) : "?"; }

const json* ChoiceFind(const json& list, const char* key, const std::string& value) {
  if (!list.is_array()) return nullptr;
  for (const json& e : list) {
    if (e.is_object() && e.value(key, "") == value) return &e;
  }
  return nullptr;
}

std::vector<ChoiceRow> ChoiceMap(const std::vector<ScenarioResult>& results,
                                 const std::vector<MeasuredChoiceRow>& measured,
                                 const std::vector<ChoiceRow>& judgment) {
  std::vector<ChoiceRow> out;
  for (const MeasuredChoiceRow& m : measured) {
    const ScenarioResult* input = nullptr;
    for (const ScenarioResult& r : results) {
      if (input == nullptr && r.doc.is_object() && r.doc.value(scenario_json::kScenario, "") == m.scenario) input = &r;
    }
    ChoiceRow row{m.task, m.system, m.faster_unmeasured, "", kNotMeasured, ""};
    std::string figure;
    if (input == nullptr) {
      row.source = fmt::format("memstand scenario run {} --json FILE, then give FILE", m.scenario);
    } else if (m.fill(input->doc, &row, &figure)) {
      row.support = kMeasured;
      row.source = fmt::format("{}: {} ({})", m.scenario, figure, input->file);
    } else {
      row.faster = m.faster_unmeasured;
      row.pay.clear();
      row.source = fmt::format("{} holds no result for this row (not run, failed or another version)", input->file);
    }
    out.push_back(std::move(row));
  }
  for (const ChoiceRow& j : judgment) out.push_back(j);
  return out;
}

std::string ChoiceMapText(const std::vector<ChoiceRow>& rows) {
  std::string out = "The choice map: class of task -> system -> how it goes faster -> what you pay, and what "
                    "supports the row\n";
  std::string task;
  for (const ChoiceRow& r : rows) {
    if (r.task != task) {
      out += "\n" + r.task + "\n";
      task = r.task;
    }
    out += fmt::format("  {}\n    faster: {}\n    pay:    {}\n    support: {}{}\n", r.system, r.faster,
                       r.pay.empty() ? "-" : r.pay, r.support, r.source.empty() ? "" : " — " + r.source);
  }
  out += "\nA measured row describes this platform and this run; a judgment row is the documented opinion of "
         "docs/choice-map.md, not a measurement.\n";
  return out;
}

json ChoiceMapJson(const std::vector<ChoiceRow>& rows) {
  json out = json::array();
  for (const ChoiceRow& r : rows) {
    out.push_back({{"task", r.task}, {"system", r.system}, {"faster", r.faster}, {"pay", r.pay},
                   {"support", r.support}, {"source", r.source}});
  }
  return out;
}

ReportSection ChoiceMapSection(const std::vector<ChoiceRow>& rows) {
  ReportSection section;
  section.title = "choice map";
  section.source = "the scenario inputs above; judgment rows: docs/choice-map.md";
  section.blocks.push_back({"What supports each row",
                            {"measured here: the figures come from the scenario result named in the last column "
                             "(this platform, that run)",
                             "not measured here: the row's scenario was not given, or holds no result for it; no "
                             "figure is shown",
                             "judgment: no scenario covers the row; the documented opinion of docs/choice-map.md"}});
  ReportTable t{"Class of task -> system -> how it goes faster -> what you pay", "choice-map",
                {"class of task", "system and configuration", "how it goes faster", "what you pay", "support",
                 "source"},
                {}};
  for (const ChoiceRow& r : rows) t.rows.push_back({r.task, r.system, r.faster, r.pay, r.support, r.source});
  section.tables.push_back(std::move(t));
  return section;
}

}  // namespace memstand

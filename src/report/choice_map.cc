#include "report/choice_map.h"

#include <fmt/format.h>

#include "report/scenario_keys.h"

namespace memstand {
namespace {

using nlohmann::json;

// How many of `support` back a step, by kind in a fixed order: "measured here: 2,
// judgment: 1"; "no row of the map" when none does.
std::string SupportCounts(const std::vector<const ChoiceRow*>& support) {
  std::string out;
  for (const char* kind : {kChoiceMeasured, kChoiceNotMeasured, kChoiceNotPackaged, kChoiceJudgment}) {
    int n = 0;
    for (const ChoiceRow* r : support) n += r->support == kind ? 1 : 0;
    if (n > 0) out += fmt::format("{}{}: {}", out.empty() ? "" : ", ", kind, n);
  }
  return out.empty() ? "no row of the map" : out;
}

// A supporting row in one line: its support, system and class of task.
std::string SupportLine(const ChoiceRow& r) { return fmt::format("{}: {} ({})", r.support, r.system, r.task); }

// "yes: etcd" for a step with a question; the last step's answer is its choice alone.
std::string StepAnswer(const ChoiceStep& step, bool last) { return last ? step.choice : "yes: " + step.choice; }

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
                                 const std::vector<ChoiceRow>& fixed) {
  std::vector<ChoiceRow> out;
  for (const MeasuredChoiceRow& m : measured) {
    const ScenarioResult* input = nullptr;
    for (const ScenarioResult& r : results) {
      if (input == nullptr && r.doc.is_object() && r.doc.value(scenario_json::kScenario, "") == m.scenario) input = &r;
    }
    ChoiceRow row{m.task, m.system, m.faster_unmeasured, "", kChoiceNotMeasured, ""};
    std::string figure;
    if (input == nullptr) {
      row.source = fmt::format("memstand scenario run {} --json FILE, then give FILE", m.scenario);
    } else if (m.fill(input->doc, &row, &figure)) {
      row.support = kChoiceMeasured;
      row.source = fmt::format("{}: {} ({})", m.scenario, figure, input->file);
      // An interrupted result's last run may hold part of its figures: the ranges say N,
      // and the row says the result was interrupted. (A "partial" verdict is a server not
      // installed: its rows are not measured, and the others' runs are whole.)
      const json verdict = ChoiceAt(input->doc, {scenario_json::kVerdict});
      if (verdict.is_string() && verdict.get<std::string>() == "interrupted") {
        row.source += ", an interrupted result: its last run may be incomplete";
      }
    } else {
      row.system = m.system;  // a fill may have reworded it before it found the result lacking
      row.faster = m.faster_unmeasured;
      row.pay.clear();
      row.source = fmt::format("{} holds no result for this row (not run, failed or another version)", input->file);
    }
    out.push_back(std::move(row));
  }
  for (const ChoiceRow& f : fixed) out.push_back(f);
  return out;
}

std::vector<const ChoiceRow*> ChoiceSupport(const ChoiceStep& step, const std::vector<ChoiceRow>& rows) {
  std::vector<const ChoiceRow*> out;
  for (const ChoiceRow& r : rows) {
    for (const ChoiceEvidence& e : step.evidence) {
      if (r.task == e.task && r.system.starts_with(e.system_prefix)) {
        out.push_back(&r);
        break;
      }
    }
  }
  return out;
}

std::string ChoiceTreeText(const std::vector<ChoiceStep>& tree, const std::vector<ChoiceRow>& rows) {
  std::string out = "The decision tree of the published map, each answer with the rows above that support it\n";
  for (size_t i = 0; i < tree.size(); ++i) {
    const bool last = i + 1 == tree.size();
    const std::vector<const ChoiceRow*> support = ChoiceSupport(tree[i], rows);
    out += fmt::format("  {}. {}\n     {} — supported by {}\n", i + 1, tree[i].question, StepAnswer(tree[i], last),
                       SupportCounts(support));
    for (const ChoiceRow* r : support) out += "       " + SupportLine(*r) + "\n";
    if (!last) out += fmt::format("     no: step {}\n", i + 2);
  }
  return out;
}

std::string ChoiceMapText(const std::vector<ChoiceRow>& rows, const std::vector<ChoiceStep>& tree) {
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
  out += "\nA measured row describes this platform and the runs of its file (each figure min median max over "
         "them, with their N); a judgment row is the documented opinion of docs/choice-map.md, not a measurement.\n";
  if (!tree.empty()) out += "\n" + ChoiceTreeText(tree, rows);
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

ReportSection ChoiceMapSection(const std::vector<ChoiceRow>& rows, const std::vector<ChoiceStep>& tree) {
  ReportSection section;
  section.title = "choice map";
  section.source = "the scenario inputs above; judgment rows: docs/choice-map.md";
  section.blocks.push_back({"What supports each row",
                            {"measured here: the figures come from the scenario result named in the last column "
                             "(this platform), each min median max over its runs with their N",
                             "not measured here: the row's scenario was not given, or holds no result for it; no "
                             "figure is shown",
                             "not measured here: not packaged for this platform: the system has no package here, so "
                             "no scenario stands it up; the row says what it is about, with no figure",
                             "judgment: no scenario covers the row; the documented opinion of docs/choice-map.md"}});
  ReportTable t{"Class of task -> system -> how it goes faster -> what you pay", "choice-map",
                {"class of task", "system and configuration", "how it goes faster", "what you pay", "support",
                 "source"},
                {}};
  for (const ChoiceRow& r : rows) t.rows.push_back({r.task, r.system, r.faster, r.pay, r.support, r.source});
  section.tables.push_back(std::move(t));
  if (tree.empty()) return section;
  ReportTable steps{"The decision tree of the published map: each answer and the rows that support it", "choice-tree",
                    {"step", "question", "answer", "no", "supported by", "rows"}, {}};
  for (size_t i = 0; i < tree.size(); ++i) {
    const bool last = i + 1 == tree.size();
    const std::vector<const ChoiceRow*> support = ChoiceSupport(tree[i], rows);
    std::string lines;
    for (const ChoiceRow* r : support) lines += (lines.empty() ? "" : "; ") + SupportLine(*r);
    steps.rows.push_back({std::to_string(i + 1), tree[i].question, StepAnswer(tree[i], last),
                          last ? "-" : fmt::format("step {}", i + 2), SupportCounts(support), lines});
  }
  section.tables.push_back(std::move(steps));
  return section;
}

}  // namespace memstand

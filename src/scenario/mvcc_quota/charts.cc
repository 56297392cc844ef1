// mvcc-quota (docs/scenarios/mvcc-quota.md): etcd's backend size after each portion of writes, the
// quota, the first failed write and the size after the recovery.
#include <fmt/format.h>

#include "report/json_fields.h"
#include "report/report_input.h"
#include "report/report_section.h"
#include "scenario/mvcc_quota/json.h"
#include "scenario/mvcc_quota/mvcc_quota.h"

namespace memstand {
namespace {

using nlohmann::json;
namespace key = mvcc_quota_json;

ReportTable FiguresTable(const json& doc) {
  ReportTable t{
      "etcd and Redis (the first complete run)", "mvcc-quota", {"system", "figure", "value"}, {}};
  for (const char* system : {key::kEtcd, key::kRedis, key::kIntended}) {
    const json& o = Field(doc, system);
    if (!o.is_object()) continue;
    for (const auto& [k, v] : o.items()) {
      if (k != key::kDbSizeByWrite)
        t.rows.push_back({system, k, v.is_string() ? v.get<std::string>() : v.dump()});
    }
  }
  t.rows.push_back({"", "ratio", Text(doc, key::kRatio)});
  return t;
}

// A profile's etcd backend size after each portion ([[writes, bytes], ...]) in MiB,
// with the quota's line.
Chart SizeChart(const json& doc, const std::string& title, const json& by_write) {
  Chart c;
  c.title = title;
  c.x = Axis("writes", "writes");
  c.y = Axis("etcd backend size (dbSize)", "MiB");
  c.series = {"db size"};
  c.data.resize(2);
  for (const json& p : by_write) {
    if (!p.is_array() || p.size() != 2 || !p[0].is_number() || !p[1].is_number()) continue;
    c.data[0].push_back(p[0].get<double>());
    c.data[1].push_back(p[1].get<double>() / (1 << 20));
  }
  if (auto q = Number(Field(doc, key::kProfile), key::kQuotaBytes))
    c.y_lines.push_back({*q / (1 << 20), "quota " + Cell(*q / (1 << 20)) + " MiB"});
  return c;
}

// The intended profile's backend size per write against the quota, when it ran.
void IntendedChart(const json& doc, ReportSection* s) {
  const json& intended = Field(doc, key::kIntended);
  const json& by_write = Array(intended, key::kDbSizeByWrite);
  if (by_write.empty()) return;
  Chart c = SizeChart(doc, "mvcc-quota: etcd backend size per write, intended profile", by_write);
  const json& settings = Field(Field(doc, key::kProfile), key::kIntended);
  c.caption = fmt::format(
      "etcd's backend size after each portion of the intended profile ({} keys, {} B values, auto-compaction "
      "retention {}; JSON intended.db_size_by_write, the first complete run), against the same quota; "
      "compaction {}.",
      Text(settings, key::kKeys), Text(settings, key::kValueSize), Text(settings, key::kCompactionRetention),
      Field(intended, key::kCompacted) == true ? "ran (the first write's revision was compacted away)" : "not seen");
  s->charts.push_back(std::move(c));
}

}  // namespace

void MvccQuotaCharts(const ReportInput& in, ReportSection* s) {
  const json& doc = in.doc;
  const json& etcd = Field(doc, key::kEtcd);
  if (in.csv.empty()) s->tables.push_back(FiguresTable(doc));
  IntendedChart(doc, s);
  const json& by_write = Array(etcd, key::kDbSizeByWrite);
  if (by_write.empty()) {
    if (!Field(doc, key::kIntended).is_object()) {
      s->blocks.push_back({"Charts", {"no chart: the JSON has no etcd.db_size_by_write series"}});
    }
    return;
  }
  Chart c = SizeChart(doc, "mvcc-quota: etcd backend size per write", by_write);
  const json& profile = Field(doc, key::kProfile);
  if (auto after = Number(etcd, key::kDbSizeAfterRecovery)) {
    c.y_lines.push_back({*after / (1 << 20),
                         "after the recovery, at the end: " + Cell(*after / (1 << 20)) + " MiB"});
  }
  if (auto f = Number(etcd, key::kFirstFailedWrite))
    c.x_lines.push_back({*f, "first failed write " + Cell(f)});
  const json& in_portion = Field(etcd, key::kDetectedIn);
  if (in_portion.is_array() && in_portion.size() == 2 && in_portion[0].is_number() &&
      in_portion[1].is_number()) {
    c.bands.push_back(
        {in_portion[0].get<double>(), in_portion[1].get<double>(), "portion of the first failure"});
  }
  c.caption = fmt::format(
      "etcd's backend size (maintenance/status dbSize) after each portion of {} writes of {} bytes "
      "to {} hot keys "
      "(JSON etcd.db_size_by_write, the first complete run), against the quota; the line marks the "
      "first "
      "failed write ({}), the lower line the size after the recovery (compact, defragment, disarm; "
      "canary {}).",
      Text(profile, key::kPortion), Text(profile, key::kValueSize), Text(profile, key::kKeys),
      Text(etcd, key::kError), Field(etcd, key::kCanaryOk) == true ? "ok" : "failed");
  s->charts.push_back(std::move(c));
}

}  // namespace memstand

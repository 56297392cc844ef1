// mvcc-quota's rows of the choice map (docs/choice-map.md, report/choice_map.h), filled from
// its JSON.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "report/choice_map.h"
#include "scenario/mvcc_quota/json.h"
#include "scenario/mvcc_quota/mvcc_quota.h"

namespace memstand {
namespace {

using nlohmann::json;
namespace key = mvcc_quota_json;

bool FillMvccEtcd(const json& doc, ChoiceRow* row, std::string* figure) {
  const json e = ChoiceAt(doc, {key::kEtcd});
  if (!e.is_object() || !e.contains(key::kFirstFailedWrite)) return false;
  row->faster = "every write a new MVCC revision: history, watches and linearizable reads";
  row->pay = fmt::format(
      "with {} hot keys overwritten, writes fail from write {} ('{}') at a database of {} B "
      "against a {} B quota; back to {} B only after compact, defragment and disarm",
      ChoiceValue(ChoiceAt(doc, {key::kProfile, key::kKeys})), ChoiceValue(e[key::kFirstFailedWrite]),
      ChoiceValue(ChoiceAt(e, {key::kError})), ChoiceValue(ChoiceAt(e, {key::kDbSizeAtFailure})),
      ChoiceValue(ChoiceAt(doc, {key::kProfile, key::kQuotaBytes})),
      ChoiceValue(ChoiceAt(e, {key::kDbSizeAfterRecovery})));
  *figure = "etcd first failed write " + ChoiceValue(e[key::kFirstFailedWrite]);
  return true;
}

bool FillMvccRedis(const json& doc, ChoiceRow* row, std::string* figure) {
  const json r = ChoiceAt(doc, {key::kRedis});
  if (!r.is_object() || !r.contains(key::kSuccessful)) return false;
  row->faster = "overwrites in place: no history to compact";
  row->pay = fmt::format(
      "no history or watch of past revisions; the same {} writes: {} errors, used memory +{} B "
      "(etcd's database grew {} as much)",
      ChoiceValue(ChoiceAt(r, {key::kAttempted})), ChoiceValue(ChoiceAt(r, {key::kErrors})),
      ChoiceValue(ChoiceAt(r, {key::kUsedMemoryDelta})), ChoiceRatio(ChoiceAt(doc, {key::kRatio})));
  *figure = "redis used_memory_delta " + ChoiceValue(ChoiceAt(r, {key::kUsedMemoryDelta}));
  return true;
}

}  // namespace

std::vector<MeasuredChoiceRow> MvccQuotaChoiceRows() {
  std::vector<MeasuredChoiceRow> rows;
  const char* mq = "a hot set of keys overwritten all the time";
  rows.push_back({"mvcc-quota", mq, "etcd at its default 64 MiB quota",
                  "MVCC history against the quota", FillMvccEtcd});
  rows.push_back({"mvcc-quota", mq, "Redis", "overwrites in place", FillMvccRedis});
  return rows;
}

}  // namespace memstand

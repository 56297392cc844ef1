// libFuzzer target: a run (shard) JSON as `memstand merge` reads it: the depth bound, the
// parse, and CheckMergeable's check of every field merge reads, alone and beside itself
// (one run given twice). Beyond crashes: a document that passes must hold every field
// merge indexes without a check (a throw here is a crash: libFuzzer aborts on it).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "report/json_document.h"
#include "report/merge_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using Json = nlohmann::ordered_json;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto doc = memstand::ParseJsonDocument<Json>("f.json", text);
  if (!doc.ok()) {
    if (doc.status().message().rfind("f.json: ", 0) != 0) __builtin_trap();
    return 0;
  }
  std::vector<memstand::MergeInput> inputs = {{"f.json", *doc}};
  memstand::Status s = memstand::merge_internal::CheckMergeable(inputs);
  if (!s.ok()) {
    if (s.message().rfind("f.json: ", 0) != 0) __builtin_trap();
    return 0;
  }
  // What merge then indexes unguarded (merge.cc, merge_series.cc, merge_report.cc).
  const Json& d = inputs[0].doc;
  if (!d["totals"]["latency"]["histogram"].is_object() || !d["options"]["commands"].is_array() ||
      d["commands"].size() != d["options"]["commands"].size() || !d["series"].is_object() ||
      !d["client"].is_object() || !d["server"].is_object()) {
    __builtin_trap();
  }
  (void)memstand::merge_internal::WorkloadOf(d);
  inputs.push_back({"g.json", *doc});
  s = memstand::merge_internal::CheckMergeable(inputs);
  if (s.ok() || s.message().find("given twice") == std::string::npos) __builtin_trap();
  return 0;
}

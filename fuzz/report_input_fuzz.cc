// libFuzzer target: `memstand report`'s reader of one JSON input: ParseReportJson (the
// depth bound, then the parse with nlohmann's exceptions caught: parse_error, and
// out_of_range for 1e400) and DetectKind, which tells a run, a series, a sweep, a
// comparison and a scenario apart; every refusal names the file; then the types of the
// fields the report reads of a run, a series or a sweep (CheckReportFields: a refusal
// names the field).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "report/report_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto doc = memstand::ParseReportJson("r.json", text);
  if (!doc.ok()) {
    if (doc.status().message().rfind("'r.json': ", 0) != 0) __builtin_trap();
    return 0;
  }
  auto kind = memstand::DetectKind(*doc);
  if (!kind.ok()) return 0;
  (void)memstand::ReportInputKindName(*kind);
  memstand::ReportInput in;
  in.kind = *kind;
  in.doc = std::move(*doc);
  memstand::Status fields = memstand::CheckReportFields(in);
  if (!fields.ok() && fields.message().find("field ") == std::string::npos) __builtin_trap();
  return 0;
}

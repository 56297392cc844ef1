// libFuzzer target: `memstand report`'s reader of one JSON input: ParseReportJson (the
// depth bound, then the parse with nlohmann's exceptions caught: parse_error, and
// out_of_range for 1e400) and DetectKind, which tells a run, a series, a sweep, a
// comparison and a scenario apart; every refusal names the file.
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
  if (kind.ok()) (void)memstand::ReportInputKindName(*kind);
  return 0;
}

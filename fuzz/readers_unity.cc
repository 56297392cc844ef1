// The sources of the reader fuzz targets (merge_input, compare_input, report_input) as one
// translation unit: nlohmann::json's templates are parsed and instantiated once, not once
// per source, which is most of their cold clang build (see docs/protocols.md#fuzzing).
#include "report/compare.cc"
#include "report/consistency.cc"
#include "report/json_check.cc"
#include "report/json_document.cc"
#include "report/json_fields.cc"
#include "report/merge_check.cc"
#include "report/repeat.cc"
#include "report/report_input.cc"
#include "stats/validity_math.cc"
#include "util/json_depth.cc"
#include "util/terminal_text.cc"

// The nesting of a JSON text bounded before a parser sees it: nlohmann's parser, and every
// walk of a parsed document (copy, compare, dump, free), recurse once per level, so a
// forged file of a million brackets would end on the stack's end, not with an error.
#pragma once

#include <string_view>

#include "util/status.h"

namespace memstand {

/// The deepest nesting of arrays and objects accepted. memstand writes at most ~8 levels.
inline constexpr int kMaxJsonDepth = 64;

/// OK when no array or object of `text` (JSON) is nested deeper than max_depth;
/// InvalidArgument "nested deeper than N levels (at FIELD)" otherwise, FIELD the path of
/// the value that goes too deep ("totals.latency[0].a", cut to ~100 bytes). Looks at the
/// brackets outside strings only: invalid JSON is left for the parser to refuse.
Status CheckJsonDepth(std::string_view text, int max_depth = kMaxJsonDepth);

}  // namespace memstand

// CSV fields as RFC 4180 writes them, for every CSV memstand writes (raw samples,
// scenario tables, the products export).
#pragma once

#include <string>
#include <string_view>

namespace memstand {

/// One CSV field: `text` as is, or quoted with inner quotes doubled when it holds a
/// comma, a double quote, CR or LF.
std::string CsvField(std::string_view text);

}  // namespace memstand

// CSV fields as RFC 4180 writes them, for every CSV memstand writes (raw samples,
// scenario tables, the products export).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace memstand {

/// One CSV field: `text` as is, or quoted with inner quotes doubled when it holds a
/// comma, a double quote, CR or LF.
std::string CsvField(std::string_view text);

/// Appends one record: the fields as CsvField makes them, separated by commas, then "\n".
void AppendCsvRow(const std::vector<std::string>& fields, std::string* out);

/// The records of a CSV text as RFC 4180 reads them (quoted fields with doubled quotes,
/// CRLF or LF line ends); a final line end adds no record. Malformed quoting (text after
/// a closing quote, an unclosed quote) is kept as read, never an error.
std::vector<std::vector<std::string>> ParseCsv(std::string_view text);

}  // namespace memstand

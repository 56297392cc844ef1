// Reading a JSON document that memstand wrote (a run, a series, a sweep, a comparison, a
// scenario's result) without trusting it: the file checked (a regular file, at most
// kMaxDocumentBytes), its nesting bounded before it is parsed, errors as values.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "util/status.h"

namespace memstand {

/// The largest document read. A parsed document takes ~4.4 times its size in memory
/// (measured: a 200 MB run JSON, 883 MB RSS), so 256 MiB needs ~1.1 GiB; a run's JSON with
/// per-second histograms is kilobytes to a few megabytes.
inline constexpr uint64_t kMaxDocumentBytes = uint64_t{256} << 20;
/// The deepest nesting of arrays and objects accepted. memstand writes at most ~8 levels;
/// the bound keeps every recursive walk of a parsed document (copy, compare, dump, free)
/// far from the stack's end.
inline constexpr int kMaxJsonDepth = 64;

/// The file's text. InvalidArgument naming the path: missing, not a regular file,
/// larger than kMaxDocumentBytes, unreadable.
Result<std::string> ReadDocumentText(const std::string& path);

/// OK when no array or object of `text` (JSON) is nested deeper than max_depth;
/// InvalidArgument "nested deeper than N levels (at FIELD)" otherwise, FIELD the path of
/// the value that goes too deep ("totals.latency[0].a", cut to ~100 bytes). Looks at the
/// brackets outside strings only: invalid JSON is left for the parser to refuse.
Status CheckJsonDepth(std::string_view text, int max_depth = kMaxJsonDepth);

/// `text` parsed as Json (nlohmann::json or nlohmann::ordered_json) after
/// CheckJsonDepth; InvalidArgument "<path>: not JSON" when it does not parse,
/// "<path>: nested deeper than ..." when too deep. Never throws.
template <typename Json>
Result<Json> ParseJsonDocument(const std::string& path, std::string_view text) {
  Status depth = CheckJsonDepth(text);
  if (!depth.ok()) return depth.WithContext(path);
  Json doc = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return Status::InvalidArgument(path + ": not JSON");
  return doc;
}

/// ReadDocumentText, then ParseJsonDocument.
template <typename Json>
Result<Json> ReadJsonDocument(const std::string& path) {
  auto text = ReadDocumentText(path);
  if (!text.ok()) return text.status();
  return ParseJsonDocument<Json>(path, *text);
}

}  // namespace memstand

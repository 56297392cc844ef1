// Reading a JSON document that memstand wrote (a run, a series, a sweep, a comparison, a
// scenario's result) without trusting it: the file checked (a regular file, at most
// kMaxDocumentBytes), its nesting bounded before it is parsed, errors as values.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "util/json_depth.h"  // CheckJsonDepth, kMaxJsonDepth
#include "util/status.h"

namespace memstand {

/// The largest document read. A parsed document takes ~4.4 times its size in memory
/// (measured: a 200 MB run JSON, 883 MB RSS), so 256 MiB needs ~1.1 GiB; a run's JSON with
/// per-second histograms is kilobytes to a few megabytes.
inline constexpr uint64_t kMaxDocumentBytes = uint64_t{256} << 20;

/// The file's text. InvalidArgument naming the path: missing, not a regular file,
/// larger than kMaxDocumentBytes, unreadable.
Result<std::string> ReadDocumentText(const std::string& path);

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

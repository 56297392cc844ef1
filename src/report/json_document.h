// Reading a JSON document that memstand wrote (a run, a series): the file checked
// (a regular file, at most 1 GiB) and parsed, errors as values.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "util/status.h"

namespace memstand {

/// The file's text. InvalidArgument naming the path: missing, not a regular file,
/// larger than 1 GiB, unreadable.
Result<std::string> ReadDocumentText(const std::string& path);

/// ReadDocumentText parsed as Json (nlohmann::json or nlohmann::ordered_json);
/// InvalidArgument "<path>: not JSON" when it does not parse.
template <typename Json>
Result<Json> ReadJsonDocument(const std::string& path) {
  auto text = ReadDocumentText(path);
  if (!text.ok()) return text.status();
  Json doc = Json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return Status::InvalidArgument(path + ": not JSON");
  return doc;
}

}  // namespace memstand

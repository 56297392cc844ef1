// Command templates: "set __key__ __data__" -> arguments made of literal parts and
// placeholders, filled per request without allocation.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace memstand {

struct TemplatePart {
  enum class Kind { kLiteral, kKey, kData };
  Kind kind = Kind::kLiteral;
  std::string literal;  // kLiteral
};

/// One argument: the concatenation of its parts, e.g. "user:__key__" = literal + key.
using TemplateArg = std::vector<TemplatePart>;

struct CommandTemplate {
  std::string name;                // first word, upper-cased ("SET")
  std::vector<TemplateArg> args;   // every argument, the command name included
  bool uses_key = false;
  bool uses_data = false;
};

/// Splits like a shell: whitespace separates arguments; "double" and 'single' quotes
/// group (backslash escapes \" \\ \n \r \t \xHH inside double quotes, as redis-cli).
/// Placeholders: __key__ and __data__. Any other __word__ is an error that names it;
/// so are unbalanced quotes and an empty template.
Result<CommandTemplate> ParseCommandTemplate(std::string_view text);

}  // namespace memstand

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
/// group (backslash escapes \" \\ \n \r \t \xHH inside double quotes, as redis-cli;
/// only \' inside single quotes), and a quoted piece joins the text it touches
/// (user:"a b" is one argument). Placeholders: __key__ and __data__, also inside an
/// argument and inside quotes. Any other __word__ (word: letters and digits) is an
/// error that names it; so are unbalanced quotes, a \x not followed by two hex digits,
/// an empty template and a command name that is empty or a placeholder.
Result<CommandTemplate> ParseCommandTemplate(std::string_view text);

}  // namespace memstand

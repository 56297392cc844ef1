#include "workload/command_template.h"

#include <cctype>
#include <string>

#include "util/redact.h"

namespace memstand {
namespace {

using Kind = TemplatePart::Kind;

bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Status Unbalanced(std::string_view text) {
  return Status::InvalidArgument("unbalanced quotes in template: " + Abbreviate(text));
}

// Splits `text` into raw arguments, removing quotes and resolving escapes.
class Tokenizer {
 public:
  explicit Tokenizer(std::string_view text) : text_(text) {}

  Result<std::vector<std::string>> Run() {
    std::vector<std::string> args;
    while (true) {
      while (pos_ < text_.size() && IsSpace(text_[pos_])) ++pos_;
      if (pos_ == text_.size()) return args;
      std::string arg;
      if (Status s = ReadArg(arg); !s.ok()) return s;
      args.push_back(std::move(arg));
    }
  }

 private:
  // Reads up to the next unquoted whitespace; quoted pieces join their neighbours.
  Status ReadArg(std::string& arg) {
    while (pos_ < text_.size() && !IsSpace(text_[pos_])) {
      const char c = text_[pos_++];
      Status s;
      if (c == '"') {
        s = ReadDoubleQuoted(arg);
      } else if (c == '\'') {
        s = ReadSingleQuoted(arg);
      } else {
        arg += c;
      }
      if (!s.ok()) return s;
    }
    return Status::OK();
  }

  // After the opening '"': up to the closing one, with redis-cli's escapes.
  Status ReadDoubleQuoted(std::string& arg) {
    while (pos_ < text_.size()) {
      const char c = text_[pos_++];
      if (c == '"') return Status::OK();
      if (c != '\\') {
        arg += c;
        continue;
      }
      if (pos_ == text_.size()) break;
      if (Status s = ReadEscape(arg); !s.ok()) return s;
    }
    return Unbalanced(text_);
  }

  // After a backslash inside double quotes.
  Status ReadEscape(std::string& arg) {
    const char c = text_[pos_++];
    switch (c) {
      case 'n':
        arg += '\n';
        return Status::OK();
      case 'r':
        arg += '\r';
        return Status::OK();
      case 't':
        arg += '\t';
        return Status::OK();
      case 'b':
        arg += '\b';
        return Status::OK();
      case 'a':
        arg += '\a';
        return Status::OK();
      case 'x':
        return ReadHexEscape(arg);
      default:
        arg += c;
        return Status::OK();  // \" \\ and any other char: itself
    }
  }

  Status ReadHexEscape(std::string& arg) {
    const int hi = pos_ < text_.size() ? HexValue(text_[pos_]) : -1;
    const int lo = pos_ + 1 < text_.size() ? HexValue(text_[pos_ + 1]) : -1;
    if (hi < 0 || lo < 0) {
      return Status::InvalidArgument("bad \\x escape in template '" + Abbreviate(text_) +
                                     "': \\x must be followed by two hex digits");
    }
    arg += static_cast<char>(hi * 16 + lo);
    pos_ += 2;
    return Status::OK();
  }

  // After the opening '\'': up to the closing one; only \' is an escape.
  Status ReadSingleQuoted(std::string& arg) {
    while (pos_ < text_.size()) {
      const char c = text_[pos_++];
      if (c == '\'') return Status::OK();
      if (c == '\\' && pos_ < text_.size() && text_[pos_] == '\'') {
        arg += '\'';
        ++pos_;
        continue;
      }
      arg += c;
    }
    return Unbalanced(text_);
  }

  std::string_view text_;
  size_t pos_ = 0;
};

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// Length of the placeholder "__word__" starting at `pos` of `arg`, or 0 if none does.
size_t PlaceholderLength(std::string_view arg, size_t pos) {
  if (arg.substr(pos, 2) != "__") return 0;
  size_t end = pos + 2;
  while (end < arg.size() && IsWordChar(arg[end])) ++end;
  if (end == pos + 2 || arg.substr(end, 2) != "__") return 0;
  return end + 2 - pos;
}

void AppendLiteral(TemplateArg& parts, char c) {
  if (parts.empty() || parts.back().kind != Kind::kLiteral) parts.push_back(TemplatePart{});
  parts.back().literal += c;
}

// Splits one raw argument into literal parts and placeholders.
Result<TemplateArg> SplitArg(std::string_view arg, std::string_view text) {
  TemplateArg parts;
  for (size_t pos = 0; pos < arg.size();) {
    const size_t length = PlaceholderLength(arg, pos);
    if (length == 0) {
      AppendLiteral(parts, arg[pos++]);
      continue;
    }
    const std::string_view name = arg.substr(pos, length);
    if (name != "__key__" && name != "__data__") {
      return Status::InvalidArgument("unknown placeholder " + Abbreviate(name) + " in template '" +
                                     Abbreviate(text) + "'; known: __key__, __data__");
    }
    parts.push_back(TemplatePart{name == "__key__" ? Kind::kKey : Kind::kData, ""});
    pos += length;
  }
  if (parts.empty()) parts.push_back(TemplatePart{});  // "" is one empty literal
  return parts;
}

Status SetName(CommandTemplate& command, std::string_view text) {
  const TemplateArg& first = command.args.front();
  if (first.size() != 1 || first[0].kind != Kind::kLiteral || first[0].literal.empty()) {
    return Status::InvalidArgument("the command name must be a non-empty literal in template '" +
                                   Abbreviate(text) + "'");
  }
  for (char c : first[0].literal) {
    command.name += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return Status::OK();
}

}  // namespace

Result<CommandTemplate> ParseCommandTemplate(std::string_view text) {
  auto raw = Tokenizer(text).Run();
  if (!raw.ok()) return raw.status();
  if (raw->empty()) return Status::InvalidArgument("empty command template");
  CommandTemplate command;
  for (const std::string& arg : *raw) {
    auto parts = SplitArg(arg, text);
    if (!parts.ok()) return parts.status();
    for (const TemplatePart& part : *parts) {
      command.uses_key |= part.kind == Kind::kKey;
      command.uses_data |= part.kind == Kind::kData;
    }
    command.args.push_back(std::move(*parts));
  }
  if (Status s = SetName(command, text); !s.ok()) return s;
  return command;
}

}  // namespace memstand

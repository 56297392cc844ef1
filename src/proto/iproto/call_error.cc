#include "proto/iproto/call_error.h"

#include "proto/iproto/msgpack.h"
#include "util/terminal_text.h"

namespace memstand::iproto {

namespace {

// A map's "str" field, else its "err" field, when a non-empty string; else the type.
bool ReadErrorMap(Cursor* c, CallError* err) {
  uint32_t n = 0;
  if (!c->ReadMap(&n)) return false;
  std::string_view str, err_field;
  for (uint32_t i = 0; i < n; ++i) {
    std::string_view key, value;
    if (c->AtEnd()) return false;
    if (!c->ReadStr(&key) && !c->Skip()) return false;
    if (c->AtEnd()) return false;
    if (c->Peek() == Cursor::Type::kStr && (key == "str" || key == "err")) {
      if (!c->ReadStr(&value)) return false;
      (key == "str" ? str : err_field) = value;
    } else if (!c->Skip()) {
      return false;
    }
  }
  err->text = !str.empty() ? str : err_field;
  if (err->text.empty()) err->type = "map";
  return true;
}

// err, the second value: not nil (REQUIRES).
bool ReadError(Cursor* c, CallError* err) {
  *err = CallError{};
  const Cursor::Type t = c->Peek();
  if (t == Cursor::Type::kMap) return ReadErrorMap(c, err);
  if (t == Cursor::Type::kStr) {
    if (!c->ReadStr(&err->text)) return false;
    if (err->text.empty()) err->type = "empty string";
    return true;
  }
  err->type = Cursor::TypeName(t);
  return c->Skip();
}

// Appends text made printable (see FormatCallError), at most max bytes of it; true when
// it was cut.
bool AppendCleanText(std::string_view text, size_t max, std::string* out) {
  size_t written = 0;
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    size_t n = 1;
    char replacement = 0;
    if (c < 0x20 || c == 0x7f) {
      replacement = ' ';
    } else if (c >= 0x80) {
      n = Utf8Length(text, i);
      // No valid sequence, or a C1 control (U+0080..U+009F: C2 80..C2 9F).
      if (n == 0 || (n == 2 && c == 0xc2 && static_cast<unsigned char>(text[i + 1]) < 0xa0)) {
        replacement = '?';
      }
      if (n == 0) n = 1;
    }
    const size_t size = replacement != 0 ? 1 : n;
    if (written + size > max) return true;
    if (replacement != 0) {
      out->push_back(replacement);
    } else {
      out->append(text.data() + i, n);
    }
    written += size;
    i += n;
  }
  return false;
}

}  // namespace

std::optional<CallErrors> ParseCallErrors(std::string_view text) {
  for (CallErrors m : {CallErrors::kAuto, CallErrors::kNone, CallErrors::kSecondValue}) {
    if (text == CallErrorsName(m)) return m;
  }
  return std::nullopt;
}

const char* CallErrorsName(CallErrors mode) {
  switch (mode) {
    case CallErrors::kNone: return "none";
    case CallErrors::kAuto: return "auto";
    case CallErrors::kSecondValue: return "second-value";
  }
  return "?";
}

bool FindCallError(std::string_view data, CallErrors mode, CallError* err) {
  if (mode == CallErrors::kNone) return false;
  Cursor c(data.data(), data.data() + data.size());
  uint32_t n = 0;
  if (!c.ReadArray(&n) || n < 2 || c.AtEnd()) return false;
  if (mode == CallErrors::kAuto && c.Peek() != Cursor::Type::kNil) return false;
  if (!c.Skip() || c.AtEnd() || c.Peek() == Cursor::Type::kNil) return false;
  return ReadError(&c, err);
}

void FormatCallError(const CallError& err, std::string* kind, std::string* message) {
  kind->assign("call: ");
  message->clear();
  if (err.text.empty()) {
    kind->append(err.type != nullptr ? err.type : "unknown");
    message->assign("an error value of type ");
    message->append(err.type != nullptr ? err.type : "unknown");
    return;
  }
  if (AppendCleanText(err.text, kCallKindTextMax, kind)) kind->append("...");
  if (AppendCleanText(err.text, kCallMessageMax, message)) message->append("...");
}

}  // namespace memstand::iproto

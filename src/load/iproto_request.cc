#include "load/iproto_request.h"

#include <cctype>
#include <utility>

namespace memstand {

namespace {

std::string UpperWord(std::string_view s) {
  std::string u(s);
  for (auto& ch : u) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return u;
}

// Requests whose second word is the space.
bool TakesSpace(std::string_view kind) {
  for (std::string_view k : {"select", "insert", "replace", "upsert", "update", "delete"}) {
    if (kind.size() == k.size() && UpperWord(kind) == UpperWord(k)) return true;
  }
  return false;
}

// A space name rather than an id: a word of letters, digits and '_' that does not
// start with a digit and is not a placeholder (__key__).
bool IsSpaceName(std::string_view w) {
  if (w.empty() || std::isdigit(static_cast<unsigned char>(w[0]))) return false;
  if (w.size() >= 4 && w.substr(0, 2) == "__" && w.substr(w.size() - 2) == "__") return false;
  for (char c : w) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

// Tarantool's IPROTO_PACKET_SIZE_MAX (src/box/iproto.cc, 1.10 to 3.x): the server
// closes the connection on a longer packet. Keys and values are MessagePack strings,
// so any bytes go; tuples over memtx_max_tuple_size (1 MiB by default, a server
// setting) are error replies naming it.
constexpr size_t kIprotoMaxPacket = size_t{2} << 30;

}  // namespace

Result<IprotoRequest> IprotoRequest::Parse(std::string_view text, std::string key_prefix) {
  IprotoRequest r;
  r.text_ = std::string(text);
  r.key_prefix_ = std::move(key_prefix);
  // A space given by name: remember where, and parse with zeros of the same length
  // in its place (columns in messages stay right) until ResolveSpace knows the id.
  auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  size_t i = 0;
  while (i < text.size() && is_space(text[i])) ++i;
  const size_t kind_start = i;
  while (i < text.size() && !is_space(text[i])) ++i;
  std::string probe(text);
  if (TakesSpace(text.substr(kind_start, i - kind_start))) {
    while (i < text.size() && is_space(text[i])) ++i;
    size_t end = i;
    while (end < text.size() && !is_space(text[end]) && text[end] != '[') ++end;
    if (IsSpaceName(text.substr(i, end - i))) {
      r.space_name_ = std::string(text.substr(i, end - i));
      r.space_pos_ = i;
      probe.replace(i, end - i, end - i, '0');
    }
  }
  Status s = r.SetTemplate(probe);
  if (!s.ok()) return s;
  return r;
}

Status IprotoRequest::SetTemplate(const std::string& text) {
  auto t = iproto::RequestTemplate::Parse(text);
  if (!t.ok()) return t.status();
  label_ = t->label();
  // box.stat() names the request kinds; "CALL crud.replace" counts as CALL.
  server_stat_ = t->type() == iproto::kPing ? "" : label_.substr(0, label_.find(' '));
  counts_hits_ = t->type() == iproto::kSelect || t->type() == iproto::kDelete;
  uses_key_ = t->uses_key();
  uses_data_ = t->uses_data();
  uses_seq_ = t->uses_seq();
  uses_rng_ = t->uses_rng();
  is_call_ = t->type() == iproto::kCall || t->type() == iproto::kEval;
  set_call_errors(mode_);
  template_ = std::make_shared<const iproto::RequestTemplate>(std::move(*t));
  return Status::OK();
}

void IprotoRequest::set_call_errors(iproto::CallErrors mode) {
  mode_ = mode;
  call_errors_ = is_call_ ? mode : iproto::CallErrors::kNone;
}

Status IprotoRequest::ResolveSpace(
    const std::function<Result<uint32_t>(const std::string&)>& lookup) {
  if (space_name_.empty()) return Status::OK();
  auto id = lookup(space_name_);
  if (!id.ok()) return id.status();
  std::string text = text_;
  text.replace(space_pos_, space_name_.size(), std::to_string(*id));
  return SetTemplate(text);
}

Status IprotoRequest::CheckLimits(uint64_t, size_t max_value, const std::string& value_flag) const {
  const size_t most = template_->MaxSize(key_prefix_.size(), max_value);
  if (most <= kIprotoMaxPacket) return Status::OK();
  return Status::InvalidArgument(
      value_flag + ": " + label_ + " would make IPROTO requests of up to " +
      std::to_string(most) + " bytes, over Tarantool's IPROTO_PACKET_SIZE_MAX of 2 GiB (the "
      "server closes the connection on a longer packet)");
}

}  // namespace memstand

#include "load/proto_request.h"

#include <iterator>

#include "load/request_builder.h"
#include "proto/wire_text.h"

namespace memstand {

namespace {

// Box error codes 0..60 by name, as Tarantool 2.6's box.error lists them.
constexpr const char* kErrorNames[] = {
    "UNKNOWN", "ILLEGAL_PARAMS", "MEMORY_ISSUE", "TUPLE_FOUND", "TUPLE_NOT_FOUND",
    "UNSUPPORTED", "NONMASTER", "READONLY", "INJECTION", "CREATE_SPACE", "SPACE_EXISTS",
    "DROP_SPACE", "ALTER_SPACE", "INDEX_TYPE", "MODIFY_INDEX", "LAST_DROP",
    "TUPLE_FORMAT_LIMIT", "DROP_PRIMARY_KEY", "KEY_PART_TYPE", "EXACT_MATCH",
    "INVALID_MSGPACK", "PROC_RET", "TUPLE_NOT_ARRAY", "FIELD_TYPE",
    "INDEX_PART_TYPE_MISMATCH", "UPDATE_SPLICE", "UPDATE_ARG_TYPE",
    "FORMAT_MISMATCH_INDEX_PART", "UNKNOWN_UPDATE_OP", "UPDATE_FIELD",
    "FUNCTION_TX_ACTIVE", "KEY_PART_COUNT", "PROC_LUA", "NO_SUCH_PROC", "NO_SUCH_TRIGGER",
    "NO_SUCH_INDEX_ID", "NO_SUCH_SPACE", "NO_SUCH_FIELD_NO", "EXACT_FIELD_COUNT",
    "FIELD_MISSING", "WAL_IO", "MORE_THAN_ONE_TUPLE", "ACCESS_DENIED", "CREATE_USER",
    "DROP_USER", "NO_SUCH_USER", "USER_EXISTS", "PASSWORD_MISMATCH", "UNKNOWN_REQUEST_TYPE",
    "UNKNOWN_SCHEMA_OBJECT", "CREATE_FUNCTION", "NO_SUCH_FUNCTION", "FUNCTION_EXISTS",
    "BEFORE_REPLACE_RET", "MULTISTATEMENT_TRANSACTION", "TRIGGER_EXISTS", "USER_MAX",
    "NO_SUCH_ENGINE", "RELOAD_CFG", "CFG", "SAVEPOINT_EMPTY_TX"};

}  // namespace

std::string IprotoErrorName(uint32_t code) {
  if (code < std::size(kErrorNames)) return std::string("ER_") + kErrorNames[code];
  return "error code " + std::to_string(code);
}

std::string_view RenderArg(const TemplateArg& arg, std::string_view key_prefix, const ProtoArgs& a,
                           std::string* scratch) {
  if (arg.size() == 1 && arg[0].kind == TemplatePart::Kind::kData) return a.data;
  if (arg.size() == 1 && arg[0].kind == TemplatePart::Kind::kLiteral) return arg[0].literal;
  scratch->clear();
  char digits[24];
  for (const TemplatePart& p : arg) {
    switch (p.kind) {
      case TemplatePart::Kind::kLiteral: scratch->append(p.literal); break;
      case TemplatePart::Kind::kData: scratch->append(a.data); break;
      case TemplatePart::Kind::kKey:
        scratch->append(key_prefix);
        scratch->append(digits, FormatUint(a.key_index, digits));
        break;
    }
  }
  return *scratch;
}

size_t LongestArg(const TemplateArg& arg, size_t key_prefix_size, uint64_t key_max) {
  size_t n = 0;
  for (const TemplatePart& p : arg) {
    if (p.kind == TemplatePart::Kind::kLiteral) n += p.literal.size();
    if (p.kind == TemplatePart::Kind::kKey) n += key_prefix_size + proto::DecimalSize(key_max);
  }
  return n;
}

bool HasPart(const TemplateArg& arg, TemplatePart::Kind kind) {
  for (const auto& p : arg) {
    if (p.kind == kind) return true;
  }
  return false;
}

}  // namespace memstand

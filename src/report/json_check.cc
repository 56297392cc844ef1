#include "report/json_check.h"

#include <cmath>
#include <cstdlib>
#include <string_view>

#include <fmt/format.h>

namespace memstand {

namespace {

// A kNumber's bound when its rule has none: above any figure memstand writes (rates,
// seconds, CPU seconds), far enough below 2^63 that a conversion to a whole number of
// microseconds cannot overflow.
constexpr double kMaxNumber = 1e12;

const char* Expected(JsonType t) {
  switch (t) {
    case JsonType::kObject: return "an object";
    case JsonType::kArray: return "an array";
    case JsonType::kString: return "a string";
    case JsonType::kBool: return "true or false";
    case JsonType::kUint: return "a whole number >= 0";
    case JsonType::kInt: return "a whole number";
    case JsonType::kNumber: return "a number";
    case JsonType::kNumeric: return "an object of numbers keyed by numbers";
  }
  return "?";
}

bool IsNumberText(const std::string& key) {
  char* end = nullptr;
  const double v = std::strtod(key.c_str(), &end);
  return !key.empty() && end == key.c_str() + key.size() && std::isfinite(v);
}

template <class Json>
bool OfType(const Json& v, JsonType t) {
  switch (t) {
    case JsonType::kObject: return v.is_object();
    case JsonType::kArray: return v.is_array();
    case JsonType::kString: return v.is_string();
    case JsonType::kBool: return v.is_boolean();
    case JsonType::kUint:  // parsed text: unsigned; a document built in memory: either
      return v.is_number_unsigned() || (v.is_number_integer() && v.template get<int64_t>() >= 0);
    case JsonType::kInt: return v.is_number_integer();
    case JsonType::kNumber: return v.is_number() && std::isfinite(v.template get<double>());
    case JsonType::kNumeric:
      if (!v.is_object()) return false;
      for (const auto& [key, value] : v.items()) {
        if (!IsNumberText(key) || !value.is_number()) return false;
      }
      return true;
  }
  return false;
}

template <class Json>
std::string TypeText(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::object: return "an object";
    case Json::value_t::array: return "an array";
    case Json::value_t::string: return "a string";
    case Json::value_t::boolean: return "a boolean";
    case Json::value_t::number_integer: return v.template get<int64_t>() < 0 ? "a negative number" : "a whole number";
    case Json::value_t::number_unsigned: return "a whole number";
    case Json::value_t::number_float: return "a number with a decimal point";
    default: return "not a JSON value";
  }
}

// A key of the document as a message shows it: at most 40 bytes.
std::string KeyText(const std::string& key) { return key.size() > 40 ? key.substr(0, 37) + "..." : key; }

std::string FieldName(const std::string& where) { return where.empty() ? "the document" : "field " + where; }

// Walks `rest` of a rule's path from `v` (found at `where`).
template <class Json>
Status WalkRule(const Json& v, std::string_view rest, const std::string& where, const JsonRule& rule,
                bool null_is_absent) {
  if (rest.empty()) {
    if ((null_is_absent || rule.nullable) && v.is_null()) return Status::OK();
    if (rule.type == JsonType::kNumeric && v.is_object()) {
      for (const auto& [key, value] : v.items()) {
        if (!IsNumberText(key)) return Status::InvalidArgument(fmt::format("field {}: key \"{}\" is not a number", where, KeyText(key)));
        if (!value.is_number()) {
          return Status::InvalidArgument(fmt::format("field {}.{}: {}, expected a number", where, KeyText(key), TypeText(value)));
        }
      }
    }
    if (!OfType(v, rule.type)) {
      return Status::InvalidArgument(
          fmt::format("field {}: {}, expected {}", where, TypeText(v), Expected(rule.type)));
    }
    const double max = rule.max > 0 ? rule.max : rule.type == JsonType::kNumber ? kMaxNumber : 0;
    if (max > 0 && v.is_number() && std::fabs(v.template get<double>()) > max) {
      return Status::InvalidArgument(fmt::format("field {}: {} is out of range (at most {:g})", where,
                                                 v.dump(), max));
    }
    return Status::OK();
  }
  if (rest.substr(0, 2) == "[]" || rest.substr(0, 2) == "{}") {
    const bool array = rest[0] == '[';
    if (array ? !v.is_array() : !v.is_object()) {
      return Status::InvalidArgument(fmt::format("{}: {}, expected {}", FieldName(where), TypeText(v),
                                                 array ? "an array" : "an object"));
    }
    std::string_view next = rest.substr(2);
    if (!next.empty() && next[0] == '.') next.remove_prefix(1);
    size_t i = 0;
    for (const auto& [key, child] : v.items()) {
      const std::string at = array ? fmt::format("{}[{}]", where, i++) : fmt::format("{}.{}", where, KeyText(key));
      Status s = WalkRule(child, next, at, rule, null_is_absent);
      if (!s.ok()) return s;
    }
    return Status::OK();
  }
  const size_t end = rest.find_first_of(".[{");
  const std::string key(rest.substr(0, end));
  std::string_view next = end == std::string_view::npos ? "" : rest.substr(end);
  if (!next.empty() && next[0] == '.') next.remove_prefix(1);
  const std::string at = where.empty() ? key : where + "." + key;
  if (!v.is_object()) {
    return Status::InvalidArgument(fmt::format("{}: {}, expected an object", FieldName(where), TypeText(v)));
  }
  auto it = v.find(key);
  if (it == v.end()) {
    if (rule.required && next.empty()) return Status::InvalidArgument(fmt::format("field {} is missing", at));
    return Status::OK();
  }
  return WalkRule(*it, next, at, rule, null_is_absent);
}

template <class Json>
Status CheckFields(const Json& doc, const JsonRule* rules, size_t n, bool null_is_absent) {
  for (size_t i = 0; i < n; ++i) {
    Status s = WalkRule(doc, rules[i].path, "", rules[i], null_is_absent);
    if (!s.ok()) return s;
  }
  return Status::OK();
}

}  // namespace

std::string JsonTypeText(const nlohmann::ordered_json& v) { return TypeText(v); }
std::string JsonTypeText(const nlohmann::json& v) { return TypeText(v); }

Status CheckJsonFields(const nlohmann::ordered_json& doc, const JsonRule* rules, size_t n, bool null_is_absent) {
  return CheckFields(doc, rules, n, null_is_absent);
}
Status CheckJsonFields(const nlohmann::json& doc, const JsonRule* rules, size_t n, bool null_is_absent) {
  return CheckFields(doc, rules, n, null_is_absent);
}

}  // namespace memstand

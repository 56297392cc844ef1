// Checking the types of a parsed document's fields before any code reads them: a table
// of rules, each a field's path, its type and whether it must be there. A reader that
// uses nlohmann's throwing accessors (value(), get<T>(), operator[]) on a document that
// passed its rules cannot throw or read past a container's end.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "util/status.h"

namespace memstand {

enum class JsonType {
  kObject,
  kArray,
  kString,
  kBool,
  kUint,     // a whole number >= 0 (written as one: 5, not 5.0)
  kInt,      // a whole number
  kNumber,   // any number
  kNumeric,  // an object whose keys are numbers ("99.9") and whose values are numbers
};

/// One field. `path` is dotted from the top ("options.commands"); "[]" stands for every
/// element of an array ("commands[].latency"), "{}" for every member of an object
/// ("series{}[].ops"). A field whose parent is absent is not looked for. `max` bounds a
/// number's magnitude (0: none, but a kNumber's default of 1e12). `nullable`: a null is
/// taken for the field absent (a figure not measured, which its readers show as such).
struct JsonRule {
  const char* path;
  JsonType type;
  bool required = false;
  double max = 0;
  bool nullable = false;
};

/// OK when every field of `doc` that `rules` name is present where required and of its
/// type; else InvalidArgument "field FIELD: TYPE, expected TYPE" (or "field FIELD is
/// missing", "... is above MAX"), FIELD with the indices and keys where it was found
/// ("commands[2].ops").
/// `null_is_absent`: a null where a rule's field is is taken as the field absent (for a
/// reader that shows what is missing rather than refusing it).
Status CheckJsonFields(const nlohmann::ordered_json& doc, const JsonRule* rules, size_t n,
                       bool null_is_absent = false);
Status CheckJsonFields(const nlohmann::json& doc, const JsonRule* rules, size_t n, bool null_is_absent = false);

/// "an object", "a string", ... of the value's type, for messages.
std::string JsonTypeText(const nlohmann::ordered_json& v);
std::string JsonTypeText(const nlohmann::json& v);

}  // namespace memstand

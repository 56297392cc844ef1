#include "report/json_check.h"

#include <iterator>

#include <gtest/gtest.h>

namespace memstand {
namespace {

using Json = nlohmann::ordered_json;

const JsonRule kCheckRules[] = {
    {"a", JsonType::kObject, true},
    {"a.n", JsonType::kUint, false, 10},
    {"a.list", JsonType::kArray},
    {"a.list[]", JsonType::kObject},
    {"a.list[].s", JsonType::kString, true},
    {"m{}[].x", JsonType::kNumber},
    {"p", JsonType::kNumeric},
};

std::string Check(const char* text) {
  Status s = CheckJsonFields(Json::parse(text), kCheckRules, std::size(kCheckRules));
  return s.ok() ? "OK" : s.message();
}

TEST(JsonCheckTest, NamesTheFieldItsTypeAndWhatWasExpected) {
  EXPECT_EQ(Check(R"({"a": {"n": 3, "list": [{"s": "x"}]}, "m": {"k": [{"x": 1.5}]}, "p": {"99.9": 1}})"), "OK");
  EXPECT_EQ(Check(R"({"b": 1})"), "field a is missing");
  EXPECT_EQ(Check(R"({"a": []})"), "field a: an array, expected an object");
  EXPECT_EQ(Check(R"({"a": {"n": -1}})"), "field a.n: a negative number, expected a whole number >= 0");
  EXPECT_EQ(Check(R"({"a": {"n": 1.0}})"), "field a.n: a number with a decimal point, expected a whole number >= 0");
  EXPECT_EQ(Check(R"({"a": {"n": 11}})"), "field a.n: 11 is out of range (at most 10)");
  EXPECT_EQ(Check(R"({"a": {"list": [{"s": "x"}, {}]}})"), "field a.list[1].s is missing");
  EXPECT_EQ(Check(R"({"a": {"list": [{"s": "x"}, 5]}})"), "field a.list[1]: a whole number, expected an object");
  EXPECT_EQ(Check(R"({"a": {}, "m": {"k": [{"x": "1"}]}})"), "field m.k[0].x: a string, expected a number");
  EXPECT_EQ(Check(R"({"a": {}, "m": {"k": [{"x": 1e13}]}})").rfind("field m.k[0].x: ", 0), 0u);
  EXPECT_NE(Check(R"({"a": {}, "m": {"k": [{"x": 1e13}]}})").find("is out of range (at most 1e+12)"), std::string::npos);
  EXPECT_EQ(Check(R"({"a": {}, "m": []})"), "field m: an array, expected an object");
  EXPECT_EQ(Check(R"({"a": {}, "p": {"p99": 1}})"), "field p: key \"p99\" is not a number");
  EXPECT_EQ(Check(R"({"a": {}, "p": {"99": null}})"), "field p.99: null, expected a number");
  EXPECT_EQ(Check(R"([1])"), "the document: an array, expected an object");
}

}  // namespace
}  // namespace memstand

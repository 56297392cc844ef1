#include "report/json_document.h"

#include <unistd.h>

#include <fstream>

#include <gtest/gtest.h>

namespace memstand {
namespace {

std::string Arrays(int levels) { return std::string(levels, '[') + std::string(levels, ']'); }

TEST(JsonDocumentTest, NestingUpToTheBoundIsAcceptedAndOneMoreRefusedWithItsField) {
  EXPECT_TRUE(CheckJsonDepth(Arrays(kMaxJsonDepth)).ok());
  Status s = CheckJsonDepth(Arrays(kMaxJsonDepth + 1));
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(s.message().rfind("nested deeper than 64 levels (at [0][0]", 0), 0u) << s.message();
  s = CheckJsonDepth(R"({"a": 1, "totals": {"x": [1, 2, {"deep": [[[]]]}]}})", 5);
  EXPECT_EQ(s.message(), "nested deeper than 5 levels (at totals.x[2].deep[0])");
}

TEST(JsonDocumentTest, BracketsInsideStringsAndKeysWithEscapesDoNotCount) {
  const std::string in_strings = R"({"k\"[": ")" + std::string(200, '[') + R"(\"[[["})";
  EXPECT_TRUE(CheckJsonDepth(in_strings, 2).ok());
  Status s = CheckJsonDepth(R"({"a\"b": [[1]]})", 2);
  EXPECT_EQ(s.message(), "nested deeper than 2 levels (at a\\\"b[0])");
}

TEST(JsonDocumentTest, ADocumentNested50000DeepIsRefusedNotParsed) {
  const std::string text = "{\"totals\": " + Arrays(50000) + "}";
  auto doc = ParseJsonDocument<nlohmann::ordered_json>("f.json", text);
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.status().message().rfind("f.json: nested deeper than 64 levels (at totals[0]", 0), 0u)
      << doc.status().message().substr(0, 200);
  auto not_json = ParseJsonDocument<nlohmann::json>("g.json", "{\"a\": 1e400}");
  ASSERT_FALSE(not_json.ok());
  EXPECT_EQ(not_json.status().message(), "g.json: not JSON");
}

TEST(JsonDocumentTest, AFileAboveTheBoundIsRefusedBeforeItIsRead) {
  char path[] = "/tmp/memstand-json-document-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, static_cast<off_t>(kMaxDocumentBytes) + 1), 0);  // sparse
  close(fd);
  auto text = ReadDocumentText(path);
  unlink(path);
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.status().message().find("larger than 256 MiB"), std::string::npos) << text.status().message();
}

}  // namespace
}  // namespace memstand

#include "util/csv.h"

#include <gtest/gtest.h>

namespace memstand {
namespace {

using Records = std::vector<std::vector<std::string>>;

TEST(CsvTest, ParseReadsWhatCsvFieldWrites) {
  const std::string text =
      CsvField("a,b") + "," + CsvField("say \"hi\"") + "," + CsvField("x\ny") + "\n" + "1,,3\r\n";
  EXPECT_EQ(ParseCsv(text), (Records{{"a,b", "say \"hi\"", "x\ny"}, {"1", "", "3"}}));
}

TEST(CsvTest, ParseWithoutFinalLineEndAndEmpty) {
  EXPECT_EQ(ParseCsv("h1,h2\nv1,v2"), (Records{{"h1", "h2"}, {"v1", "v2"}}));
  EXPECT_EQ(ParseCsv(""), Records{});
  EXPECT_EQ(ParseCsv("\"unclosed,x"), (Records{{"unclosed,x"}}));
}

}  // namespace
}  // namespace memstand

#include "util/terminal_text.h"

#include <gtest/gtest.h>

namespace memstand {
namespace {

TEST(TerminalTextTest, EscapesControlCharactersButKeepsNewlinesTabsAndUtf8) {
  EXPECT_EQ(TerminalSafe("host\x1b]0;TITLE\x07 x"), "host\\x1b]0;TITLE\\x07 x");
  EXPECT_EQ(TerminalSafe("\x1b[31mred"), "\\x1b[31mred");
  EXPECT_EQ(TerminalSafe("a\r\nb\tc\x7f"), "a\\x0d\nb\tc\\x7f");
  EXPECT_EQ(TerminalSafe(std::string_view("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(TerminalSafe("p99 µs — ok"), "p99 µs — ok");
  EXPECT_EQ(TerminalSafe("back\\slash"), "back\\slash");
}

TEST(TerminalTextTest, EscapesC1ControlsAndInvalidUtf8) {
  EXPECT_EQ(TerminalSafe("\xc2\x9b" "31m"), "\\u009b31m");  // CSI as UTF-8
  EXPECT_EQ(TerminalSafe("\x9b" "31m"), "\\x9b31m");        // CSI as a lone byte
  EXPECT_EQ(TerminalSafe("\xe2\x82"), "\\xe2\\x82");         // cut short
  EXPECT_EQ(TerminalSafe("\xc0\xaf"), "\\xc0\\xaf");         // overlong
  EXPECT_EQ(TerminalSafe("\xed\xa0\x80"), "\\xed\\xa0\\x80"); // a surrogate
  EXPECT_EQ(TerminalSafe("\xf0\x9f\x98\x80"), "\xf0\x9f\x98\x80");
}

}  // namespace
}  // namespace memstand

// Text from a file memstand did not write itself this run (an input JSON's host name,
// versions, option values, error examples) made safe to print on a terminal: control
// characters cannot move the cursor, set the title or colour the rest of the screen.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace memstand {

/// `text` with every control character but newline and tab written as a visible escape:
/// C0 controls and DEL as "\x1b" (ESC), "\r" as "\x0d"; the C1 controls U+0080..U+009F
/// (UTF-8 C2 80..C2 9F) as "\u009b"; a byte that is not part of valid UTF-8 as "\xNN".
/// A backslash stays a backslash. Valid UTF-8 ("µs", "—") passes unchanged.
std::string TerminalSafe(std::string_view text);

/// The length of the valid UTF-8 sequence of 2..4 bytes at text[i] (no overlong form, no
/// surrogate, at most U+10FFFF), or 0 when there is none. REQUIRES: i < text.size().
size_t Utf8Length(std::string_view text, size_t i);

}  // namespace memstand

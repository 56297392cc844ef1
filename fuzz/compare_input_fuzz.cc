// libFuzzer target: `memstand compare`'s reader and everything it prints: the depth
// bound, the parse, ReadCompareSide, Compare against itself, the text (made terminal-safe:
// no control character may survive), the JSON and the report page's section of it.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "report/compare.h"
#include "report/json_document.h"
#include "util/terminal_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto doc = memstand::ParseJsonDocument<nlohmann::json>("a.json", text);
  if (!doc.ok()) return 0;
  auto a = memstand::ReadCompareSide("a.json", *doc);
  if (!a.ok()) {
    if (a.status().message().rfind("a.json: ", 0) != 0) __builtin_trap();
  } else {
    auto b = memstand::ReadCompareSide("b.json", *doc);
    if (!b.ok()) __builtin_trap();
    const memstand::Comparison c = memstand::Compare(std::move(*a), std::move(*b));
    const std::string shown = memstand::TerminalSafe(memstand::CompareText(c));
    for (unsigned char ch : shown) {
      if ((ch < 0x20 && ch != '\n' && ch != '\t') || ch == 0x7f) __builtin_trap();
    }
    (void)memstand::CompareJson(c).dump();
  }
  (void)memstand::CompareSection("c.json", *doc);  // a memstand.compare document's page section
  return 0;
}

// libFuzzer target: the IPROTO response reader (both modes, whole and split), each
// reply's IPROTO_DATA read as a CALL's results (call_error.h), the MessagePack Value
// decoder and the greeting parser.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "proto/iproto/call_error.h"
#include "proto/iproto/greeting.h"
#include "proto/iproto/iproto.h"
#include "proto/iproto/value.h"
#include "util/terminal_text.h"

namespace {

using memstand::iproto::Reader;

// Printable, valid UTF-8 and bounded, as FormatCallError promises: else a trap.
void CheckCallText(const std::string& text, size_t max) {
  if (text.size() > max + 3) __builtin_trap();
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f) __builtin_trap();
    if (c < 0x80) {
      ++i;
      continue;
    }
    const size_t n = memstand::Utf8Length(text, i);
    if (n == 0 || (c == 0xc2 && static_cast<unsigned char>(text[i + 1]) < 0xa0)) __builtin_trap();
    i += n;
  }
}

// The reply's IPROTO_DATA read as a CALL's results in both modes that read it.
std::string CallErrors(const memstand::iproto::Summary& s) {
  using memstand::iproto::CallErrors;
  std::string out;
  for (CallErrors mode : {CallErrors::kAuto, CallErrors::kSecondValue}) {
    memstand::iproto::CallError e;
    if (!memstand::iproto::FindCallError(s.data, mode, &e)) {
      out += " ok";
      continue;
    }
    std::string kind, message;
    memstand::iproto::FormatCallError(e, &kind, &message);
    CheckCallText(kind, 6 + memstand::iproto::kCallKindTextMax);
    CheckCallText(message, memstand::iproto::kCallMessageMax);
    out += " [" + kind + "] " + message;
  }
  return out;
}

std::string Dump(Reader* r, Reader::Mode mode) {
  const auto& s = r->summary();
  std::string out = std::to_string(s.sync) + " " + std::to_string(s.status) + " " + s.error + " " +
                    s.error_type + " " + std::to_string(s.data_count) + " " +
                    std::to_string(s.wire_bytes) + CallErrors(s);
  if (mode == Reader::Mode::kFull) out += " " + memstand::iproto::ToString(r->TakeData());
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Reader::Limits limits;
  limits.max_packet = 1 << 20;
  for (Reader::Mode mode : {Reader::Mode::kSummary, Reader::Mode::kFull}) {
    memstand::fuzz::CheckSplitInvariant(
        data, size, [mode, limits] { return Reader(mode, limits); },
        [mode](Reader* r) { return Dump(r, mode); });
  }
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  while (!bytes.empty()) {
    auto v = memstand::iproto::Decode(&bytes);
    if (!v.ok()) break;
    // What decodes must encode back to a value that decodes the same.
    std::string again = memstand::iproto::Encode(*v);
    std::string_view view = again;
    auto back = memstand::iproto::Decode(&view);
    if (!back.ok() || !view.empty() ||
        memstand::iproto::ToString(*back) != memstand::iproto::ToString(*v)) {
      __builtin_trap();
    }
  }
  if (size >= 1 + memstand::iproto::kGreetingSize) {  // after the split seed byte
    auto g = memstand::iproto::ParseGreeting(
        std::string_view(reinterpret_cast<const char*>(data) + 1, memstand::iproto::kGreetingSize));
    if (g.ok() && g->salt.size() < memstand::iproto::kScrambleSize) __builtin_trap();
  }
  return 0;
}

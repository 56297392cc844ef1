// libFuzzer target: the IPROTO response reader (both modes, whole and split), the
// MessagePack Value decoder and the greeting parser.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "proto/iproto/greeting.h"
#include "proto/iproto/iproto.h"
#include "proto/iproto/value.h"

namespace {

using memstand::iproto::Reader;

std::string Dump(Reader* r, Reader::Mode mode) {
  const auto& s = r->summary();
  std::string out = std::to_string(s.sync) + " " + std::to_string(s.status) + " " + s.error + " " +
                    s.error_type + " " + std::to_string(s.data_count) + " " +
                    std::to_string(s.wire_bytes);
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

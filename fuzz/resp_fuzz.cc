// libFuzzer target: the RESP2/RESP3 reader, in both modes, whole and split.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "proto/resp/resp.h"

namespace {

using memstand::resp::Reader;

Reader::Limits SmallLimits() {
  Reader::Limits l;
  l.max_bulk = 1 << 20;
  l.max_elements = 1 << 16;
  return l;
}

std::string Dump(Reader* r, Reader::Mode mode) {
  const auto& s = r->summary();
  std::string out = std::to_string(static_cast<int>(s.type)) + " " + std::to_string(s.integer) +
                    " " + s.error + " " + std::to_string(s.wire_bytes);
  if (mode == Reader::Mode::kFull) out += " " + r->TakeReply().str;
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  for (Reader::Mode mode : {Reader::Mode::kSummary, Reader::Mode::kFull}) {
    memstand::fuzz::CheckSplitInvariant(
        data, size, [mode] { return Reader(mode, SmallLimits()); },
        [mode](Reader* r) { return Dump(r, mode); });
  }
  return 0;
}

// libFuzzer target: the memcached text reply reader, in both modes, whole and split.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "proto/memcache/memcache.h"

namespace {

using memstand::memcache::Reader;

std::string Dump(Reader* r, Reader::Mode mode) {
  const auto& s = r->summary();
  std::string out = std::string(memstand::memcache::KindName(s.kind)) + " " +
                    std::to_string(s.values) + " " + std::to_string(s.value_bytes) + " " +
                    std::to_string(s.number) + " " + s.error + " " + std::to_string(s.wire_bytes);
  if (mode == Reader::Mode::kFull) {
    memstand::memcache::Reply reply = r->TakeReply();
    for (const auto& v : reply.values) out += " " + v.key + "=" + v.data;
    for (const auto& [k, v] : reply.stats) out += " " + k + ":" + v;
    out += " " + reply.text;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Reader::Limits limits;
  limits.max_value = 1 << 20;
  for (Reader::Mode mode : {Reader::Mode::kSummary, Reader::Mode::kFull}) {
    memstand::fuzz::CheckSplitInvariant(
        data, size, [mode, limits] { return Reader(mode, limits); },
        [mode](Reader* r) { return Dump(r, mode); });
  }
  return 0;
}

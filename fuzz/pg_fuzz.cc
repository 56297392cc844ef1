// libFuzzer target: the PostgreSQL backend message reader, in both phases, whole and split.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "proto/pg/pg.h"

namespace {

using memstand::pg::Reader;

std::string Dump(Reader* r) {
  memstand::pg::Reply reply = r->TakeReply();
  std::string out = reply.tag + " " + std::to_string(reply.messages) + " " + reply.error;
  for (const auto& row : reply.rows) {
    out += " |";
    for (const std::string& f : row) out += f + ";";
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Reader::Limits limits;
  limits.max_message = 1 << 20;
  for (Reader::Phase phase : {Reader::Phase::kStartup, Reader::Phase::kQuery}) {
    memstand::fuzz::CheckSplitInvariant(
        data, size, [phase, limits] { return Reader(phase, limits); }, Dump);
  }
  return 0;
}

// libFuzzer target: the HTTP/1.1 response reader (whole and split) and the etcd JSON
// reply decoder on every body it frames.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "proto/etcd/etcd.h"
#include "proto/etcd/http.h"

namespace {

using memstand::http::ResponseReader;

std::string Dump(ResponseReader* r) {
  const auto& resp = r->response();
  auto decoded = memstand::etcd::DecodeReply(resp.status, resp.body, true);
  std::string out = std::to_string(resp.status) + " " + std::to_string(resp.keep_alive) + " " +
                    std::to_string(resp.wire_bytes) + " " + resp.body;
  if (decoded.ok()) {
    out += " ok=" + std::to_string(decoded->ok) + " rev=" + std::to_string(decoded->revision) +
           " " + decoded->error;
  } else {
    out += " " + decoded.status().message();
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ResponseReader::Limits limits;
  limits.max_body = 1 << 20;
  memstand::fuzz::CheckSplitInvariant(
      data, size, [limits] { return ResponseReader(limits); }, Dump);
  return 0;
}

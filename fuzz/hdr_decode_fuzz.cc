// libFuzzer target: the decoder of HdrHistogram's "V2 compressed" base64 encoding, which
// reads the histograms of run JSONs (`memstand merge`) and of .hlog lines. The input is
// [mode][min: 8 bytes][max: 8 bytes][rest]: mode even, `rest` is the base64 text as given;
// mode odd, `rest` is the V2 encoding itself, compressed and wrapped here, so the fuzzer
// reaches the header and the counts past zlib. A decoded histogram must hold its counts.
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "stats/hdr_decode.h"
#include "util/base64.h"

namespace {

void PutBigEndian(uint32_t v, std::string* out) {
  for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<char>((v >> shift) & 0xff));
}

// `v2` compressed and wrapped as EncodeCompressedV2Base64 writes it.
std::string Wrap(std::string_view v2) {
  uLongf size = compressBound(v2.size());
  std::string z(size, '\0');
  if (compress(reinterpret_cast<Bytef*>(z.data()), &size, reinterpret_cast<const Bytef*>(v2.data()),
               v2.size()) != Z_OK) {
    return "";
  }
  z.resize(size);
  std::string wrapped;
  PutBigEndian(memstand::kHdrV2CompressedEncodingCookie, &wrapped);
  PutBigEndian(static_cast<uint32_t>(z.size()), &wrapped);
  return memstand::Base64Encode(wrapped + z);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 17) return 0;
  int64_t min = 0, max = 0;
  std::memcpy(&min, data + 1, 8);
  std::memcpy(&max, data + 9, 8);
  const std::string_view rest(reinterpret_cast<const char*>(data) + 17, size - 17);
  const std::string b64 = data[0] % 2 == 0 ? std::string(rest) : Wrap(rest);
  auto h = memstand::DecodeCompressedV2Base64(b64, min, max);
  if (!h.ok()) {
    if (h.status().message().rfind("histogram: ", 0) != 0) __builtin_trap();
    return 0;
  }
  if (h->total_count() < 0) __builtin_trap();
  if (h->total_count() > 0 && (h->min() != min || h->max() != max)) __builtin_trap();
  return 0;
}

#include "stats/encoded_histogram.h"

#include "stats/hdr_decode.h"
#include "stats/hdr_log.h"

namespace memstand {

EncodedHistogram EncodeHistogram(const HdrHistogram& h) {
  return {h.total_count(), h.min(), h.max(), EncodeCompressedV2Base64(h)};
}

Result<HdrHistogram> DecodeHistogram(const EncodedHistogram& e) {
  if (e.v2_base64.empty()) return Status::InvalidArgument("histogram: no data");
  auto h = DecodeCompressedV2Base64(e.v2_base64, e.min, e.max);
  if (!h.ok()) return h.status();
  if (h->total_count() != e.count) {
    return Status::InvalidArgument("histogram: count " + std::to_string(e.count) +
                                   " but the data hold " + std::to_string(h->total_count()));
  }
  return h;
}

}  // namespace memstand

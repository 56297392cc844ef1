#include "report/histogram_json.h"

#include <string>

#include "stats/hdr_decode.h"
#include "stats/hdr_log.h"

namespace memstand {

namespace {

constexpr const char* kEncoding = "hdr-v2-compressed-base64";

}  // namespace

nlohmann::ordered_json HistogramSettingsJson(const HdrHistogram& h) {
  return {{"encoding", kEncoding},
          {"unit", "ns"},
          {"lowest_discernible", h.lowest_discernible()},
          {"highest_trackable", h.highest_trackable()},
          {"significant_figures", h.significant_figures()}};
}

nlohmann::ordered_json HistogramJson(const HdrHistogram& h) {
  nlohmann::ordered_json j = HistogramSettingsJson(h);
  j["count"] = h.total_count();
  j["min"] = h.min();
  j["max"] = h.max();
  j["saturated"] = h.saturated();
  j["data"] = EncodeCompressedV2Base64(h);
  return j;
}

Result<HdrHistogram> HistogramFromJson(const nlohmann::ordered_json& j) {
  for (const char* key : {"encoding", "count", "min", "max", "data"}) {
    if (!j.is_object() || !j.contains(key)) {
      return Status::InvalidArgument(std::string("histogram: no \"") + key + "\"");
    }
  }
  if (!j["encoding"].is_string() || j["encoding"].get<std::string>() != kEncoding) {
    return Status::InvalidArgument(std::string("histogram: encoding is not ") + kEncoding);
  }
  if (!j["data"].is_string() || !j["min"].is_number_integer() || !j["max"].is_number_integer() ||
      !j["count"].is_number_integer()) {
    return Status::InvalidArgument("histogram: data must be a string, count/min/max integers");
  }
  auto h = DecodeCompressedV2Base64(j["data"].get<std::string>(), j["min"].get<int64_t>(),
                                    j["max"].get<int64_t>());
  if (!h.ok()) return h.status();
  if (h->total_count() != j["count"].get<int64_t>()) {
    return Status::InvalidArgument("histogram: count " + std::to_string(j["count"].get<int64_t>()) +
                                   " but the data hold " + std::to_string(h->total_count()));
  }
  return h;
}

}  // namespace memstand

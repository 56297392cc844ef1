#include "report/histogram_json.h"

#include <string>

#include "stats/encoded_histogram.h"
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
  return DecodeHistogram({j["count"].get<int64_t>(), j["min"].get<int64_t>(),
                          j["max"].get<int64_t>(), j["data"].get<std::string>()});
}

nlohmann::ordered_json IntervalHistogramJson(const EncodedHistogram& e) {
  return {{"count", e.count}, {"min", e.min}, {"max", e.max}, {"data", e.v2_base64}};
}

Result<EncodedHistogram> IntervalHistogramFromJson(const nlohmann::ordered_json& j) {
  for (const char* key : {"count", "min", "max"}) {
    if (!j.is_object() || !j.contains(key) || !j[key].is_number_integer()) {
      return Status::InvalidArgument(std::string("per-second histogram: \"") + key +
                                     "\" is not an integer");
    }
  }
  if (!j.contains("data") || !j["data"].is_string()) {
    return Status::InvalidArgument("per-second histogram: \"data\" is not a string");
  }
  return EncodedHistogram{j["count"].get<int64_t>(), j["min"].get<int64_t>(),
                          j["max"].get<int64_t>(), j["data"].get<std::string>()};
}

}  // namespace memstand

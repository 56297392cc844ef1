#include "report/json_parts.h"

#include <fmt/format.h>

namespace memstand {

using Json = nlohmann::ordered_json;

Json PlatformJson(const Platform& p) {
  return {{"kernel", p.kernel},
          {"arch", p.arch},
          {"hostname", p.hostname},
          {"cpu_model", p.cpu_model},
          {"cpus", p.cpus},
          {"hypervisor", p.hypervisor},
          {"memory_bytes", p.memory_bytes},
          {"clock_resolution_ns", p.clock_resolution_ns}};
}

Json LatencyJson(const HdrHistogram& h, const std::vector<double>& percentiles) {
  Json j;
  j["count"] = h.total_count();
  j["min_us"] = h.min() / 1000.0;
  j["mean_us"] = h.mean() / 1000.0;
  j["max_us"] = h.max() / 1000.0;
  Json p = Json::object();
  for (double q : percentiles) p[fmt::format("{:g}", q)] = h.ValueAtPercentile(q) / 1000.0;
  j["percentiles_us"] = p;
  return j;
}

}  // namespace memstand

#include "report/samples_csv.h"

#include <iterator>

#include <fmt/format.h>

#include "util/csv.h"

namespace memstand {

Status WriteSamplesCsv(OutputFile* out, const std::vector<Sample>& samples,
                       const std::vector<std::string>& labels) {
  std::vector<std::string> fields;
  for (const std::string& label : labels) fields.push_back(CsvField(label));
  fmt::memory_buffer buf;
  fmt::format_to(std::back_inserter(buf), "{}\n", kSamplesCsvHeader);
  for (const Sample& s : samples) {
    fmt::format_to(std::back_inserter(buf), "{},{},{}\n", s.time_ns, fields[s.command],
                   s.latency_ns);
    if (buf.size() >= (1 << 20)) {
      Status w = out->Write({buf.data(), buf.size()});
      if (!w.ok()) return w;
      buf.clear();
    }
  }
  return out->Write({buf.data(), buf.size()});
}

}  // namespace memstand

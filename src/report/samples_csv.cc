#include "report/samples_csv.h"

#include <fmt/format.h>

#include <cstdio>
#include <iterator>
#include <memory>

namespace memstand {

std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

Status WriteSamplesCsv(const std::string& path, const std::vector<Sample>& samples,
                       const std::vector<std::string>& labels) {
  struct Closer {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  std::unique_ptr<std::FILE, Closer> f(std::fopen(path.c_str(), "w"));
  if (!f) return Status::IoError("--samples: cannot write '" + path + "'");
  std::vector<std::string> fields;
  for (const std::string& label : labels) fields.push_back(CsvField(label));
  fmt::memory_buffer buf;
  fmt::format_to(std::back_inserter(buf), "{}\n", kSamplesCsvHeader);
  bool ok = true;
  for (const Sample& s : samples) {
    fmt::format_to(std::back_inserter(buf), "{},{},{}\n", s.time_ns, fields[s.command],
                   s.latency_ns);
    if (buf.size() >= (1 << 20)) {
      ok = ok && std::fwrite(buf.data(), 1, buf.size(), f.get()) == buf.size();
      buf.clear();
    }
  }
  ok = ok && std::fwrite(buf.data(), 1, buf.size(), f.get()) == buf.size();
  ok = std::fclose(f.release()) == 0 && ok;
  if (!ok) return Status::IoError("--samples: writing '" + path + "' failed");
  return Status::OK();
}

}  // namespace memstand

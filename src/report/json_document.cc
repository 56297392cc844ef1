#include "report/json_document.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace memstand {

Result<std::string> ReadDocumentText(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return Status::InvalidArgument(path + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return Status::InvalidArgument(path + ": not a regular file");
  if (static_cast<uint64_t>(st.st_size) > kMaxDocumentBytes) {
    return Status::InvalidArgument(fmt::format("{}: larger than {} MiB (a document takes ~4.4 times its size in memory)",
                                               path, kMaxDocumentBytes >> 20));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::InvalidArgument(path + ": cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace memstand

#include "report/json_document.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace memstand {

namespace {

constexpr off_t kMaxInputBytes = off_t{1} << 30;  // a run document is megabytes at most

}  // namespace

Result<std::string> ReadDocumentText(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return Status::InvalidArgument(path + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return Status::InvalidArgument(path + ": not a regular file");
  if (st.st_size > kMaxInputBytes) return Status::InvalidArgument(path + ": larger than 1 GiB");
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::InvalidArgument(path + ": cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace memstand

#include "stand/proc_stats.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

namespace memstand {
namespace {

std::string ProcPath(pid_t pid, const char* file) {
  return "/proc/" + (pid == 0 ? std::string("self") : std::to_string(pid)) + "/" + file;
}

// Reads a whole (small) /proc file. NotFound if the process does not exist.
Result<std::string> ReadProcFile(pid_t pid, const char* file) {
  std::string path = ProcPath(pid, file);
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    if (err == ENOENT || err == ESRCH) return Status::NotFound("no process " + std::to_string(pid));
    return Status::IoError(path + ": " + std::strerror(err));
  }
  std::string text;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR)) {
    if (n > 0) text.append(buf, static_cast<size_t>(n));
  }
  int err = errno;
  close(fd);
  // A process that exits between the open and the read is gone too (ESRCH).
  if (n < 0 && err == ESRCH) return Status::NotFound("no process " + std::to_string(pid));
  if (n < 0) return Status::IoError(path + ": " + std::strerror(err));
  return text;
}

// The fields of /proc/PID/stat after "(comm)", which may itself hold spaces and
// parentheses: fields[0] is field 3 (state) of proc(5).
std::vector<std::string> StatFieldsAfterComm(const std::string& stat) {
  std::vector<std::string> fields;
  size_t close = stat.rfind(')');
  if (close == std::string::npos) return fields;
  std::istringstream rest(stat.substr(close + 1));
  std::string field;
  while (rest >> field) fields.push_back(field);
  return fields;
}

Status ParseStat(const std::string& stat, ProcSample* out) {
  // proc(5) numbering: utime is field 14, stime 15, rss 24 (in pages).
  constexpr size_t kUtime = 14 - 3, kStime = 15 - 3, kRss = 24 - 3;
  std::vector<std::string> f = StatFieldsAfterComm(stat);
  if (f.size() <= kRss) return Status::Protocol("cannot parse /proc/PID/stat: " + stat);
  static const double kTick = static_cast<double>(sysconf(_SC_CLK_TCK));
  static const int64_t kPage = sysconf(_SC_PAGESIZE);
  out->user_sec = std::strtod(f[kUtime].c_str(), nullptr) / kTick;
  out->sys_sec = std::strtod(f[kStime].c_str(), nullptr) / kTick;
  out->rss_bytes = std::strtoll(f[kRss].c_str(), nullptr, 10) * kPage;
  return Status::OK();
}

// Fills read_bytes / write_bytes from /proc/PID/io; leaves -1 where unreadable.
void ParseIo(const std::string& io, ProcSample* out) {
  std::istringstream lines(io);
  std::string key;
  int64_t value = 0;
  while (lines >> key >> value) {
    if (key == "read_bytes:") out->read_bytes = value;
    if (key == "write_bytes:") out->write_bytes = value;
  }
}

}  // namespace

Result<ProcSample> ReadProcSample(pid_t pid) {
  auto stat = ReadProcFile(pid, "stat");
  if (!stat.ok()) return stat.status();
  ProcSample sample;
  if (Status s = ParseStat(*stat, &sample); !s.ok()) return s;
  if (auto io = ReadProcFile(pid, "io"); io.ok()) ParseIo(*io, &sample);
  return sample;
}

CpuTimes SelfCpu() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto seconds = [](const timeval& tv) { return tv.tv_sec + tv.tv_usec / 1e6; };
  return CpuTimes{seconds(ru.ru_utime), seconds(ru.ru_stime)};
}

}  // namespace memstand

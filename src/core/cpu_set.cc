#include "core/cpu_set.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

namespace memstand {
namespace {

constexpr char kCpuListForm[] = "a CPU list: numbers and ranges separated by commas, e.g. 0, 0-3, 0,2-3";

Status BadCpuList(std::string_view text, const std::string& why) {
  return Status::InvalidArgument("bad CPU list '" + std::string(text) + "': " + why + " (" + kCpuListForm + ")");
}

// A CPU number: digits only, at most kMaxCpu. -1 if it is not one.
int CpuNumber(std::string_view digits) {
  if (digits.empty() || digits.size() > 4) return -1;
  int n = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return -1;
    n = n * 10 + (c - '0');
  }
  return n <= kMaxCpu ? n : -1;
}

// One element of a list: "N" or "LOW-HIGH", appended to *cpus.
Status AddCpuRange(std::string_view text, std::string_view part, CpuList* cpus) {
  const size_t dash = part.find('-');
  const std::string_view low_text = part.substr(0, dash);
  const std::string_view high_text = dash == std::string_view::npos ? low_text : part.substr(dash + 1);
  const int low = CpuNumber(low_text), high = CpuNumber(high_text);
  if (low < 0 || high < 0) {
    return BadCpuList(text, "'" + std::string(part) + "' is not a CPU number 0.." + std::to_string(kMaxCpu) +
                                " or a range of them");
  }
  if (low > high) return BadCpuList(text, "range '" + std::string(part) + "' ends below its start");
  for (int cpu = low; cpu <= high; ++cpu) cpus->push_back(cpu);
  return Status::OK();
}

cpu_set_t ToCpuSet(const CpuList& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : cpus) CPU_SET(cpu, &set);
  return set;
}

CpuList FromCpuSet(const cpu_set_t& set) {
  CpuList cpus;
  for (int cpu = 0; cpu <= kMaxCpu; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return cpus;
}

}  // namespace

Result<CpuList> ParseCpuList(std::string_view text) {
  if (text.empty()) return BadCpuList(text, "empty");
  CpuList cpus;
  size_t start = 0;
  for (;;) {
    const size_t comma = text.find(',', start);
    const std::string_view part = text.substr(start, comma == std::string_view::npos ? text.npos : comma - start);
    if (part.empty()) return BadCpuList(text, "an empty element");
    if (Status s = AddCpuRange(text, part, &cpus); !s.ok()) return s;
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  std::sort(cpus.begin(), cpus.end());
  auto twice = std::adjacent_find(cpus.begin(), cpus.end());
  if (twice != cpus.end()) return BadCpuList(text, "CPU " + std::to_string(*twice) + " is named twice");
  return cpus;
}

std::string CpuListText(const CpuList& cpus) {
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus[i]);
    if (j > i) out += '-' + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

Result<CpuList> OnlineCpus() {
  std::ifstream in("/sys/devices/system/cpu/online");
  std::string line;
  if (in && std::getline(in, line)) {
    auto cpus = ParseCpuList(line);
    if (cpus.ok()) return cpus;
  }
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  if (n < 1) return Status::IoError("cannot tell which CPUs are online (/sys/devices/system/cpu/online, sysconf)");
  CpuList cpus;
  for (long cpu = 0; cpu < n && cpu <= kMaxCpu; ++cpu) cpus.push_back(static_cast<int>(cpu));
  return cpus;
}

Result<CpuList> ParseOnlineCpuList(std::string_view text, std::string_view flag) {
  auto cpus = ParseCpuList(text);
  if (!cpus.ok()) return cpus.status().WithContext(std::string(flag));
  auto online = OnlineCpus();
  if (!online.ok()) return online.status().WithContext(std::string(flag));
  for (int cpu : *cpus) {
    if (!std::binary_search(online->begin(), online->end(), cpu)) {
      return Status::InvalidArgument(std::string(flag) + " " + std::string(text) + ": CPU " + std::to_string(cpu) +
                                     " is not online on this machine (online: " + CpuListText(*online) + ")");
    }
  }
  return cpus;
}

Status PinThisThread(const CpuList& cpus) {
  const cpu_set_t set = ToCpuSet(cpus);
  if (sched_setaffinity(0, sizeof(set), &set) == 0) return Status::OK();
  const int err = errno;
  return Status::IoError("cannot pin a thread to CPUs " + CpuListText(cpus) + ": " + std::strerror(err) +
                         (err == EINVAL ? " (none of them is allowed to this process, e.g. by a cgroup's cpuset)" : ""));
}

Result<CpuList> ThisThreadCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) {
    return Status::IoError(std::string("sched_getaffinity: ") + std::strerror(errno));
  }
  return FromCpuSet(set);
}

Result<CpuList> ProcessCpus(pid_t pid) {
  const std::string path = "/proc/" + std::to_string(pid) + "/status";
  std::ifstream in(path);
  if (!in) return Status::NotFound(path + ": no such process");
  std::string line;
  constexpr std::string_view kField = "Cpus_allowed_list:";
  while (std::getline(in, line)) {
    if (!line.starts_with(kField)) continue;
    std::string_view value(line);
    value.remove_prefix(kField.size());
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    auto cpus = ParseCpuList(value);
    if (!cpus.ok()) return cpus.status().WithContext(path);
    return cpus;
  }
  return Status::NotFound(path + ": no Cpus_allowed_list (the process is gone)");
}

CpuList CpuUnion(const CpuList& a, const CpuList& b) {
  CpuList out;
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

CpuList CpuDifference(const CpuList& a, const CpuList& b) {
  CpuList out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

ScopedThreadCpus::ScopedThreadCpus(const CpuList& cpus) {
  auto before = ThisThreadCpus();
  if (!before.ok() || cpus.empty()) return;
  before_ = std::move(*before);
  ok_ = PinThisThread(cpus).ok();
}

ScopedThreadCpus::~ScopedThreadCpus() {
  if (ok_) (void)PinThisThread(before_);  // CPUs it had a moment ago: refused only if a cgroup changed meanwhile
}

CpuList ConfineOutside(const CpuList& reserved, std::optional<ScopedThreadCpus>* apart) {
  if (reserved.empty()) return {};
  auto mine = ThisThreadCpus();
  if (!mine.ok()) return {};
  CpuList rest = CpuDifference(*mine, reserved);
  if (rest.empty()) return {};
  apart->emplace(rest);
  if ((*apart)->ok()) return rest;
  apart->reset();
  return {};
}

}  // namespace memstand

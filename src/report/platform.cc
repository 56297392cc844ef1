#include "report/platform.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "core/clock.h"

namespace memstand {

namespace {

void ReadCpuInfo(Platform* p) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (p->cpu_model.empty() && line.rfind("model name", 0) == 0) {
      size_t colon = line.find(':');
      if (colon != std::string::npos) p->cpu_model = line.substr(colon + 2);
    }
    if (line.rfind("flags", 0) == 0 && line.find(" hypervisor") != std::string::npos) {
      p->hypervisor = true;
    }
  }
}

}  // namespace

Platform Platform::Detect() {
  Platform p;
  utsname u;
  if (uname(&u) == 0) {
    p.kernel = std::string(u.sysname) + " " + u.release;
    p.arch = u.machine;
    p.hostname = u.nodename;
  }
  p.cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  p.memory_bytes = static_cast<int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE);
  p.clock_resolution_ns = ClockResolutionNs();
  ReadCpuInfo(&p);
  return p;
}

std::string Platform::Describe() const {
  return fmt::format("{} {}, {} CPUs ({}), {}, {:.1f} GiB", kernel, arch, cpus,
                     cpu_model.empty() ? "unknown model" : cpu_model,
                     hypervisor ? "virtual machine" : "no hypervisor flag",
                     memory_bytes / double(1LL << 30));
}

}  // namespace memstand

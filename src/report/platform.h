// Facts about the machine a run measured, printed beside every absolute time
// (docs/method.md rule 1: absolute times describe the platform).
#pragma once

#include <cstdint>
#include <string>

namespace memstand {

struct Platform {
  std::string kernel;     // uname -sr
  std::string arch;       // uname -m
  std::string hostname;
  std::string cpu_model;  // /proc/cpuinfo "model name"
  int cpus = 0;           // online CPUs
  bool hypervisor = false;  // the CPU flags say we run in a virtual machine
  int64_t memory_bytes = 0;
  int64_t clock_resolution_ns = 0;

  static Platform Detect();
  /// "Linux 6.1 x86_64, 2 CPUs (model), virtual machine, 24.0 GiB".
  std::string Describe() const;
};

}  // namespace memstand

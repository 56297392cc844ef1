// The report of `memstand run`: numbered text blocks for people, JSON for programs
// (schema in docs/json-format.md). Both read the same RunReport.
#pragma once

#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "load/engine.h"
#include "load/load_options.h"
#include "report/platform.h"
#include "report/validity.h"
#include "stand/resource_sampler.h"

namespace memstand {

struct RunReport {
  const LoadOptions* options = nullptr;
  const RunResult* result = nullptr;
  Platform platform;
  bool server_started = false;  // memstand started (and stopped) the server
  int server_pid = 0;           // its pid, when server_started
  bool server_proc_known = false;  // /proc/PID/stat CPU delta of a server memstand started
  double server_proc_cpu_s = 0;    // (clock-tick resolution, 10 ms)
  std::string server_note;      // how the server was started, or "given by the user"
  /// Per-second CPU, RSS and storage I/O of the processes memstand watched over the
  /// run: the server it started, and itself (issue #4, docs/method.md rule 18).
  std::vector<ResourceSeries> resources;
  /// The statistics' own verdict (report/validity.h), computed once the run ended.
  Validity validity;
  int exit_code = 0;
  std::string verdict;          // "OK", "FAILED: ...", "INTERRUPTED"
  std::vector<std::string> warnings;
  std::string samples_path;     // --samples: the CSV holding result->samples
};

/// Open loop: a run whose achieved rate is below this share of --rate is flagged.
inline constexpr double kRateShortfall = 0.99;

/// Open loop: measured requests sent per second of the schedule they were sent over,
/// measured_sent / (send_span_s + 1 / rate): equal to the rate when every request
/// leaves on time, whatever the replies' latency. 0 in the closed loop.
double AchievedRate(const LoadOptions& o, const RunResult& r);
/// Open loop and the achieved rate is below kRateShortfall x the requested one.
bool RateFellShort(const LoadOptions& o, const RunResult& r);

/// The JSON schema version; bump on any incompatible change.
inline constexpr int kRunJsonVersion = 1;

void PrintTextReport(std::FILE* out, const RunReport& report, bool quiet);
nlohmann::ordered_json RunReportJson(const RunReport& report);

}  // namespace memstand

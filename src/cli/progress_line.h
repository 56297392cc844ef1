// The progress line on a terminal: FormatProgress redrawn in place once a second, fed
// by the engine's interval sink. Thread-safe: OnSecond runs on a load thread, Begin
// and Clear on the main thread.
#pragma once

#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "load/load_options.h"
#include "load/run_stats.h"
#include "report/progress.h"

namespace memstand::cli {

class ProgressLine {
 public:
  /// A line on `out` when it is a terminal (isatty) and not quiet; nullptr otherwise.
  static std::unique_ptr<ProgressLine> IfTerminal(std::FILE* out, bool quiet);
  explicit ProgressLine(std::FILE* out) : out_(out) {}

  /// Starts a run: counts back to zero. `label` prefixes the line (may be empty).
  void Begin(const LoadOptions& options, const std::string& label);
  /// Redraws the line with one completed second (all load threads merged).
  void OnSecond(int second, const std::vector<CommandStats>& commands);
  /// Erases the line if one is drawn, so the report starts on a clean line.
  void Clear();

 private:
  std::FILE* out_;
  std::mutex mu_;
  ProgressSnapshot snap_;
  bool drawn_ = false;
};

}  // namespace memstand::cli

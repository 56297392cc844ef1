#include "cli/progress_line.h"

#include <unistd.h>

#include <algorithm>

namespace memstand::cli {

namespace {
constexpr const char* kEraseLine = "\r\033[K";  // to column 0, erase to the end
}  // namespace

std::unique_ptr<ProgressLine> ProgressLine::IfTerminal(std::FILE* out, bool quiet) {
  if (quiet || !isatty(fileno(out))) return nullptr;
  return std::make_unique<ProgressLine>(out);
}

void ProgressLine::Begin(const LoadOptions& options, const std::string& label) {
  std::lock_guard<std::mutex> lock(mu_);
  snap_ = ProgressSnapshot{};
  snap_.label = label;
  snap_.duration_s = options.requests > 0 ? 0 : options.duration_s;
  snap_.requests_total = options.requests;
}

void ProgressLine::OnSecond(int second, const std::vector<CommandStats>& commands) {
  CommandStats all;
  for (const auto& c : commands) all.Add(c);
  std::lock_guard<std::mutex> lock(mu_);
  snap_.elapsed_s = std::max(snap_.elapsed_s, second + 1);
  snap_.requests_done += all.ops;
  snap_.last_ops = all.ops;
  snap_.last_p99_ns = all.latency_ns.ValueAtPercentile(99);
  snap_.errors += all.errors;
  snap_.last_fail = all.failed;
  snap_.last_unknown = all.unknown;
  std::fputs(kEraseLine, out_);
  std::fputs(FormatProgress(snap_).c_str(), out_);
  std::fflush(out_);
  drawn_ = true;
}

void ProgressLine::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!drawn_) return;
  std::fputs(kEraseLine, out_);
  std::fflush(out_);
  drawn_ = false;
}

}  // namespace memstand::cli

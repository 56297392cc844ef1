#include "scenario/kit/runs.h"

#include <fmt/format.h>

namespace memstand {

void ForEachRun(const ScenarioContext& ctx, ScenarioReport* report, const std::function<void(int run)>& once) {
  for (int run = 1; run <= ctx.runs && !ctx.interrupted(); ++run) {
    once(run);
    report->runs_made = run;
  }
}

std::string NotInstalledLine(SystemKind kind) {
  if (SystemInstalled(kind)) return "";
  return fmt::format("not run: {} is not installed (apt-get install {})", SystemBinary(kind), SystemPackage(kind));
}

}  // namespace memstand

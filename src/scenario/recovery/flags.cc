// recovery's flags (docs/scenarios/recovery.md), turned into RecoveryOptions.
#include <memory>

#include <CLI/CLI.hpp>

#include "scenario/recovery/recovery.h"
#include "util/parse.h"
#include "util/redact.h"

namespace memstand {
namespace {

struct RecoveryFlags {
  std::string memory = "32MiB,128MiB";
  std::string fill = "90%";
  std::string kill_at = "2s";
  std::string after = "4s";
  RecoveryOptions options;
};

Result<double> ParseShare(const std::string& text) {
  std::string t = text;
  const bool percent = !t.empty() && t.back() == '%';
  if (percent) t.pop_back();
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (t.empty() || end != t.c_str() + t.size()) {
    return Status::InvalidArgument("--fill: '" + text + "' is not a share (90%, or 0.9)");
  }
  return percent ? v / 100 : v;
}

Result<RecoveryOptions> BuildRecovery(const RecoveryFlags& f) {
  RecoveryOptions o = f.options;
  o.memories.clear();
  auto words = ParseWordList(f.memory, "--memory");
  if (!words.ok()) return words.status();
  for (const std::string& w : *words) {
    auto bytes = ParseByteSize(w);
    if (!bytes.ok()) return bytes.status().WithContext("--memory");
    o.memories.push_back(*bytes);
  }
  auto share = ParseShare(f.fill);
  if (!share.ok()) return share.status();
  o.fill = *share;
  auto kill_at = ParseDurationSeconds(f.kill_at);
  if (!kill_at.ok()) return kill_at.status().WithContext("--kill-at");
  auto after = ParseDurationSeconds(f.after);
  if (!after.ok()) return after.status().WithContext("--after");
  o.kill_at_s = *kill_at;
  o.after_s = *after;
  if (Status s = ValidateRecovery(o); !s.ok()) return s;
  return o;
}

}  // namespace

ScenarioPrepare SetupRecovery(CLI::App* app) {
  auto f = std::make_shared<RecoveryFlags>();
  app->add_option("--only", f->options.configurations, "Run only these (none, rdb, aof-everysec, aof-always, tarantool-wal-write, tarantool-wal-fsync)")
      ->delimiter(',');
  app->add_option("--memory", f->memory, "Each size measured, comma-separated: Redis's maxmemory; Tarantool's memtx_memory is it + 32 MiB")->capture_default_str();
  app->add_option("--fill", f->fill, "The share of each size filled with data before the load")->capture_default_str();
  app->add_option("--value-size", f->options.value_size, "Bytes of each fill value")->capture_default_str();
  app->add_option("--kill-at", f->kill_at, "When the kill comes, from the load's start")->capture_default_str();
  app->add_option("--after", f->after, "How long the load goes on after the kill")->capture_default_str();
  app->add_option("--rate", f->options.rate, "The load's operations per second (open loop)")->capture_default_str();
  return [f]() -> Result<ScenarioRun> {
    auto o = BuildRecovery(*f);
    if (!o.ok()) return Status::InvalidArgument(RedactSecrets(o.status().message()));
    return ScenarioRun([o = *o](const ScenarioContext& ctx) { return RunRecovery(o, ctx); });
  };
}

}  // namespace memstand

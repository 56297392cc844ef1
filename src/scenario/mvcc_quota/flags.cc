// mvcc-quota's flags (docs/scenarios/mvcc-quota.md), turned into MvccQuotaOptions.
#include <memory>

#include <CLI/CLI.hpp>

#include "scenario/mvcc_quota/mvcc_quota.h"
#include "util/parse.h"
#include "util/redact.h"

namespace memstand {
namespace {

struct MvccQuotaFlags {
  std::string quota = "64MiB";
  std::string profile = "misuse";
  MvccQuotaOptions options;
};

}  // namespace

ScenarioPrepare SetupMvccQuota(CLI::App* app) {
  auto f = std::make_shared<MvccQuotaFlags>();
  app->add_option("--quota", f->quota, "etcd --quota-backend-bytes (64MiB, 128mb, ...)")->capture_default_str();
  app->add_option("--keys", f->options.keys, "The hot set: write i goes to key i mod KEYS")->capture_default_str();
  app->add_option("--writes", f->options.writes, "Writes in all")->capture_default_str();
  app->add_option("--value-size", f->options.value_size, "Bytes per value (random)")->capture_default_str();
  app->add_option("--portion", f->options.portion, "Writes between two status reads")->capture_default_str();
  app->add_option("--pipeline", f->options.pipeline, "Requests in flight per connection")->capture_default_str();
  app->add_option("--profile", f->profile,
                  "misuse (a hot set overwritten until the quota), intended (small metadata written rarely, "
                  "auto-compaction on: the positive control) or both, side by side")
      ->capture_default_str();
  MvccIntendedOptions& in = f->options.intended_profile;
  app->add_option("--intended-keys", in.keys, "Intended profile: keys")->capture_default_str();
  app->add_option("--intended-writes", in.writes, "Intended profile: writes in all")->capture_default_str();
  app->add_option("--intended-value-size", in.value_size, "Intended profile: bytes per value")->capture_default_str();
  app->add_option("--intended-rate", in.rate, "Intended profile: writes per second")->capture_default_str();
  app->add_option("--auto-compaction-retention", in.compaction_retention,
                  "Intended profile: etcd's --auto-compaction-retention, periodic mode (2s, 5m, 1h)")
      ->capture_default_str();
  return [f]() -> Result<ScenarioRun> {
    auto quota = ParseByteSize(f->quota);
    if (!quota.ok()) return Status::InvalidArgument("--quota: " + quota.status().message());
    MvccQuotaOptions o = f->options;
    o.quota_bytes = static_cast<int64_t>(*quota);
    if (f->profile != "misuse" && f->profile != "intended" && f->profile != "both") {
      return Status::InvalidArgument("--profile must be misuse, intended or both, got '" + f->profile + "'");
    }
    o.misuse = f->profile != "intended";
    o.intended = f->profile != "misuse";
    Status s = ValidateMvccQuota(o);
    if (!s.ok()) return Status::InvalidArgument(RedactSecrets(s.message()));
    return ScenarioRun([o](const ScenarioContext& ctx) { return RunMvccQuota(o, ctx); });
  };
}

}  // namespace memstand

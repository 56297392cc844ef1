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
  return [f]() -> Result<ScenarioRun> {
    auto quota = ParseByteSize(f->quota);
    if (!quota.ok()) return Status::InvalidArgument("--quota: " + quota.status().message());
    MvccQuotaOptions o = f->options;
    o.quota_bytes = static_cast<int64_t>(*quota);
    Status s = ValidateMvccQuota(o);
    if (!s.ok()) return Status::InvalidArgument(RedactSecrets(s.message()));
    return ScenarioRun([o](const ScenarioContext& ctx) { return RunMvccQuota(o, ctx); });
  };
}

}  // namespace memstand

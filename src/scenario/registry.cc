#include "scenario/registry.h"

#include <fmt/format.h>

#include "scenario/compute_locality.h"
#include "scenario/durability_overload.h"
#include "scenario/locality_pg.h"
#include "scenario/mvcc_quota.h"
#include "scenario/replication_cost.h"
#include "scenario/stretched_cache.h"
#include "scenario/working_set.h"

namespace memstand {
namespace {

// A question is the scenario's, whatever its flags: the run's own parameters (sizes,
// modes, the top's length) are in its procedure block and its JSON fields.
const ScenarioDef kScenarios[] = {
    {"working-set",
     "What does a configuration do when its memory limit is reached: evict old data and keep accepting, "
     "reject writes, or keep everything on a device?",
     {SystemKind::kRedis, SystemKind::kMemcached, SystemKind::kTarantool},
     false, 1, SetupWorkingSet},
    {"mvcc-quota",
     "What happens when a hot, frequently overwritten set is written to etcd, whose every write is a new "
     "MVCC revision kept until compaction?",
     {SystemKind::kEtcd, SystemKind::kRedis},
     false, 1, SetupMvccQuota},
    {"compute-locality",
     "What does moving the computation to the data save? The top products of a category by views, fetched "
     "to the client or computed by the server, with the controls that separate fewer rows from fewer bytes "
     "per row from an algorithm near the data",
     {SystemKind::kTarantool, SystemKind::kRedis},
     true, 1, SetupComputeLocality},
    {"stretched-cache",
     "What does a write acknowledged by a replica (Redis SET + WAIT 1) cost as the distance between the "
     "primary and its replica grows, and what does the instrument (memstand's latency relay) add?",
     {SystemKind::kRedis},
     false, 1, SetupStretchedCache},
    {"durability-overload",
     "What does durability cost, and how does a Redis Cluster behave when writes saturate the disk: slower, "
     "or unavailable?",
     {SystemKind::kRedis},
     false, 3, SetupDurabilityOverload},
    {"replication-cost",
     "How much write throughput and latency does waiting for replicas cost, and are reads from replicas "
     "cheaper?",
     {SystemKind::kTarantool, SystemKind::kRedis},
     false, 1, SetupReplicationCost},
};

}  // namespace

std::span<const ScenarioDef> Scenarios() { return kScenarios; }

const ScenarioDef* FindScenario(std::string_view name) {
  for (const ScenarioDef& d : kScenarios) {
    if (name == d.name) return &d;
  }
  return nullptr;
}

std::string DescribeScenarios() {
  std::string out;
  for (const ScenarioDef& d : kScenarios) {
    out += fmt::format("{}\n  {}\n", d.name, d.question);
    for (SystemKind s : d.systems) {
      out += SystemInstalled(s) ? fmt::format("  {}: installed ({})\n", SystemName(s), SystemBinary(s))
                                : fmt::format("  {}: not installed (apt-get install {})\n", SystemName(s),
                                              SystemPackage(s));
    }
    if (d.postgresql) {
      const std::string missing = PostgresMissing();
      out += missing.empty() ? "  postgresql: installed (initdb, postgres)\n" : "  postgresql: " + missing + "\n";
    }
  }
  out += "\nRun one: memstand scenario run NAME [--runs N] [--json FILE] [--evidence DIR]; "
         "memstand scenario run NAME --help for its flags.\n";
  return out;
}

}  // namespace memstand

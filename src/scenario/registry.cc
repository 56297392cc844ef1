#include "scenario/registry.h"

#include <fmt/format.h>


#include "report/json_fields.h"
#include "scenario/compute_locality/compute_locality.h"
#include "scenario/compute_locality/json.h"
#include "scenario/compute_locality/pg.h"
#include "scenario/durability_overload/durability_overload.h"
#include "scenario/durability_overload/json.h"
#include "scenario/failover/failover.h"
#include "scenario/failover/json.h"
#include "scenario/mvcc_quota/mvcc_quota.h"
#include "scenario/partition/json.h"
#include "scenario/partition/partition.h"
#include "scenario/recovery/json.h"
#include "scenario/recovery/recovery.h"
#include "scenario/replication_cost/json.h"
#include "scenario/replication_cost/replication_cost.h"
#include "scenario/sharding/sharding.h"
#include "scenario/stretched_cache/json.h"
#include "scenario/stretched_cache/stretched_cache.h"
#include "scenario/working_set/json.h"
#include "scenario/working_set/working_set.h"

namespace memstand {
namespace {

// A question is the scenario's, whatever its flags: the run's own parameters (sizes,
// modes, the top's length) are in its procedure block and its JSON fields.
// {name, question, systems, postgresql, default_runs, setup, charts, choice_rows, read_rules}
const ScenarioDef kScenarios[] = {
    {"working-set",
     "What does a configuration do when its memory limit is reached: evict old data and keep accepting, "
     "reject writes, or keep everything on a device?",
     {SystemKind::kRedis, SystemKind::kMemcached, SystemKind::kTarantool},
     /*postgresql=*/false, /*default_runs=*/1,
     SetupWorkingSet, WorkingSetCharts, WorkingSetChoiceRows, working_set_json::kReadRules},
    {"mvcc-quota",
     "What happens when a hot, frequently overwritten set is written to etcd, whose every write is a new "
     "MVCC revision kept until compaction?",
     {SystemKind::kEtcd, SystemKind::kRedis},
     /*postgresql=*/false, /*default_runs=*/1,
     SetupMvccQuota, MvccQuotaCharts, MvccQuotaChoiceRows},
    {"compute-locality",
     "What does moving the computation to the data save? The top products of a category by views, fetched "
     "to the client or computed by the server, with the controls that separate fewer rows from fewer bytes "
     "per row from an algorithm near the data",
     {SystemKind::kTarantool, SystemKind::kRedis},
     /*postgresql=*/true, /*default_runs=*/1,
     SetupComputeLocality, ComputeLocalityCharts, ComputeLocalityChoiceRows, compute_locality_json::kReadRules},
    {"stretched-cache",
     "What does a write acknowledged by a replica (Redis SET + WAIT 1) cost as the distance between the "
     "primary and its replica grows, and what does the instrument (memstand's latency relay) add?",
     {SystemKind::kRedis},
     /*postgresql=*/false, /*default_runs=*/1,
     SetupStretchedCache, StretchedCacheCharts, StretchedCacheChoiceRows, stretched_cache_json::kReadRules},
    {"durability-overload",
     "What does durability cost, and how does a Redis Cluster behave when writes saturate the disk: slower, "
     "or unavailable?",
     {SystemKind::kRedis},
     /*postgresql=*/false, /*default_runs=*/3,
     SetupDurabilityOverload, DurabilityOverloadCharts, DurabilityOverloadChoiceRows,
     durability_overload_json::kReadRules},
    {"replication-cost",
     "How much write throughput and latency does waiting for replicas cost, and are reads from replicas "
     "cheaper?",
     {SystemKind::kTarantool, SystemKind::kRedis},
     /*postgresql=*/false, /*default_runs=*/1,
     SetupReplicationCost, ReplicationCostCharts, ReplicationCostChoiceRows, replication_cost_json::kReadRules},
    {"failover",
     "What happens to a replicated system's writes when its primary dies or stops under load: how long are "
     "writes out, and which acknowledged writes are gone?",
     {SystemKind::kRedis, SystemKind::kEtcd},
     /*postgresql=*/false, /*default_runs=*/1,
     SetupFailover, FailoverCharts, FailoverChoiceRows, failover_json::kReadRules},
    {"recovery",
     "How long does a Redis or a Tarantool take to come back after a crash, against how much data it holds, "
     "and which acknowledged writes did it keep, with each kind of persistence?",
     {SystemKind::kRedis, SystemKind::kTarantool},
     /*postgresql=*/false, /*default_runs=*/1,
     SetupRecovery, RecoveryCharts, RecoveryChoiceRows, recovery_json::kReadRules},
    {"partition",
     "What happens to the writes a Redis primary acknowledges while a network partition cuts it off from its "
     "replicas and Sentinels, and does min-replicas-to-write close the window?",
     {SystemKind::kRedis},
     /*postgresql=*/false, /*default_runs=*/1,
     SetupPartition, PartitionCharts, PartitionChoiceRows, partition_json::kReadRules},
    {"sharding",
     "How does a sharded Tarantool's throughput follow the number of routers per storage and the number of "
     "storages, and what does each operation cost at the knee, on memstand's own router over net.box?",
     {SystemKind::kTarantool},
     /*postgresql=*/false, /*default_runs=*/1,
     SetupSharding, ShardingCharts, ShardingChoiceRows},
};

}  // namespace

std::span<const ScenarioDef> Scenarios() { return kScenarios; }

const ScenarioDef* FindScenario(std::string_view name) {
  for (const ScenarioDef& d : kScenarios) {
    if (name == d.name) return &d;
  }
  return nullptr;
}

Status CheckScenarioResult(const ReportInput& in) {
  if (in.kind != ReportInputKind::kScenario) return Status::OK();
  const ScenarioDef* d = FindScenario(Text(in.doc, scenario_json::kScenario));
  if (d == nullptr || d->read_rules.empty()) return Status::OK();
  Status s = CheckJsonFields(nlohmann::ordered_json(in.doc), d->read_rules.data(), d->read_rules.size());
  return s.ok() ? s : s.WithContext("'" + in.json_path + "'");
}

ScenarioChartsFn ScenarioChartsByName(std::string_view name) {
  const ScenarioDef* d = FindScenario(name);
  return d == nullptr ? nullptr : d->charts;
}

std::vector<MeasuredChoiceRow> ScenarioChoiceRows() {
  std::vector<MeasuredChoiceRow> rows;
  for (const ScenarioDef& d : kScenarios) {
    for (MeasuredChoiceRow& r : d.choice_rows()) rows.push_back(std::move(r));
  }
  return rows;
}

const std::vector<ChoiceRow>& JudgmentRows() {
  // Kept word for word in docs/choice-map.md (ChoiceMapTest checks it).
  static const std::vector<ChoiceRow> kRows = {
      {"sessions and other data that may be lost, with a TTL", "memcached, or Redis without persistence",
       "no persistence work at all; memcached spreads over threads", "a restart or an eviction loses the data",
       kChoiceJudgment, "no scenario yet"},
      {"a queue or a stream between services", "Redis streams (XADD / XREADGROUP)",
       "appends in memory, consumer groups in the server", "memory holds the backlog; durability as configured",
       kChoiceJudgment, "no scenario yet"},
  };
  return kRows;
}

const std::vector<ChoiceRow>& NotPackagedRows() {
  // Kept word for word in docs/choice-map.md (ChoiceMapTest checks it). The support says
  // why there is no figure; "faster" says what the published map credits the system with.
  static const std::vector<ChoiceRow> kRows = {
      {"data far larger than memory with a hot subset", "Aerospike (records on a raw device, the index in memory)",
       "a read or write by key goes to the device once; the index never does", "", kChoiceNotPackaged,
       "no Debian 12 package (apt-cache: no candidate); memstand speaks no Aerospike protocol either"},
      {"logic next to the data, on a cluster of nodes", "Apache Ignite (compute and SQL sent to the partitions)",
       "the computation runs on the nodes that hold the data (affinity)", "", kChoiceNotPackaged,
       "no Debian 12 package (apt-cache: no candidate); memstand speaks no Ignite protocol either"},
      {"logic next to the data, on a cluster of nodes", "Picodata (a sharded DBMS built on Tarantool)",
       "stored procedures and SQL run on the shards that hold the data", "", kChoiceNotPackaged,
       "no Debian 12 package (apt-cache: no candidate)"},
  };
  return kRows;
}

std::vector<ChoiceRow> FixedChoiceRows() {
  std::vector<ChoiceRow> rows = JudgmentRows();
  rows.insert(rows.end(), NotPackagedRows().begin(), NotPackagedRows().end());
  return rows;
}

const std::vector<ChoiceStep>& ChoiceTree() {
  // Kept in docs/choice-map.md (ChoiceMapTest checks the questions and answers). The
  // evidence names classes of task, and a system where only some rows of the class speak
  // to the step.
  static const std::vector<ChoiceStep> kTree = {
      {"Is it coordination: configuration, leader election, service discovery?", "etcd",
       {{"configuration, leader election, service discovery", ""},
        {"a hot set of keys overwritten all the time", ""},
        {"keeps taking writes when its primary dies", "etcd"}}},
      {"Must logic run next to the data (a computation over many records that returns a few)?",
       "Tarantool (stored Lua next to the data)",
       {{"the top N of a large category by a field", ""}, {"logic next to the data, on a cluster of nodes", ""}}},
      {"Does the data fit in memory?", "Redis",
       {{"a cache whose working set outgrows its memory", "Redis"},
        {"sessions and other data that may be lost, with a TTL", ""},
        {"writes that must survive a restart, on a cluster", ""},
        {"comes back after a crash with what it acknowledged", "Redis"}}},
      {"Otherwise (the data does not fit in memory):", "a store that keeps its data on a device",
       {{"a cache whose working set outgrows its memory", "Tarantool vinyl"},
        {"data far larger than memory with a hot subset", ""}}},
  };
  return kTree;
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

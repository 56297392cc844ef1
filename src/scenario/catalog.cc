#include "scenario/catalog.h"

#include <cstdlib>

#include <fmt/format.h>

#include "scenario/locality_pg.h"

namespace memstand {

const std::vector<ScenarioEntry>& ScenarioCatalog() {
  static const std::vector<ScenarioEntry> kCatalog = {
      {"working-set",
       "What does a configuration do when its memory limit is reached: evict old data and keep accepting, "
       "reject writes, or keep everything on a device?",
       {SystemKind::kRedis, SystemKind::kMemcached, SystemKind::kTarantool},
       false},
      {"mvcc-quota",
       "What happens when a hot, frequently overwritten set is written to etcd, whose every write is a new "
       "MVCC revision kept until compaction?",
       {SystemKind::kEtcd, SystemKind::kRedis},
       false},
      {"compute-locality",
       "What does moving the computation to the data save? The top 10 products of 'tools' by views, fetched "
       "to the client or computed by the server, with the controls that separate fewer rows from fewer bytes "
       "per row from an algorithm near the data",
       {SystemKind::kTarantool, SystemKind::kRedis},
       true},
      {"stretched-cache",
       "What does a write acknowledged by a replica (Redis SET + WAIT 1) cost as the distance between the "
       "primary and its replica grows, and what does the instrument (memstand's latency relay) add?",
       {SystemKind::kRedis},
       false},
      {"durability-overload",
       "What does durability cost, and how does a Redis Cluster behave when writes saturate the disk: slower, or "
       "unavailable? AOF (appendfsync everysec) against no persistence, SET and GET of 100 B, 10 KiB and 256 KiB "
       "values, random and compressible, with errors by kind, storage bytes and the cluster's state",
       {SystemKind::kRedis},
       false},
      {"replication-cost",
       "How much write throughput and latency does waiting for replicas cost, and are reads from replicas "
       "cheaper? A Tarantool replica set with an asynchronous and an is_sync space, Redis SET against SET + WAIT",
       {SystemKind::kTarantool, SystemKind::kRedis},
       false},
  };
  return kCatalog;
}

const std::string& ScenarioQuestion(const std::string& name) {
  for (const ScenarioEntry& e : ScenarioCatalog()) {
    if (e.name == name) return e.question;
  }
  std::abort();  // a subcommand without its catalog entry: a programming error
}

std::string DescribeCatalog() {
  std::string out;
  for (const ScenarioEntry& e : ScenarioCatalog()) {
    out += fmt::format("{}\n  {}\n", e.name, e.question);
    for (SystemKind s : e.systems) {
      out += SystemInstalled(s) ? fmt::format("  {}: installed ({})\n", SystemName(s), SystemBinary(s))
                                : fmt::format("  {}: not installed (apt-get install {})\n", SystemName(s),
                                              SystemPackage(s));
    }
    if (e.postgresql) {
      const std::string missing = PostgresMissing();
      out += missing.empty() ? "  postgresql: installed (initdb, postgres)\n" : "  postgresql: " + missing + "\n";
    }
  }
  out += "\nRun one: memstand scenario run NAME [--runs N] [--json FILE] [--evidence DIR]; "
         "memstand scenario run NAME --help for its flags.\n";
  return out;
}

}  // namespace memstand

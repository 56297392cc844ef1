// durability-overload (docs/scenarios/durability-overload.md): what durability
// costs, and how a Redis Cluster behaves when writes saturate the disk: slower, or
// unavailable. A fresh cluster of N masters per durability mode and run (no
// persistence; AOF with each appendfsync asked for), SET cells of each value size and
// payload for a fixed time, GET cells over the loaded data, through the load engine in
// cluster mode; per cell the engine's figures and errors by kind, every node's CPU, RSS
// and bytes written to storage (/proc), the AOF's counters, and the cluster's state over
// time. Before the cells a storage probe; after them the legacy-client block.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "scenario/scenario.h"
#include "util/status.h"

namespace memstand {

struct MeasuredChoiceRow;
struct ReportInput;
struct ReportSection;

struct DurabilityOverloadOptions {
  /// Masters of the cluster (docs/scenarios/durability-overload.md: 8, the published benchmark's size).
  int masters = 8;
  /// Replicas per master (0..3; the published study ran with replicas). Each replica
  /// takes the mode's persistence settings too, and its CPU, memory and storage writes
  /// are counted with the masters'.
  int replicas = 0;
  /// The AOF modes compared with no persistence, by appendfsync (docs/scenarios/durability-overload.md: everysec).
  std::vector<std::string> fsync = {"everysec"};
  std::vector<uint64_t> sizes = {100, 10 << 10, 256 << 10};  // bytes (docs/scenarios/durability-overload.md)
  std::vector<std::string> payloads = {"random", "compressible"};
  /// Measured seconds per cell: 2 s keeps the default matrix (2 modes x 3 runs x (3
  /// sizes x 2 payloads SET + 3 GET)) near two minutes on a 2-core machine.
  double cell_duration_s = 2;
  /// cluster-node-timeout, ms: Redis's default (15 s), as the published study ran it.
  int node_timeout_ms = 15000;
  /// The engine's connections: one load thread (a core left to the servers), `clients`
  /// clients each with a connection to every master, `pipeline` requests in flight on each.
  int clients = 4;
  int pipeline = 1;
  /// Load threads, the clients spread over them (the published study: 4 threads x 12
  /// clients). More than one shares the machine's cores with the servers.
  int threads = 1;
  /// "compressible" payloads: values zstd compresses about this many times (ValuePool);
  /// "pattern" is memtier's near-constant default, the compressible extreme.
  double compress_ratio = 8;
  /// Bytes of the storage probe per content (0: no probe).
  uint64_t probe_bytes = uint64_t{64} << 20;
  /// Values kept per size: the key range is min(kMaxKeys, data_bytes / size), so memory
  /// and AOF rewrites stay bounded while the cells overwrite keys.
  uint64_t data_bytes = uint64_t{64} << 20;
  /// Keys per size instead (the published study: 1M / 200k / 20k); 0: from data_bytes.
  uint64_t keys = 0;
  bool gets = true;    // GET cells after each size's SET cells
  bool legacy = true;  // the legacy-client block
};

/// How the cluster's replicas read in a sentence: " (no replicas)", " with 1 replica each".
std::string Replicas(const DurabilityOverloadOptions& o);

/// "100,10k,256k": byte sizes (util/parse.h), 1 B .. 64 MiB each, no repeats.
Result<std::vector<uint64_t>> ParseSizeList(std::string_view text);
/// "random,compressible,pattern": each one of those, no repeats.
Result<std::vector<std::string>> ParsePayloadList(std::string_view text);
/// "everysec,always": each one of always, everysec, no; no repeats.
Result<std::vector<std::string>> ParseFsyncList(std::string_view text);

/// The key range of a size: min(20000, data_bytes / size), at least 1.
uint64_t DurabilityKeys(uint64_t size, uint64_t data_bytes);

/// Seconds the cells take (runs x modes x (sizes x payloads + sizes if gets) x cell
/// duration, plus the legacy cell): the figure printed before the run.
double PlannedCellSeconds(const DurabilityOverloadOptions& options, int runs);

Status ValidateDurabilityOverload(const DurabilityOverloadOptions& options);

Result<ScenarioReport> RunDurabilityOverload(const DurabilityOverloadOptions& options, const ScenarioContext& ctx);

// Its row in scenario/registry.cc: its flags (flags.cc), its charts and JSON tables on
// the report page (charts.cc) and its rows of the choice map (choices.cc).
ScenarioPrepare SetupDurabilityOverload(CLI::App* app);
void DurabilityOverloadCharts(const ReportInput& in, ReportSection* section);
std::vector<MeasuredChoiceRow> DurabilityOverloadChoiceRows();

}  // namespace memstand

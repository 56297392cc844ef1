// What one run of sharding measured, between the procedure (sharding.cc) and its
// report (report.cc). Internal.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "scenario/sharding/sharding.h"

namespace memstand {

/// One role's processes over a cell: the mean of their core shares (CPU seconds / the
/// cell's wall time, each process's own) and the sum of their RSS at the cell's end.
struct ShardRoleFigures {
  std::string role;  // "router", "storage-master", "storage-replica"
  int processes = 0;
  double mean_core_share = 0;
  double max_core_share = 0;
  int64_t rss_bytes = 0;
};

/// One cell: a step of a point's sweep, or one operation of the matrix.
struct ShardCell {
  std::string op = "replace";  // replace, insert, upsert, update, get
  std::string space = "test";  // test (asynchronous), test_sync (is_sync)
  std::string read_from;       // get: "master" or "replica"; "" for writes
  uint64_t connections = 0;    // over all routers
  std::string failure;
  double measured_s = 0;
  uint64_t requests = 0;  // replies, errors included, and unanswered requests
  uint64_t errors = 0;
  uint64_t unanswered = 0;
  std::string first_error;
  double ops_per_sec = 0;  // replies without an error / measured_s
  double p50_us = 0, p99_us = 0;
  double client_core_share = 0;
  std::vector<ShardRoleFigures> roles;
  /// The requests the storages counted during the cell (their counters' delta).
  int64_t storage_requests = 0;
};

/// One topology: a point of a sweep, or the matrix's.
struct ShardPoint {
  int run = 1;
  std::string sweep;  // "ratio", "storages", "matrix"
  int storages = 0;
  int routers = 0;
  std::string failure{};  // it did not start, failed its health check, or lost a process
  std::vector<ShardCell> cells{};
  std::optional<size_t> knee{};  // sweeps: the knee's cell
  size_t best = 0;             // sweeps: the knee's cell, else the highest throughput's
  /// Each storage's requests over the point (node, its set, count), and their sum
  /// against the client's.
  std::vector<std::pair<std::string, int64_t>> per_storage{};
  std::vector<int64_t> per_set{};  // index set - 1
  int64_t client_requests = 0;
  int64_t storage_requests = 0;
  bool counted = false;
  std::string version{};
  std::string description{};
  double knee_ops_per_sec() const { return cells.empty() ? 0 : cells[best].ops_per_sec; }
  bool ok() const { return failure.empty(); }
};

/// Fills the report's blocks, tables and JSON (report.cc).
void FillShardingReport(const ShardingOptions& options, const std::vector<ShardPoint>& points, bool interrupted,
                        ScenarioReport* report);

}  // namespace memstand

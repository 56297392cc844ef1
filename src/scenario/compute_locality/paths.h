// compute-locality's systems (docs/scenarios/compute-locality.md): how each stores the products
// records, and its paths to the top-N of a category by views (ties: id ascending),
// each one call on the server's one control connection. The scenario times them
// (compute_locality.h); this file knows the schemas, the requests and their replies.
#pragma once

#include <cstdint>
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/tcp_info.h"
#include "scenario/kit/scenario_server.h"
#include "util/status.h"

namespace memstand {

/// One row of a top-N: what every path must agree on.
struct ViewsRow {
  uint32_t id = 0;
  int64_t views = 0;
};

/// The order of the top-N: views descending, then id ascending.
bool ViewsBefore(const ViewsRow& a, const ViewsRow& b);

/// The ids of the first n rows of `rows` in `before`'s order (partial sort).
std::vector<uint32_t> TopIds(std::vector<ViewsRow> rows, size_t n,
                             bool (*before)(const ViewsRow&, const ViewsRow&) = ViewsBefore);

/// The top-n ids of `category` computed from the dataset itself (no server): the
/// reference every path is checked against.
std::vector<uint32_t> DatasetTopIds(uint64_t seed, const std::string& category, size_t n);

/// What one call of a path returned.
struct PathCall {
  int64_t objects = 0;         // records (or rows) the server returned
  std::vector<uint32_t> ids;   // the top-n, after the client's part of the work
};

/// A path's request sent once more through the system's standard client library.
struct ReferenceCall {
  PathCall call;
  TcpBytes kernel;  // TCP_INFO of the library's socket over the call
};

/// A way to compute the top-n on one system.
struct LocalityPath {
  std::string system;   // "tarantool", "redis"
  std::string name;     // "naive", "local", "naive-short", "local-full", "local-scan"
  std::string request;  // what is sent: "SELECT products.by_category EQ ['tools']"
  std::string shape;    // "full record" or "(id, title, views)"
  std::string where;    // where the top-n is computed: "client" or "server (...)"
  int round_trips = 1;
  std::function<Result<PathCall>()> call;
  std::function<SocketBytes()> app_bytes;        // the connection's totals so far
  std::function<Result<TcpBytes>()> kernel_bytes;
  /// The same request through the system's standard client library (PostgreSQL:
  /// libpq), called once after the timed calls to check what memstand's own reader
  /// parsed and the bytes it counted. Empty: none (reference_library names it).
  std::function<Result<ReferenceCall>()> reference;
  std::string reference_library;  // "libpq 15.18"
};

/// The configurations: Tarantool and Redis with their defaults.
ServerConfig LocalityTarantoolConfig();
ServerConfig LocalityRedisConfig();

/// Starts a fresh server of `config`; Tarantool with space `products` field-wise (id,
/// sku, title, category, price_cents, views), indexes primary (id), by_views TREE
/// (category, views, id), by_category TREE (category, id), and the stored functions
/// the paths call.
Result<std::unique_ptr<ServerUnderTest>> StartLocalityServer(const ServerConfig& config,
                                                             const std::atomic<bool>* cancel);

/// Loads products 1..count (seed) into the server, in batches of `batch` records per
/// request, and checks the server holds them all.
Status LoadLocalityRecords(ServerUnderTest* server, uint64_t seed, uint32_t count, uint32_t batch);

/// The paths of the server's system for the top-n of `category`.
/// REQUIRES: the server was started from LocalityTarantoolConfig / LocalityRedisConfig.
Result<std::vector<LocalityPath>> LocalityPaths(ServerUnderTest* server, const std::string& category, int n);

}  // namespace memstand

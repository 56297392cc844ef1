// compute-locality's PostgreSQL (control 3: ORDER BY ... LIMIT in a classic DBMS, no
// stored code): a private cluster made by initdb in a temporary folder, the postmaster
// on a free loopback port (no Unix socket, trust authentication), run as user
// `postgres` when memstand runs as root (initdb refuses root), stopped and removed at
// the end; the products table loaded by COPY through libpq; the paths, timed on
// memstand's own client (client/pg_client: it counts its bytes) and checked once each
// through libpq.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "client/libpq_session.h"
#include "client/pg_client.h"
#include "scenario/compute_locality/paths.h"
#include "stand/process.h"
#include "util/status.h"

namespace memstand {

class PgCluster {
 public:
  /// initdb, then the postmaster, then a connection. NotFound with the apt-get hint
  /// when PostgreSQL's programs are not installed.
  static Result<std::unique_ptr<PgCluster>> Start(const std::atomic<bool>* cancel);
  ~PgCluster();
  PgCluster(const PgCluster&) = delete;
  PgCluster& operator=(const PgCluster&) = delete;

  /// Stops the postmaster and removes the folder. Idempotent.
  void Stop();
  /// Table products (id, sku, title, category, price_cents, views), index (category,
  /// views DESC, id), records 1..count by COPY; ANALYZE; checks count(*).
  Status Load(uint64_t seed, uint32_t count);
  std::vector<LocalityPath> Paths(const std::string& category, int n);
  /// "postgres 15.x on 127.0.0.1:PORT (pid N), initdb --auth=trust, run as postgres"
  std::string Describe() const;
  std::string ConfigText() const;
  std::string LogTail(int lines) const;
  /// The server's log file; "" once stopped.
  std::string log_path() const { return dir_.empty() ? "" : dir_ + "/postgres.log"; }
  /// $TMPDIR/memstand-pg-XXXXXX (stand/temp_folder.h: marked, so a killed run's is
  /// removed by the next start); "" once stopped.
  const std::string& dir() const { return dir_; }

 private:
  PgCluster() = default;
  Status Init(const std::atomic<bool>* cancel);

  std::string bin_dir_, dir_, version_, run_as_;
  int port_ = 0;
  std::vector<std::string> argv_;
  std::unique_ptr<Process> postmaster_;
  std::unique_ptr<LibpqSession> admin_;  // set-up and the paths' check
  std::unique_ptr<PgClient> client_;     // the timed calls
};

/// "" when initdb and postgres are found (in $MEMSTAND_PG_BINDIR when set, else in
/// /usr/lib/postgresql/*/bin or on PATH); else why not, with the package to install.
std::string PostgresMissing();

}  // namespace memstand

// compute-locality's measurements, as the run makes them and the report reads them:
// one timed call, one path over a run, one system over a run.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/tcp_info.h"
#include "scenario/compute_locality/paths.h"

namespace memstand {

// One timed call.
struct PathSample {
  int pass = 1;      // 1: the paths in order; 2: reversed (--swap-order)
  int rep = 0;       // 1-based within the pass
  int position = 0;  // the path's place in this round, 1-based
  int64_t ns = 0;
  SocketBytes app;
  TcpBytes kernel;
  int64_t objects = 0;
};

struct PathRun {
  LocalityPath path;
  PathCall first;  // the untimed first call: its ids and objects
  PathSample first_bytes;
  std::vector<PathSample> samples;
  std::string failure;
  std::vector<std::string> id_notes;  // calls with other ids or objects than the first: fail the run
  /// The path's request through the standard client library, once (when it has one).
  bool referenced = false;
  ReferenceCall reference;
  std::string reference_failure;
};

struct SystemRun {
  std::string name;  // "tarantool", "redis", "postgresql"
  std::string not_run;  // "not run: tarantool is not installed (apt-get install tarantool)"
  std::string failure;
  std::string description, config_text;
  double load_s = 0;
  std::vector<PathRun> paths;
};

}  // namespace memstand

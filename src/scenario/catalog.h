// The scenarios memstand knows, for `memstand scenario list` and the CLI's table.
#pragma once

#include <string>
#include <vector>

#include "scenario/scenario_server.h"

namespace memstand {

struct ScenarioEntry {
  std::string name;
  std::string question;
  std::vector<SystemKind> systems;  // the servers it stands up
  /// Also a private PostgreSQL cluster (scenario/locality_pg.h: not a stand topology).
  bool postgresql = false;
};

/// In the order docs/scenarios.md gives them; only those memstand runs today.
const std::vector<ScenarioEntry>& ScenarioCatalog();

/// The question of the scenario named `name`. REQUIRES: it is in the catalog.
const std::string& ScenarioQuestion(const std::string& name);

/// `memstand scenario list`: each scenario, its question, and per system whether its
/// program is installed here ("redis-server: installed", "tarantool: not installed
/// (apt-get install tarantool)").
std::string DescribeCatalog();

}  // namespace memstand

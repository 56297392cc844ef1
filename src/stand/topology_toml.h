// A topology described in a TOML file (docs/stand.md "Topology files"), parsed into
// the same TopologySpec that `memstand up` flags produce.
#pragma once

#include <string>
#include <string_view>

#include "stand/topology_spec.h"
#include "util/status.h"

namespace memstand {

/// Parses TOML text. `source` names it in errors ("topo.toml"); a relative init_lua
/// is taken relative to base_dir. Malformed TOML ("source:LINE:COL: ..."), an
/// unknown key, a value of the wrong type or a missing `kind` is InvalidArgument.
/// The spec is not normalized (NormalizeSpec checks the values).
Result<TopologySpec> ParseTopologyToml(std::string_view text, const std::string& source,
                                       const std::string& base_dir);

/// Reads and parses a file; an unreadable file is InvalidArgument naming --file.
Result<TopologySpec> LoadTopologyFile(const std::string& path);

}  // namespace memstand

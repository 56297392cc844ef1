// libFuzzer target: a topology file (docs/stand.md, "Topology files") as `memstand up
// --file` reads it: ParseTopologyToml, then NormalizeSpec on what it accepts. Beyond
// crashes, sanitizer reports and hangs: every refusal names the file.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "stand/topology_spec.h"
#include "stand/topology_toml.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto spec = memstand::ParseTopologyToml(text, "f.toml", "/nonexistent-memstand-fuzz");
  if (!spec.ok()) {
    if (spec.status().message().rfind("f.toml", 0) != 0) __builtin_trap();
    return 0;
  }
  memstand::TopologySpec s = *spec;
  (void)memstand::NormalizeSpec(&s);
  return 0;
}

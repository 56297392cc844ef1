#include "scenario/kit/evidence.h"

#include <fmt/format.h>

#include "stand/server_node.h"

namespace memstand {

void KeepLogTail(std::string_view name, int run, const std::string& log_path,
                 std::map<std::string, std::string>* files, std::string_view node) {
  const std::string file = node.empty() ? fmt::format("logs/{}-run{}.log", name, run)
                                        : fmt::format("logs/{}-run{}-{}.log", name, run, node);
  (*files)[file] = FileTail(log_path, kLogTailLines);
}

}  // namespace memstand

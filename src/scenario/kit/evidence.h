// A scenario's evidence taken from its servers: the tail of each server's log.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace memstand {

/// Lines of a server's log kept in a scenario's evidence folder.
inline constexpr int kLogTailLines = 40;

/// Keeps the last kLogTailLines lines of the log file `log_path` in `files` (a
/// ScenarioReport's evidence files) as logs/<name>-run<run>.log, or
/// logs/<name>-run<run>-<node>.log when `node` is given ("" when the file cannot be read).
void KeepLogTail(std::string_view name, int run, const std::string& log_path,
                 std::map<std::string, std::string>* files, std::string_view node = "");

}  // namespace memstand

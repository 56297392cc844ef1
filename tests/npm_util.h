// Test helpers around npm's hdr-histogram-js, the reference decoder for .hlog files.
#pragma once

#include <chrono>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

namespace memstand::testutil {

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout
};

std::string ShellQuote(const std::string& s);
/// Runs `command` with /bin/sh and returns its exit code and stdout.
CommandResult RunShell(const std::string& command);
bool HaveProgram(const std::string& name);
std::string ReadFile(const std::string& path);

/// Polls `done` every 100 ms, at most `seconds` (a bound for a loaded machine, not a
/// figure); its last answer.
template <typename Done>
bool Within(int seconds, Done done) {
  for (int i = 0; i < seconds * 10; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return done();
}

/// A node_modules holding hdr-histogram-js 3.0.1: the shared one under
/// /tmp/memstand-npm, installed there (through a fresh directory renamed into place, so
/// concurrent runs never see half an install) when missing. Empty and *error set on
/// failure.
std::string NodeModulesWithHdrJs(std::string* error);

/// Decodes an interval log with tests/npm/decode_hlog.js (see its header for the JSON).
/// On failure returns a non-object and sets *error.
nlohmann::json DecodeHlog(const std::string& path, std::string* error);

}  // namespace memstand::testutil

#include "npm_util.h"
#include "test_paths.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace memstand::testutil {

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += (c == '\'') ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

CommandResult RunShell(const std::string& command) {
  CommandResult r;
  FILE* p = popen(command.c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), p)) > 0) r.output.append(buf, n);
  const int status = pclose(p);
  if (status != -1 && WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  return r;
}

bool HaveProgram(const std::string& name) {
  return RunShell("command -v " + name + " >/dev/null 2>&1").exit_code == 0;
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

namespace {

std::string InstalledVersion(const std::string& prefix) {
  const std::string text = ReadFile(prefix + "/node_modules/hdr-histogram-js/package.json");
  const auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  return j.is_object() && j.contains("version") && j["version"].is_string()
             ? j["version"].get<std::string>()
             : "";
}

constexpr char kJsPackageVersion[] = "3.0.1";
constexpr char kNpmPrefix[] = "/tmp/memstand-npm";

}  // namespace

std::string NodeModulesWithHdrJs(std::string* error) {
  if (InstalledVersion(kNpmPrefix) == kJsPackageVersion) {
    return std::string(kNpmPrefix) + "/node_modules";
  }
  std::string dir = std::string(kNpmPrefix) + ".XXXXXX";
  if (mkdtemp(dir.data()) == nullptr) {
    *error = "mkdtemp failed";
    return "";
  }
  const CommandResult r =
      RunShell("npm install --no-audit --no-fund --prefer-offline --prefix " + ShellQuote(dir) +
               " hdr-histogram-js@" + kJsPackageVersion + " 2>&1");
  if (r.exit_code != 0 || InstalledVersion(dir) != kJsPackageVersion) {
    *error = "npm install hdr-histogram-js@" + std::string(kJsPackageVersion) + " into " + dir +
             " failed (exit " + std::to_string(r.exit_code) + "):\n" + r.output;
    return "";
  }
  if (std::rename(dir.c_str(), kNpmPrefix) == 0) return std::string(kNpmPrefix) + "/node_modules";
  return dir + "/node_modules";  // another run installed it first, or a stale prefix exists
}

nlohmann::json DecodeHlog(const std::string& path, std::string* error) {
  if (!HaveProgram("node") || !HaveProgram("npm")) {
    *error = "node and npm are needed to decode .hlog files with hdr-histogram-js: install the "
             "Debian packages nodejs and npm (scripts/deps.sh)";
    return nullptr;
  }
  const std::string node_modules = NodeModulesWithHdrJs(error);
  if (node_modules.empty()) return nullptr;
  const std::string err_path = path + ".node-stderr";
  const CommandResult r = RunShell("NODE_PATH=" + ShellQuote(node_modules) + " node " +
                                   ShellQuote(SourceDir() + "/tests/npm/decode_hlog.js") + " " +
                                   ShellQuote(path) + " 1000000 2>" + ShellQuote(err_path));
  const std::string node_stderr = ReadFile(err_path);
  std::remove(err_path.c_str());
  auto j = nlohmann::json::parse(r.output, nullptr, /*allow_exceptions=*/false);
  if (r.exit_code != 0 || !j.is_object()) {
    *error = "decode_hlog.js failed (exit " + std::to_string(r.exit_code) + "): " + node_stderr;
    return nullptr;
  }
  return j;
}

}  // namespace memstand::testutil

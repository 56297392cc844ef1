#include "stand/proc_identity.h"

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

namespace memstand {
namespace {

bool ReadWhole(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return true;
}

// The state letter, process group and start time from /proc/PID/stat. The command
// name (field 2) is in parentheses and may hold spaces or ')', so fields are counted
// after the last ')'.
bool ParseStat(const std::string& stat, char* state, ProcessIdentity* id) {
  size_t close = stat.rfind(')');
  if (close == std::string::npos || close + 2 >= stat.size()) return false;
  std::istringstream rest(stat.substr(close + 2));
  std::string field;
  for (int index = 3; rest >> field; ++index) {  // field 3 is the state
    if (index == 3) *state = field[0];
    if (index == 5) id->pgid = static_cast<pid_t>(std::strtol(field.c_str(), nullptr, 10));
    if (index == 22) {
      id->start_ticks = std::strtoull(field.c_str(), nullptr, 10);
      return true;
    }
  }
  return false;
}

// The real uid from /proc/PID/status ("Uid:\treal\teffective\tsaved\tfs"); -1 if absent.
int64_t RealUid(const std::string& status) {
  size_t at = status.find("\nUid:");
  if (at == std::string::npos) return -1;
  return std::strtoll(status.c_str() + at + 5, nullptr, 10);
}

std::vector<std::string> SplitNul(const std::string& raw) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start < raw.size()) {
    size_t end = raw.find('\0', start);
    if (end == std::string::npos) end = raw.size();
    parts.push_back(raw.substr(start, end - start));
    start = end + 1;
  }
  // A process title written over the argv area (redis-server) leaves it padded with
  // NULs: drop the empty strings they make at the end.
  while (!parts.empty() && parts.back().empty()) parts.pop_back();
  return parts;
}

// The inodes of sockets listening on `port` in one /proc/net/tcp-format table.
void ListeningInodes(const std::string& table, int port, std::vector<std::string>* inodes) {
  std::ifstream in(table);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
    fields >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >>
        timeout >> inode;
    size_t colon = local.rfind(':');
    if (state != "0A" || colon == std::string::npos) continue;  // 0A: LISTEN
    if (std::strtol(local.c_str() + colon + 1, nullptr, 16) == port) inodes->push_back(inode);
  }
}

}  // namespace

bool ListensOn(pid_t pid, int port) {
  std::vector<std::string> inodes;
  ListeningInodes("/proc/net/tcp", port, &inodes);
  ListeningInodes("/proc/net/tcp6", port, &inodes);
  if (inodes.empty()) return false;
  std::error_code ec;
  for (const auto& entry :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec)) {
    std::string target = std::filesystem::read_symlink(entry.path(), ec).string();
    for (const std::string& inode : inodes) {
      if (target == "socket:[" + inode + "]") return true;
    }
  }
  return false;
}

Result<ProcessIdentity> ReadProcessIdentity(pid_t pid) {
  std::string dir = "/proc/" + std::to_string(pid);
  std::string stat, cmdline, status;
  char state = '?';
  ProcessIdentity id;
  id.pid = pid;
  if (pid <= 0 || !ReadWhole(dir + "/stat", &stat) || !ParseStat(stat, &state, &id) ||
      state == 'Z' || state == 'X' || !ReadWhole(dir + "/cmdline", &cmdline) ||
      !ReadWhole(dir + "/status", &status)) {
    return Status::NotFound("no process " + std::to_string(pid));
  }
  id.cmdline = SplitNul(cmdline);
  id.uid = RealUid(status);
  return id;
}

Ownership CheckOwnership(const ProcessIdentity& recorded, ProcessIdentity* now) {
  auto current = ReadProcessIdentity(recorded.pid);
  if (!current.ok()) return Ownership::kGone;
  *now = *current;
  // An empty recorded command line: recorded at spawn, before the server set its title
  // (ServerNodeOptions::on_spawn); the start time alone tells a reused pid then.
  bool same = current->start_ticks == recorded.start_ticks &&
              (recorded.cmdline.empty() || current->cmdline == recorded.cmdline);
  return same ? Ownership::kOurs : Ownership::kOther;
}

bool HoldsFile(pid_t pid, dev_t dev, ino_t ino) {
  std::error_code ec;
  for (const auto& entry :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec)) {
    struct stat st {};
    if (stat(entry.path().c_str(), &st) == 0 && st.st_dev == dev && st.st_ino == ino) return true;
  }
  return false;
}

std::string JoinCmdline(const std::vector<std::string>& cmdline) {
  std::string line;
  for (const std::string& arg : cmdline) {
    if (!line.empty()) line += ' ';
    line += arg;
  }
  return line;
}

}  // namespace memstand

#include "stand/owner_proof.h"

#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include "core/socket.h"
#include "stand/run_root.h"

namespace memstand {
namespace {

std::string Hex(const uint8_t* bytes, size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    out += kDigits[bytes[i] >> 4];
    out += kDigits[bytes[i] & 15];
  }
  return out;
}

OwnerCheck Unproven(OwnerCheck check, std::string why) {
  check.verdict = Ownership::kUnproven;
  check.why = std::move(why);
  return check;
}

// The uid rule: the process runs as the uid recorded when it was ready, and that is
// ours, unless we are root (root may stop a server that dropped to another user).
std::string UidProblem(const ProcessIdentity& recorded, const ProcessIdentity& now) {
  int64_t me = geteuid();
  if (now.uid != recorded.uid) {
    return "it runs as uid " + std::to_string(now.uid) + ", the state file says uid " +
           std::to_string(recorded.uid);
  }
  if (now.uid != me && me != 0) {
    return "it runs as uid " + std::to_string(now.uid) + ", not as you (uid " +
           std::to_string(me) + ")";
  }
  return "";
}

// "" if the process holds the private token file that holds `token`.
std::string TokenProblem(pid_t pid, const std::string& token_path, const std::string& token) {
  if (token.empty()) return "the state file holds no ownership token (an older memstand wrote it)";
  auto text = ReadPrivateFile(token_path, "token file");
  if (!text.ok()) return text.status().message();
  if (*text != token) return "the token file " + token_path + " does not hold the state file's token";
  struct stat st {};
  if (stat(token_path.c_str(), &st) < 0 || !HoldsFile(pid, st.st_dev, st.st_ino)) {
    return "it does not hold the topology's token file " + token_path +
           " open: memstand did not start it";
  }
  return "";
}

}  // namespace

Result<std::string> NewOwnerToken() {
  uint8_t bytes[16];
  size_t got = 0;
  while (got < sizeof(bytes)) {
    ssize_t n = getrandom(bytes + got, sizeof(bytes) - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::IoError(ErrnoMessage("getrandom", errno));
    got += static_cast<size_t>(n);
  }
  return Hex(bytes, sizeof(bytes));
}

OwnerCheck CheckOwner(const ProcessIdentity& recorded, const std::string& token_path,
                      const std::string& token) {
  OwnerCheck check;
  if (recorded.pid <= 1) {
    return Unproven(check, "pid " + std::to_string(recorded.pid) +
                               ": memstand never signals pid 0 or 1");
  }
  check.verdict = CheckOwnership(recorded, &check.now);
  if (check.verdict != Ownership::kOurs) return check;
  if (std::string why = UidProblem(recorded, check.now); !why.empty()) return Unproven(check, why);
  if (std::string why = TokenProblem(recorded.pid, token_path, token); !why.empty()) {
    return Unproven(check, why);
  }
  return check;
}

}  // namespace memstand

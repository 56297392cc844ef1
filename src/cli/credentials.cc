#include "cli/credentials.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "util/redact.h"

namespace memstand::cli {

namespace {

bool TakesPassword(Protocol p) { return p == Protocol::kResp || p == Protocol::kIproto; }

// A password file: a regular file that only its owner may read.
Status CheckOwnerOnly(int fd, const std::string& shown) {
  struct stat st;
  if (fstat(fd, &st) != 0) {
    return Status::InvalidArgument("--auth-file: cannot stat " + shown + ": " +
                                   std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) {
    return Status::InvalidArgument("--auth-file: " + shown + " is not a regular file");
  }
  if ((st.st_mode & 077) == 0) return Status::OK();
  return Status::InvalidArgument(fmt::format(
      "--auth-file: {} has mode {:04o}: group or others may read it; a password file must be "
      "readable by its owner only (chmod 600 {})",
      shown, st.st_mode & 07777, shown));
}

// The first line of --auth-file, without its line end.
Result<std::string> ReadAuthFile(const std::string& path) {
  const std::string shown = Abbreviate(path);
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return Status::InvalidArgument("--auth-file: cannot open " + shown + ": " +
                                   std::strerror(errno));
  }
  Status s = CheckOwnerOnly(fd, shown);
  std::string text(4096, '\0');
  const ssize_t n = s.ok() ? read(fd, text.data(), text.size()) : 0;
  const int err = errno;
  close(fd);
  if (!s.ok()) return s;
  if (n < 0) {
    return Status::InvalidArgument("--auth-file: cannot read " + shown + ": " + std::strerror(err));
  }
  text.resize(static_cast<size_t>(n));
  text.resize(std::min(text.size(), text.find('\n')));
  if (!text.empty() && text.back() == '\r') text.pop_back();
  if (text.empty()) {
    return Status::InvalidArgument("--auth-file: the first line of " + shown +
                                   " is empty; it holds PASSWORD or USER:PASSWORD");
  }
  return text;
}

// The -a value: from -a, --auth-file (not both) or else MEMSTAND_PASSWORD (then
// *from_env); empty when none is given. Registered as a secret.
Result<std::string> CredentialText(const CredentialFlags& f, bool* from_env) {
  *from_env = false;
  const bool flag = f.authenticate_given, file = f.auth_file_given;
  if (flag && file) {
    return Status::InvalidArgument("-a/--authenticate and --auth-file exclude each other");
  }
  if (flag && f.authenticate.empty()) {
    return Status::InvalidArgument("-a/--authenticate: empty; give PASSWORD or USER:PASSWORD");
  }
  std::string text = f.authenticate;
  if (file) {
    auto read = ReadAuthFile(f.auth_file);
    if (!read.ok()) return read.status();
    text = *read;
  } else if (const char* env = std::getenv(kPasswordEnv);
             !flag && f.env_applies && env != nullptr && *env != 0) {
    text = env;
    *from_env = true;
  }
  RegisterSecret(text);
  if (size_t colon = text.find(':'); colon != std::string::npos) {
    RegisterSecret(text.substr(colon + 1));
  }
  return text;
}

// PASS or USER:PASS onto a target; `fill` only where the target has no password yet
// (MEMSTAND_PASSWORD: a URL's own password wins, as does --user).
void ApplyCredential(const std::string& text, bool fill, RedisTarget* t) {
  if (text.empty() || (fill && !t->password.empty())) return;
  size_t colon = text.find(':');
  if (colon == std::string::npos) {
    t->password = text;
    return;
  }
  if (!fill || t->user.empty()) t->user = text.substr(0, colon);
  t->password = text.substr(colon + 1);
}

// Who authenticates how, once the protocol is known.
Status CheckCredentials(const CredentialFlags& f, const LoadOptions& o) {
  const std::string name = ProtocolName(o.protocol);
  for (int i = 0; i < o.pool_size(); ++i) {
    const RedisTarget& t = o.pool_target(i);
    RegisterSecret(t.password);
    const bool takes_password = TakesPassword(o.protocol);
    if (!takes_password && !t.password.empty()) {
      return Status::InvalidArgument("--authenticate: not for --protocol " + name);
    }
    if (!takes_password && !t.user.empty()) {
      return Status::InvalidArgument("--user: not for --protocol " + name);
    }
    if (o.protocol == Protocol::kIproto && t.user.empty() && !t.password.empty()) {
      return Status::InvalidArgument("--authenticate: Tarantool needs USER:PASSWORD");
    }
    if (o.protocol == Protocol::kResp && !t.user.empty() && t.password.empty()) {
      return Status::InvalidArgument(
          std::string(f.user.empty() ? "--target" : "--user") + ": the user '" +
          Abbreviate(t.user) +
          "' has no password; Redis authenticates a user with one (give "
          "-a PASSWORD, --auth-file FILE or MEMSTAND_PASSWORD), and without it no AUTH is sent");
    }
  }
  return Status::OK();
}

}  // namespace

Status ApplyCredentials(const CredentialFlags& f, LoadOptions* o) {
  bool from_env = false;
  auto credential = CredentialText(f, &from_env);
  if (!credential.ok()) return credential.status();
  // MEMSTAND_PASSWORD is ambient: it reaches the protocols that take a password only,
  // and targets that have none of their own.
  const bool takes_password = TakesPassword(o->protocol);
  auto apply = [&](RedisTarget* t) {
    if (!from_env) ApplyCredential(*credential, false, t);
    if (!f.user.empty()) t->user = f.user;
    if (from_env && takes_password) ApplyCredential(*credential, true, t);
  };
  apply(&o->target);
  for (RedisTarget& member : o->pool) apply(&member);
  return CheckCredentials(f, *o);
}

}  // namespace memstand::cli

// Who `memstand run` authenticates as: a password from -a/--authenticate, --auth-file or
// MEMSTAND_PASSWORD, and --user, onto the target and every member of a pool. Every
// password read is registered with RegisterSecret (util/redact.h), so that no message
// shows it.
#pragma once

#include <string>

#include "load/load_options.h"
#include "util/status.h"

namespace memstand::cli {

/// The environment variable that holds a password (as -a: PASS or USER:PASS) when
/// neither -a nor --auth-file is given: argv is readable by every user in
/// /proc/PID/cmdline, a process's environment only by its owner and root.
inline constexpr const char* kPasswordEnv = "MEMSTAND_PASSWORD";

/// The credential flags as typed.
struct CredentialFlags {
  bool authenticate_given = false;  // -a/--authenticate: PASS or USER:PASS
  std::string authenticate;
  bool auth_file_given = false;  // --auth-file: -a's value on the file's first line
  std::string auth_file;
  std::string user;  // --user: empty, none
  bool env_applies = true;  // false: the server is memstand's own (no password)
};

/// Puts the password (-a or --auth-file, which exclude each other, else
/// MEMSTAND_PASSWORD for targets without a password of their own, RESP and IPROTO
/// only, when env_applies) and --user on o->target and o->pool, and checks what the protocol takes:
/// no user or password for memcache and etcd, a user with a password for Redis
/// (without one no AUTH is sent), a user for a Tarantool password. An --auth-file
/// must be a regular file readable by its owner only. InvalidArgument naming the
/// flag, never the password. REQUIRES: o->protocol resolved.
Status ApplyCredentials(const CredentialFlags& f, LoadOptions* o);

}  // namespace memstand::cli

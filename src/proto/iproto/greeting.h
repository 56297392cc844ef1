// The Tarantool greeting and chap-sha1 authentication.
//
// On connect a server sends 128 bytes: a 64-byte line "Tarantool <version> (<protocol>)
// <instance uuid>" padded with spaces and ended by '\n', then a 64-byte line holding the
// base64 salt (44 characters for 32 bytes) padded the same way.
#pragma once

#include <string>
#include <string_view>

#include "util/status.h"

namespace memstand::iproto {

struct Greeting {
  std::string version;   // "2.6.0-1-gb1b0d1e"
  std::string protocol;  // "Binary" (IPROTO); "Lua console" is a console port
  std::string uuid;      // the instance UUID; empty before 1.6.7
  std::string salt;      // decoded salt bytes (at least 20)
};

/// Parses the 128-byte greeting. A peer that is not Tarantool (or a console port) is a
/// Protocol error quoting what it sent. REQUIRES: greeting.size() == kGreetingSize.
Result<Greeting> ParseGreeting(std::string_view greeting);

/// chap-sha1: sha1(password) XOR sha1(salt[0:20] + sha1(sha1(password))), 20 bytes.
/// REQUIRES: salt.size() >= 20.
std::string ChapSha1Scramble(std::string_view password, std::string_view salt);

}  // namespace memstand::iproto

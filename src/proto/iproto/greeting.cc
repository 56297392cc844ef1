#include "proto/iproto/greeting.h"

#include <openssl/sha.h>

#include <algorithm>

#include "proto/iproto/constants.h"
#include "proto/wire_text.h"
#include "util/base64.h"

namespace memstand::iproto {

namespace {

constexpr size_t kLine = kGreetingSize / 2;

std::string_view TrimRight(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\0')) s.remove_suffix(1);
  return s;
}

Status NotTarantool(std::string_view greeting) {
  return Status::Protocol("not a Tarantool greeting: " + proto::Quote(greeting.substr(0, 64)));
}

// "Tarantool <version> (<protocol>) <uuid>"
Status ParseFirstLine(std::string_view line, Greeting* g) {
  constexpr std::string_view kPrefix = "Tarantool ";
  if (line.substr(0, kPrefix.size()) != kPrefix) return Status::Protocol("");
  line.remove_prefix(kPrefix.size());
  const size_t open = line.find(" (");
  const size_t close = line.find(')', open == std::string_view::npos ? 0 : open);
  if (open == std::string_view::npos || close == std::string_view::npos) {
    return Status::Protocol("");
  }
  g->version.assign(line.substr(0, open));
  g->protocol.assign(line.substr(open + 2, close - open - 2));
  std::string_view rest = line.substr(close + 1);
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  g->uuid.assign(rest);
  return Status::OK();
}

}  // namespace

Result<Greeting> ParseGreeting(std::string_view greeting) {
  if (greeting.size() != kGreetingSize || greeting[kLine - 1] != '\n' ||
      greeting[kGreetingSize - 1] != '\n') {
    return NotTarantool(greeting);
  }
  Greeting g;
  if (!ParseFirstLine(TrimRight(greeting.substr(0, kLine)), &g).ok()) return NotTarantool(greeting);
  if (g.protocol != "Binary") {
    return Status::Protocol("Tarantool port speaks '" + g.protocol +
                            "', not the binary protocol (IPROTO)");
  }
  const std::string_view salt64 = TrimRight(greeting.substr(kLine, kLine));
  if (!Base64Decode(salt64, &g.salt) || g.salt.size() < kScrambleSize) {
    return Status::Protocol("Tarantool greeting with a bad salt " + proto::Quote(salt64));
  }
  return g;
}

std::string ChapSha1Scramble(std::string_view password, std::string_view salt) {
  unsigned char hash1[SHA_DIGEST_LENGTH];
  unsigned char hash2[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(password.data()), password.size(), hash1);
  SHA1(hash1, sizeof(hash1), hash2);
  unsigned char both[kScrambleSize + SHA_DIGEST_LENGTH];
  std::copy_n(reinterpret_cast<const unsigned char*>(salt.data()), kScrambleSize, both);
  std::copy_n(hash2, sizeof(hash2), both + kScrambleSize);
  unsigned char hash3[SHA_DIGEST_LENGTH];
  SHA1(both, sizeof(both), hash3);
  std::string out(SHA_DIGEST_LENGTH, '\0');
  for (size_t i = 0; i < SHA_DIGEST_LENGTH; ++i) out[i] = static_cast<char>(hash1[i] ^ hash3[i]);
  return out;
}

}  // namespace memstand::iproto

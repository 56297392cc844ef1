#include "util/redact.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <mutex>
#include <vector>

namespace memstand {

namespace {

constexpr std::string_view kMask = "***";

struct Secrets {
  std::mutex mu;
  std::vector<std::string> list;  // longest first, so a secret inside another goes second
};

Secrets& Registry() {
  static Secrets* secrets = new Secrets();  // never destroyed: used until exit
  return *secrets;
}

bool EndsUrl(char c) {
  return std::isspace(static_cast<unsigned char>(c)) || c == '\'' || c == '"' || c == '`';
}

bool DigitsOnly(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Where the password of a target-like string is, [pos, pos + len) (len 0: none). One
// rule, scheme or not: the userinfo runs from "://" (or the start) to the last '@'
// (as ParseTargetUrl reads it, so a password holding '@', ':' or '/' is covered) and
// the password is what follows its first ':'; with a scheme, a userinfo without ':' is
// the password whole ("redis://pw@h"). With a scheme and no '@', in a string known to be
// one target (`whole`, not a word of free text, where "memcache://host:port" is usage),
// "user:PASS" with no host ("redis://default:S3cret") is a password where a port would
// be digits.
struct Span {
  size_t pos = 0;
  size_t len = 0;
};

Span PasswordSpan(std::string_view s, bool whole) {
  const size_t scheme_end = s.find("://");
  const bool scheme = scheme_end != std::string_view::npos;
  const size_t cred_start = scheme ? scheme_end + 3 : 0;
  const size_t at = s.rfind('@');
  if (at != std::string_view::npos && at >= cred_start) {
    // "redis://[user:pass@]host": the usage's placeholder (no host starts with ']').
    if (s.size() > cred_start && s[cred_start] == '[' && at + 1 < s.size() && s[at + 1] == ']') return {};
    const std::string_view cred = s.substr(cred_start, at - cred_start);
    const size_t colon = cred.find(':');
    if (colon == std::string_view::npos) return scheme ? Span{cred_start, cred.size()} : Span{};
    const std::string_view pw = cred.substr(colon + 1);
    // A cluster node's "ip:port@cport" (CLUSTER NODES) holds no credential.
    if (!scheme && !pw.empty() && pw.size() <= 5 && DigitsOnly(pw) && at + 1 < s.size() &&
        DigitsOnly(s.substr(at + 1))) {
      return {};
    }
    return {cred_start + colon + 1, pw.size()};
  }
  if (!scheme || !whole) return {};
  // A Sentinel target's hosts ("h:26379,h:26380"): a userinfo needs an '@' there.
  if (s.substr(0, scheme_end).ends_with("+sentinel")) return {};
  size_t end = s.find_first_of("/?#", cred_start);
  if (end == std::string_view::npos) end = s.size();
  const std::string_view authority = s.substr(cred_start, end - cred_start);
  const size_t colon = authority.find(':');
  if (authority.empty() || authority[0] == '[' || colon == std::string_view::npos) return {};
  const std::string_view after = authority.substr(colon + 1);
  if (after.empty() || (after.size() <= 5 && DigitsOnly(after))) return {};  // a port
  return {cred_start + colon + 1, after.size()};
}

void ReplaceAll(std::string* text, std::string_view secret) {
  for (size_t at = text->find(secret); at != std::string::npos;
       at = text->find(secret, at + kMask.size())) {
    text->replace(at, secret.size(), kMask);
  }
}

void RegisterCredential(std::string_view value) {
  RegisterSecret(value);
  if (size_t colon = value.find(':'); colon != std::string_view::npos) {
    RegisterSecret(value.substr(colon + 1));
  }
}

// Calls found(i, offset, length) for every secret in one argument: the value of each
// KEY=VALUE word whose KEY names a secret ("redis requirepass=S3cret maxmemory=8mb",
// "--set=masterauth=S3cret"); the first '=' of "--flag=" is the flag's.
template <typename Found>
void ForEachSettingSecret(int i, std::string_view arg, Found found) {
  size_t at = arg.starts_with("--") && arg.find('=') != std::string_view::npos ? arg.find('=') + 1 : 0;
  while (at < arg.size()) {
    size_t end = arg.find(' ', at);
    if (end == std::string_view::npos) end = arg.size();
    const std::string_view word = arg.substr(at, end - at);
    const size_t eq = word.find('=');
    if (eq != std::string_view::npos && eq + 1 < word.size() && IsSecretKey(word.substr(0, eq))) {
      found(i, at + eq + 1, word.size() - eq - 1);
    }
    at = end + 1;
  }
}

// Calls found(i, offset, length) for every password on the command line: a target's
// (a URL's, or a scheme-less "user:PASS@host" without spaces), the whole value of
// -a/--authenticate, and secret server settings.
template <typename Found>
void ForEachArgvSecret(int argc, const char* const* argv, Found found) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    const bool url = arg.find("://") != std::string_view::npos;
    if (url || (arg.find('@') != std::string_view::npos && arg.find(' ') == std::string_view::npos)) {
      const Span pw = PasswordSpan(arg, /*whole=*/true);
      if (pw.len > 0) found(i, pw.pos, pw.len);
    }
    ForEachSettingSecret(i, arg, found);
    const bool next_is_value = arg == "-a" || arg == "--authenticate";
    if (next_is_value && i + 1 < argc) {
      found(i + 1, 0, std::strlen(argv[i + 1]));
      ++i;
    } else if (arg.starts_with("--authenticate=")) {
      const size_t at = std::string_view("--authenticate=").size();
      found(i, at, arg.size() - at);
    } else if (arg.starts_with("-a") && !arg.starts_with("--") && arg.size() > 2) {
      const size_t at = arg[2] == '=' ? 3 : 2;
      found(i, at, arg.size() - at);
    }
  }
}

// `url` with the password PasswordSpan finds replaced by kMask.
std::string Redacted(std::string_view url, bool whole) {
  const Span pw = PasswordSpan(url, whole);
  if (pw.len == 0) return std::string(url);
  std::string out(url.substr(0, pw.pos));
  out.append(kMask);
  out.append(url.substr(pw.pos + pw.len));
  return out;
}

}  // namespace

bool IsSecretKey(std::string_view key) {
  std::string k(key);
  for (char& c : k) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return k.find("pass") != std::string::npos || k.find("secret") != std::string::npos ||
         k == "masterauth" || k == "masteruser" || k == "primaryauth" || k == "primaryuser";
}

std::string RedactUrl(std::string_view url) { return Redacted(url, /*whole=*/true); }

std::string RedactSecrets(std::string_view text) {
  std::string masked(text);
  {
    Secrets& s = Registry();
    std::lock_guard<std::mutex> lock(s.mu);
    for (const std::string& secret : s.list) ReplaceAll(&masked, secret);
  }
  // Every word (up to whitespace or a quote) that holds "://" or '@' is target-like.
  std::string out;
  size_t start = 0;
  while (start < masked.size()) {
    size_t end = start;
    while (end < masked.size() && !EndsUrl(masked[end])) ++end;
    const std::string_view word = std::string_view(masked).substr(start, end - start);
    out.append(word.find("://") != std::string_view::npos || word.find('@') != std::string_view::npos
                   ? Redacted(word, /*whole=*/false)
                   : std::string(word));
    if (end < masked.size()) out.push_back(masked[end]);
    start = end + 1;
  }
  return out;
}

void RegisterSecret(std::string_view secret) {
  if (secret.size() < kMinSecretLength) return;
  Secrets& s = Registry();
  std::lock_guard<std::mutex> lock(s.mu);
  if (std::find(s.list.begin(), s.list.end(), secret) != s.list.end()) return;
  s.list.emplace_back(secret);
  std::stable_sort(s.list.begin(), s.list.end(),
                   [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
}

void RegisterArgvSecrets(int argc, const char* const* argv) {
  ForEachArgvSecret(argc, argv, [&](int i, size_t at, size_t n) {
    RegisterCredential(std::string_view(argv[i] + at, n));
  });
}

void MaskArgvSecrets(int argc, char** argv) {
  ForEachArgvSecret(argc, argv, [&](int i, size_t at, size_t n) {
    std::memset(argv[i] + at, 'x', n);
  });
}

std::string Abbreviate(std::string_view text, size_t max) {
  if (text.size() <= max) return std::string(text);
  size_t cut = max;
  // Not inside a UTF-8 sequence: back up over continuation bytes.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return std::string(text.substr(0, cut)) + "... (" + std::to_string(text.size()) + " bytes)";
}

}  // namespace memstand

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

bool IsSchemeChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.';
}

bool EndsUrl(char c) {
  return std::isspace(static_cast<unsigned char>(c)) || c == '\'' || c == '"' || c == '`';
}

// The password of a URL's userinfo (all of it when it has no ':'); empty if none.
std::string_view UrlPassword(std::string_view url) {
  const size_t scheme_end = url.find("://");
  const size_t at = url.rfind('@');
  if (scheme_end == std::string_view::npos || at == std::string_view::npos || at < scheme_end + 3) {
    return {};
  }
  std::string_view cred = url.substr(scheme_end + 3, at - scheme_end - 3);
  const size_t colon = cred.find(':');
  return colon == std::string_view::npos ? cred : cred.substr(colon + 1);
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

// Calls found(i, offset, length) for every password on the command line: a URL's
// userinfo password, and the whole value of -a/--authenticate.
template <typename Found>
void ForEachArgvSecret(int argc, const char* const* argv, Found found) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg.find("://") != std::string_view::npos) {
      std::string_view pw = UrlPassword(arg);
      if (!pw.empty()) found(i, static_cast<size_t>(pw.data() - arg.data()), pw.size());
    }
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

}  // namespace

std::string RedactUrl(std::string_view url) {
  const size_t scheme_end = url.find("://");
  const size_t at = url.rfind('@');
  if (scheme_end == std::string_view::npos || at == std::string_view::npos || at < scheme_end + 3) {
    return std::string(url);
  }
  const size_t cred_start = scheme_end + 3;
  // "redis://[user:pass@]host": the usage's placeholder, no credential (no host
  // starts with ']').
  if (url[cred_start] == '[' && at + 1 < url.size() && url[at + 1] == ']') return std::string(url);
  std::string_view cred = url.substr(cred_start, at - cred_start);
  const size_t colon = cred.find(':');
  std::string out(url.substr(0, cred_start));
  if (colon != std::string_view::npos) out.append(cred.substr(0, colon + 1));
  out.append(kMask);
  out.append(url.substr(at));
  return out;
}

std::string RedactSecrets(std::string_view text) {
  std::string masked(text);
  {
    Secrets& s = Registry();
    std::lock_guard<std::mutex> lock(s.mu);
    for (const std::string& secret : s.list) ReplaceAll(&masked, secret);
  }
  std::string out;
  size_t done = 0;
  for (size_t p = masked.find("://"); p != std::string::npos; p = masked.find("://", p + 3)) {
    size_t start = p;
    while (start > done && IsSchemeChar(masked[start - 1])) --start;
    size_t end = p + 3;
    while (end < masked.size() && !EndsUrl(masked[end])) ++end;
    out.append(masked, done, start - done);
    out.append(RedactUrl(std::string_view(masked).substr(start, end - start)));
    done = end;
    if (end > p + 3) p = end - 3;
  }
  out.append(masked, done, std::string::npos);
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

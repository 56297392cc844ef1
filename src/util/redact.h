// What a message may show of the user's input: passwords never, long input cut short.
// One rule for every message that can hold a URL or a credential (parse errors, the
// report, JSON, the command line's own errors): RedactUrl for a string known to be a
// URL, RedactSecrets for free text.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace memstand {

/// The URL with its credentials' password replaced by "***". The userinfo runs from
/// "://" to the last '@' (as ParseTargetUrl reads it, so a password holding '@', ':'
/// or '/' is covered): "redis://u:pw@h:1" -> "redis://u:***@h:1"; a userinfo with no
/// ':' (redis://pw@h, where it is the password) becomes "***" whole. Text without
/// "://" and '@', and the usage form "redis://[user:pass@]host", are returned as is.
std::string RedactUrl(std::string_view url);

/// Free text with every registered secret replaced by "***" and, in every URL (a
/// scheme, "://", up to the next whitespace or quote), the userinfo's password redacted
/// as RedactUrl does. Thread-safe.
std::string RedactSecrets(std::string_view text);

/// Registers a password for RedactSecrets. Secrets shorter than kMinSecretLength are
/// not matched in free text (they would garble every message; URLs still hide them).
/// Thread-safe; a secret stays registered for the life of the process.
inline constexpr size_t kMinSecretLength = 3;
void RegisterSecret(std::string_view secret);

/// Registers the password of every credential in a command line before it is parsed:
/// the userinfo of every argument that is a URL with '@', and the value of
/// -a/--authenticate (-a V, -aV, --authenticate V, --authenticate=V; of USER:PASS the
/// part after the first ':', and the whole value too).
void RegisterArgvSecrets(int argc, const char* const* argv);

/// Overwrites those passwords in argv itself with 'x' (as mysql does), so that
/// /proc/PID/cmdline no longer shows them; they were readable there until this ran.
/// REQUIRES: argv parsed already (the parser keeps copies).
void MaskArgvSecrets(int argc, char** argv);

/// User input quoted in a message: at most `max` bytes of it, then "..." and the
/// whole length ("... (120000 bytes)"); shorter text as is.
std::string Abbreviate(std::string_view text, size_t max = 80);

}  // namespace memstand

// What a message may show of the user's input: passwords never, long input cut short.
// One rule for every message that can hold a URL or a credential (parse errors, the
// report, JSON, the command line's own errors): RedactUrl for a string known to be a
// URL, RedactSecrets for free text.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace memstand {

/// A target-like string (a URL, or a URL with its scheme mistyped or left out) with its
/// credential's password replaced by "***". One rule, scheme or not: the userinfo runs
/// from "://" (or the start) to the last '@' (as ParseTargetUrl reads it, so a password
/// holding '@', ':' or '/' is covered), and the password follows its first ':':
/// "redis://u:pw@h:1" -> "redis://u:***@h:1", "default:pw@h:1" -> "default:***@h:1",
/// "redis//u:pw@h" -> "redis//u:***@h". With a scheme, a userinfo with no ':' is the
/// password whole (redis://pw@h -> redis://***@h), and with no '@' a "user:PASS" where
/// the port would be ("redis://default:pw") is one. Returned as is: text with neither
/// "://" nor '@', "user@host" (no ':'), a cluster node's "ip:port@cport", and the usage
/// form "redis://[user:pass@]host".
std::string RedactUrl(std::string_view url);

/// Free text with every registered secret replaced by "***", and every word (up to
/// whitespace or a quote) holding "://" or '@' redacted as RedactUrl does, but for the
/// host-less "scheme://user:PASS" (in free text "memcache://host:port" is usage; the
/// command line's own is registered by RegisterArgvSecrets). Thread-safe.
std::string RedactSecrets(std::string_view text);

/// Registers a password for RedactSecrets. Secrets shorter than kMinSecretLength are
/// not matched in free text (they would garble every message; URLs still hide them).
/// Thread-safe; a secret stays registered for the life of the process.
inline constexpr size_t kMinSecretLength = 3;
void RegisterSecret(std::string_view secret);

/// Registers the password of every credential in a command line before it is parsed:
/// the password (as RedactUrl finds it) of every argument that is a URL, or holds '@'
/// and no space; the value of -a/--authenticate (-a V, -aV, --authenticate V,
/// --authenticate=V; of USER:PASS the part after the first ':', and the whole value
/// too); and the VALUE of every KEY=VALUE word of an argument whose KEY names a secret
/// (holds "pass" or "secret", or is masterauth/masteruser): `--config "redis
/// requirepass=V"`, `--set masterauth=V`, `--set=requirepass=V`.
void RegisterArgvSecrets(int argc, const char* const* argv);

/// A server setting whose value is a secret: its key holds "pass" or "secret", or is
/// masterauth, masteruser, primaryauth or primaryuser (any case). `--config`, `--set` and
/// a topology file's [settings] register such values.
bool IsSecretKey(std::string_view key);

/// Overwrites those passwords in argv itself with 'x' (as mysql does), so that
/// /proc/PID/cmdline no longer shows them; they were readable there until this ran.
/// REQUIRES: argv parsed already (the parser keeps copies).
void MaskArgvSecrets(int argc, char** argv);

/// User input quoted in a message: at most `max` bytes of it, then "..." and the
/// whole length ("... (120000 bytes)"); shorter text as is.
std::string Abbreviate(std::string_view text, size_t max = 80);

}  // namespace memstand

#include "relay/relay_options.h"

#include <charconv>
#include <cmath>
#include <utility>

#include "util/redact.h"

namespace memstand {

namespace {

std::string Quote(std::string_view s) { return "'" + Abbreviate(s) + "'"; }

// "host:port" or "[v6]:port"; port in [min_port, 65535].
Status ParseEndpoint(std::string_view text, int min_port, std::string* host, int* port) {
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0) {
    return Status::InvalidArgument("expected HOST:PORT, got " + Quote(text));
  }
  std::string_view h = text.substr(0, colon);
  if (h.front() == '[') {
    if (h.size() < 3 || h.back() != ']') {
      return Status::InvalidArgument("bad IPv6 address in " + Quote(text) + ": expected [ADDR]:PORT");
    }
    h = h.substr(1, h.size() - 2);
  }
  const std::string_view p = text.substr(colon + 1);
  auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), *port);
  if (p.empty() || ec != std::errc() || end != p.data() + p.size() || *port < min_port ||
      *port > 65535) {
    return Status::InvalidArgument("bad port in " + Quote(text) + ": expected " +
                                   std::to_string(min_port) + "..65535");
  }
  *host = std::string(h);
  return Status::OK();
}

}  // namespace

Result<RelayLink> ParseRelayLink(std::string_view text) {
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos || text.find('=', eq + 1) != std::string_view::npos) {
    return Status::InvalidArgument("bad link " + Quote(text) +
                                   ": expected LISTEN_HOST:PORT=TARGET_HOST:PORT, e.g. "
                                   "127.0.0.1:7000=127.0.0.1:6379");
  }
  RelayLink link;
  Status s = ParseEndpoint(text.substr(0, eq), 0, &link.listen_host, &link.listen_port);
  if (s.ok()) s = ParseEndpoint(text.substr(eq + 1), 1, &link.target_host, &link.target_port);
  if (!s.ok()) return s.WithContext("bad link " + Quote(text));
  return link;
}

Result<uint64_t> ParseRate(std::string_view text) {
  static const std::pair<std::string_view, double> kUnits[] = {
      {"Gbit", 1e9 / 8}, {"Mbit", 1e6 / 8}, {"kbit", 1e3 / 8}, {"bit", 1.0 / 8},
      {"GB", 1e9},       {"MB", 1e6},       {"kB", 1e3},       {"B", 1}};
  for (const auto& [suffix, factor] : kUnits) {
    if (text.size() <= suffix.size() || !text.ends_with(suffix)) continue;
    const std::string_view number = text.substr(0, text.size() - suffix.size());
    double v = 0;
    auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), v);
    const double bytes = v * factor;
    if (ec == std::errc() && end == number.data() + number.size() && std::isfinite(bytes) &&
        bytes >= 1 && bytes < 1e15) {
      return static_cast<uint64_t>(bytes);
    }
    break;
  }
  return Status::InvalidArgument("bad rate " + Quote(text) +
                                 ": expected a number with a unit bit, kbit, Mbit, Gbit "
                                 "(bits/s) or B, kB, MB, GB (bytes/s), at least 1 byte/s, "
                                 "e.g. 100Mbit");
}

Result<RelayMode> ParseRelayMode(std::string_view text) {
  if (text == "pipelined") return RelayMode::kPipelined;
  if (text == "serializing") return RelayMode::kSerializing;
  return Status::InvalidArgument("bad mode " + Quote(text) + ": expected pipelined or serializing");
}

Result<bool> ParseOnOff(std::string_view text) {
  if (text == "on") return true;
  if (text == "off") return false;
  return Status::InvalidArgument("bad value " + Quote(text) + ": expected on or off");
}

const char* RelayModeName(RelayMode mode) {
  return mode == RelayMode::kPipelined ? "pipelined" : "serializing";
}

}  // namespace memstand

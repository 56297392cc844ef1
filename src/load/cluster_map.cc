#include "load/cluster_map.h"

#include <charconv>

namespace memstand {

namespace {

constexpr std::array<uint16_t, 256> MakeCrcTable() {
  std::array<uint16_t, 256> t{};
  for (int i = 0; i < 256; ++i) {
    uint16_t crc = static_cast<uint16_t>(i << 8);
    for (int b = 0; b < 8; ++b) {
      crc = static_cast<uint16_t>((crc & 0x8000) ? (crc << 1) ^ 0x1021 : crc << 1);
    }
    t[i] = crc;
  }
  return t;
}
constexpr std::array<uint16_t, 256> kCrcTable = MakeCrcTable();

bool ParseInt(std::string_view s, int* out) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size();
}

Status Malformed(const std::string& why) {
  return Status::Protocol("unexpected CLUSTER SLOTS reply: " + why);
}

// [host, port, id, ...] -> host, port.
bool NodeAddress(const resp::Reply& r, const std::string& seed_host, std::string* host, int* port) {
  if (r.type != resp::Type::kArray || r.elements.size() < 2) return false;
  if (r.elements[1].type != resp::Type::kInteger) return false;
  *host = r.elements[0].str.empty() ? seed_host : r.elements[0].str;
  *port = static_cast<int>(r.elements[1].integer);
  return *port > 0 && *port < 65536;
}

}  // namespace

uint16_t Crc16(std::string_view data, uint16_t crc) {
  for (unsigned char c : data) {
    crc = static_cast<uint16_t>((crc << 8) ^ kCrcTable[((crc >> 8) ^ c) & 0xff]);
  }
  return crc;
}

int KeySlot(std::string_view key) {
  size_t open = key.find('{');
  if (open != std::string_view::npos) {
    size_t close = key.find('}', open + 1);
    if (close != std::string_view::npos && close > open + 1) {
      key = key.substr(open + 1, close - open - 1);
    }
  }
  return Crc16(key) & (kClusterSlots - 1);
}

std::array<int16_t, kClusterSlots> SlotMap::MakeEmpty() {
  std::array<int16_t, kClusterSlots> a;
  a.fill(-1);
  return a;
}

int SlotMap::NodeIndex(const std::string& host, int port) {
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i].host == host && nodes_[i].port == port) return static_cast<int>(i);
  }
  nodes_.push_back({host, port, {}});
  return static_cast<int>(nodes_.size() - 1);
}

void SlotMap::AddReplica(int node, const std::string& host, int port) {
  auto& replicas = nodes_[node].replicas;
  for (const auto& r : replicas) {
    if (r.first == host && r.second == port) return;
  }
  replicas.emplace_back(host, port);
}

int SlotMap::UncoveredSlots() const {
  int n = 0;
  for (int16_t node : slot_node_) n += node < 0;
  return n;
}

Result<SlotMap> ParseClusterSlots(const resp::Reply& reply, const std::string& seed_host) {
  if (reply.is_error()) return Status::Server("CLUSTER SLOTS: " + reply.str);
  if (reply.type != resp::Type::kArray) return Malformed("not an array");
  SlotMap map;
  for (const resp::Reply& range : reply.elements) {
    if (range.type != resp::Type::kArray || range.elements.size() < 3 ||
        range.elements[0].type != resp::Type::kInteger ||
        range.elements[1].type != resp::Type::kInteger) {
      return Malformed("a range is not [start, end, master, ...]");
    }
    const int64_t first = range.elements[0].integer, last = range.elements[1].integer;
    if (first < 0 || last >= kClusterSlots || first > last) return Malformed("slot out of range");
    std::string host;
    int port = 0;
    if (!NodeAddress(range.elements[2], seed_host, &host, &port)) return Malformed("bad node");
    const int node = map.NodeIndex(host, port);
    for (int64_t s = first; s <= last; ++s) map.Assign(static_cast<int>(s), node);
    for (size_t i = 3; i < range.elements.size(); ++i) {
      if (!NodeAddress(range.elements[i], seed_host, &host, &port)) return Malformed("bad replica");
      map.AddReplica(node, host, port);
    }
  }
  return map;
}

std::optional<Redirect> ParseRedirect(std::string_view error) {
  Redirect r;
  if (error.starts_with("MOVED ")) {
    error.remove_prefix(6);
  } else if (error.starts_with("ASK ")) {
    r.ask = true;
    error.remove_prefix(4);
  } else {
    return std::nullopt;
  }
  size_t space = error.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  std::string_view addr = error.substr(space + 1);
  size_t colon = addr.rfind(':');
  if (colon == std::string_view::npos) return std::nullopt;
  if (!ParseInt(error.substr(0, space), &r.slot) || r.slot < 0 || r.slot >= kClusterSlots ||
      !ParseInt(addr.substr(colon + 1), &r.port) || r.port <= 0 || r.port > 65535) {
    return std::nullopt;
  }
  r.host = std::string(addr.substr(0, colon));
  return r;
}

}  // namespace memstand

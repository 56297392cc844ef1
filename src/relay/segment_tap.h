// The relay's segment tap (docs/relay.md, "The segment tap"): an AF_PACKET socket that
// sees every TCP segment towards the relay's own ports as it arrives, before TCP merges
// it into the tail of a socket's receive queue. A read returns merged segments under one
// receive stamp (rx_stamp.h); the tap keeps, per received stream, where each segment's
// bytes lie and when they came (segment_map.h), so the relay can split a read back into
// the writes that arrived.
//
// The kernel hands a packet to packet sockets before TCP processes it, so once the tap is
// drained it holds every segment whose bytes a read can return (unless its socket
// overflowed: counted as kernel drops). A classic BPF filter built from the ports keeps
// only TCP segments with payload (or a SYN) towards them, cut to their headers.
// Needs CAP_NET_RAW. Not thread-safe: driven by the relay's loop thread.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <linux/filter.h>

#include "relay/relay_stats.h"
#include "relay/segment_map.h"
#include "util/status.h"

namespace memstand {

/// A TCP connection as seen on the wire, from the sender to the receiver. IPv4 addresses
/// are held as IPv4-mapped IPv6 (::ffff:a.b.c.d), as a dual-stack socket names them.
struct TcpTuple {
  std::array<uint8_t, 16> src{};
  std::array<uint8_t, 16> dst{};
  uint16_t src_port = 0;
  uint16_t dst_port = 0;
  bool operator==(const TcpTuple&) const = default;
};

struct TcpTupleHash {
  size_t operator()(const TcpTuple& t) const;
};

/// The stream a connected socket receives: its peer -> its own address. NotFound-like
/// IoError when the socket has no peer (yet).
Result<TcpTuple> ReceivedTuple(int fd);

/// What the tap parsed out of one frame.
struct TapSegment {
  TcpTuple tuple;
  uint32_t seq = 0;
  uint32_t payload = 0;  // payload bytes (the IP lengths less both headers)
  bool syn = false;
};

/// Parses an IPv4 or IPv6 packet (network header first, `caplen` bytes captured; only
/// the headers are needed) carrying a TCP segment. false for anything else or anything
/// malformed: short, a bad version or header length, a fragment, lengths that do not add
/// up. Never reads past caplen.
bool ParseTcpPacket(const uint8_t* packet, size_t caplen, TapSegment* out);

/// The classic BPF program: TCP over IPv4 (not a fragment) or IPv6 (TCP as the first
/// next header), not outgoing, with payload or SYN, destination port in `ports` (any
/// TCP port when ports is empty or too long for one program), cut to `snap` bytes.
std::vector<sock_filter> BuildTapFilter(const std::vector<uint16_t>& ports, uint32_t snap);

class SegmentTap {
 public:
  /// The packet socket (all interfaces), filter and stamps on; IoError naming what the
  /// kernel refused (typically EPERM without CAP_NET_RAW).
  static Result<std::unique_ptr<SegmentTap>> Open();
  ~SegmentTap();
  SegmentTap(const SegmentTap&) = delete;
  SegmentTap& operator=(const SegmentTap&) = delete;

  int fd() const { return fd_; }
  /// A local port the relay receives on (a listener, a connection's bound port): the
  /// filter takes segments towards it. Counted, so a port added twice stays until removed
  /// twice. The filter is rebuilt on every change.
  Status AddPort(uint16_t port);
  void RemovePort(uint16_t port);

  /// Reads every frame queued (at most 65536 per call) into the maps.
  void Drain();
  /// The map of the stream arriving on `t`, created when the tap has seen nothing of it
  /// yet; it lives until Unregister. Segments that came before (the SYN, data sent before
  /// the relay accepted) are in it already.
  SegmentMap* Register(const TcpTuple& t);
  void Unregister(const TcpTuple& t);

  /// The counters, with the kernel's drop count read first (PACKET_STATISTICS) and the
  /// open streams' map drops added.
  SegmentTapStats stats();

  static constexpr uint32_t kSnap = 128;            // IPv4 60 + TCP 60 at most
  static constexpr size_t kMaxUnclaimed = 1024;     // maps of streams no connection claimed

 private:
  explicit SegmentTap(int fd) : fd_(fd) {}
  Status ApplyFilter();
  void OnFrame(const uint8_t* data, size_t len, int64_t arrival_ns);
  SegmentMap* MapFor(const TcpTuple& t, bool create);

  struct Stream {
    SegmentMap map;
    bool claimed = false;
  };
  int fd_ = -1;
  std::map<uint16_t, int> ports_;
  std::unordered_map<TcpTuple, Stream, TcpTupleHash> streams_;
  std::deque<TcpTuple> unclaimed_;  // in creation order, for eviction
  SegmentTapStats stats_;
};

}  // namespace memstand

// What a relay does: its links, its delay in each direction, how it holds a stream, and
// its jitter, bandwidth cap and socket options (docs/relay.md).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace memstand {

/// One link: the relay listens on listen_host:listen_port and connects every client it
/// accepts to target_host:target_port.
struct RelayLink {
  std::string listen_host;
  int listen_port = 0;  // 0: the kernel picks (Relay::listen_port tells which)
  std::string target_host;
  int target_port = 0;
};

/// How a direction of a connection holds its stream while a chunk is in flight.
enum class RelayMode {
  kPipelined,    // chunks overlap in flight and leave in order, as on a wire
  kSerializing,  // the next chunk is read only after the previous one has left
};

struct RelayOptions {
  std::vector<RelayLink> links;
  /// One-way delay client -> target, per chunk (one read), in ns. 0: forward at once
  /// (the calibration run, docs/method.md rule 12).
  int64_t delay_ns = 0;
  /// One-way delay target -> client in ns; negative: the same as delay_ns.
  int64_t delay_back_ns = -1;
  RelayMode mode = RelayMode::kPipelined;
  /// Each chunk's delay is drawn uniformly from [delay - jitter, delay + jitter]
  /// (at least 0), and never earlier than the previous chunk's leave time: no reordering.
  int64_t jitter_ns = 0;
  uint64_t seed = 1;
  /// Bandwidth cap per direction of a connection in bytes/s; 0: none. A chunk of n bytes
  /// occupies the direction for n / rate seconds before its delay starts.
  uint64_t rate_bytes_per_s = 0;
  /// TCP_NODELAY on both sockets of every connection. false only demonstrates Nagle's
  /// algorithm with delayed ACK (the ~40 ms artifact of issue 15); never measure with it.
  bool nodelay = true;
  /// Bytes held per direction of a connection (read and not yet sent): at the cap the
  /// relay stops reading that direction (backpressure). 1 MiB holds 20 ms of 400 Mbit/s.
  size_t max_held_bytes = 1 << 20;
  /// Bytes held over every connection and direction of the relay: at the cap no
  /// direction reads until some bytes leave (at most one read, read_size, past it). The
  /// relay's memory bound whatever the number of clients; 256 MiB: 128 connections
  /// with both directions full. Clients of a full relay wait in TCP's flow control.
  size_t max_total_held_bytes = size_t{256} << 20;
  /// Bytes read at most per read (one chunk). 64 KiB: what loopback hands over at once.
  size_t read_size = 64 * 1024;
  /// Bound on connecting to a target, in ms; past it the client is closed as refused.
  int connect_timeout_ms = 5000;
  /// SCHED_FIFO priority (1..99) of the loop thread; 0: the default scheduler. A
  /// real-time thread runs as soon as a socket or its timer wakes it, instead of waiting
  /// for the core's current task: on a busy machine that is the difference between a
  /// timer overshoot of tens of microseconds and of milliseconds (docs/relay.md). The
  /// loop sleeps between wake-ups, so it takes only the CPU its chunks need. Needs root
  /// or CAP_SYS_NICE; Relay::Start fails when the kernel refuses it.
  int realtime_priority = 0;
  /// The loop's timer fires this long before a chunk is due, and the loop then polls
  /// its sockets without sleeping until the chunk leaves: the wake-up latency of the
  /// last stretch is gone, at the price of up to this much CPU per chunk. 0: sleep to
  /// the due time.
  int64_t spin_ns = 0;
  /// The segment tap (docs/relay.md): a packet socket that sees each TCP segment arrive,
  /// so a read that TCP merged from segments that waited in the socket together is split
  /// back at their boundaries, each due from its own arrival. Needs CAP_NET_RAW; where
  /// the socket cannot be opened the relay runs without it (RelayStats::tap_error says
  /// why). false: chunks are reads.
  bool segment_tap = true;

  int64_t back_delay_ns() const { return delay_back_ns < 0 ? delay_ns : delay_back_ns; }
};

/// "127.0.0.1:7000=127.0.0.1:6379" or "[::1]:7000=[::1]:6379". Both hosts must be given
/// (the relay listens on no address by default); ports 1..65535 (listen port 0 allowed).
Result<RelayLink> ParseRelayLink(std::string_view text);

/// A rate in bytes/s from "100Mbit", "1Gbit", "500kbit", "8000bit" (bits, powers of
/// 1000, as tc writes them) or "12MB", "64kB", "1000B" (bytes, powers of 1000). > 0.
Result<uint64_t> ParseRate(std::string_view text);

/// "pipelined" or "serializing".
Result<RelayMode> ParseRelayMode(std::string_view text);
const char* RelayModeName(RelayMode mode);

/// "on" or "off" (--segment-tap).
Result<bool> ParseOnOff(std::string_view text);

}  // namespace memstand

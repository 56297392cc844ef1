// What a relay counts about itself, per link and direction (docs/relay.md). Plain values:
// Relay::Snapshot() hands out a copy.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stats/hdr_histogram.h"

namespace memstand {

/// One direction of one link, summed over its connections.
struct RelayDirectionStats {
  int64_t chunks = 0;  // reads that returned bytes; each is scheduled and sent as one unit
  int64_t bytes = 0;   // bytes read (== bytes sent once the direction drained)
  /// The most chunks of one connection read and not yet fully sent at once.
  int64_t max_in_flight = 0;
  /// The most bytes one connection held (read, not yet sent): at most max_held_bytes.
  int64_t max_held_bytes = 0;
  /// Reads that carried the kernel's receive stamp (rx_stamp.h); the others' chunks count
  /// their delay from the read. Per stamped read, in ns: how late the read came after
  /// the arrival of the last of its bytes (the relay's wake-up; no longer in the delay).
  int64_t stamped_reads = 0;
  HdrHistogram read_late_ns;
  /// Reads that returned bytes (a chunk is one read unless the segment tap split it).
  int64_t reads = 0;
  /// The segment tap (docs/relay.md): reads whose every byte the tap's map covered (split
  /// at segment boundaries, each piece due from its own arrival); the chunks made beyond
  /// one per read by splitting; reads with bytes the map did not cover (those bytes count
  /// from the read's receive stamp, as without the tap). All 0 with the tap off.
  int64_t tap_reads = 0;
  int64_t tap_splits = 0;
  int64_t tap_fallbacks = 0;
  /// Per chunk, in ns: applied = when its first byte was sent minus when it arrived
  /// (its receive stamp; its read without one);
  /// extra = when it was sent minus when it was due (the timer's overshoot plus any
  /// wait for the receiver: the relay's own error).
  HdrHistogram applied_ns;
  HdrHistogram extra_ns;
  /// CLOCK_MONOTONIC ns (core/clock.h NowNs) of the first chunk's arrival and of the last
  /// chunk's first byte sent; 0 before the first. Their span bounds what a rate cap
  /// allows: the last chunk cannot leave before first_read_ns + bytes / rate.
  int64_t first_read_ns = 0;
  int64_t last_leave_ns = 0;
};

struct RelayLinkStats {
  int64_t connections = 0;  // clients accepted
  int64_t refused = 0;      // clients closed because the target could not be reached
  /// Sockets the relay opened for this link (accepted and connected) and how many of
  /// them read back TCP_NODELAY on (getsockopt after setting it).
  int64_t sockets = 0;
  int64_t nodelay_sockets = 0;
  /// accept() calls that failed for lack of descriptors or kernel memory (EMFILE,
  /// ENFILE, ENOBUFS, ENOMEM). Each one takes the listener out of the loop for a pause
  /// (the pending client waits in the backlog) instead of the loop spinning on it.
  int64_t accept_failures = 0;
  /// Connections reset by a cut (Relay::SetLinkMode kCut), open ones and new clients.
  int64_t cut = 0;
  RelayDirectionStats forward;  // client -> target
  RelayDirectionStats back;     // target -> client
};

/// The segment tap of a relay (segment_tap.h), over all its links.
struct SegmentTapStats {
  int64_t frames = 0;        // frames read from the packet socket
  int64_t segments = 0;      // of them, TCP segments with payload handed to a stream's map
  int64_t syns = 0;          // SYNs (each anchors a stream's offsets)
  int64_t malformed = 0;     // frames that did not parse (ignored)
  int64_t kernel_drops = 0;  // frames the kernel dropped: the tap's socket was full
  int64_t map_drops = 0;     // segments dropped at a map's cap (their bytes fall back)
  int64_t evicted = 0;       // maps of streams no connection claimed, dropped at the cap
};

struct RelayStats {
  std::vector<RelayLinkStats> links;  // in RelayOptions::links order
  /// Whether the segment tap ran (RelayOptions::segment_tap and the socket opened); why
  /// not when it was asked for and could not open; its counters.
  bool tap_on = false;
  std::string tap_error;
  SegmentTapStats tap;
  /// The most bytes held at once over all connections: at most
  /// RelayOptions::max_total_held_bytes plus one read.
  int64_t max_total_held_bytes = 0;
};

}  // namespace memstand

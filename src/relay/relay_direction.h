// One direction of a relayed connection: reads chunks from `src`, holds each until its
// leave time (LeaveSchedule), sends it to `dst`, and passes a FIN on after the last
// chunk. Not thread-safe: driven by the relay's loop thread; the stats it updates are
// guarded by the relay's lock, held by that loop while it runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "relay/leave_schedule.h"
#include "relay/relay_options.h"
#include "relay/relay_stats.h"
#include "relay/segment_map.h"

namespace memstand {

class SegmentTap;

class RelayDirection {
 public:
  enum class Io {
    kOk,     // progress, or nothing to do
    kReset,  // src reset the connection or dst refused bytes: reset both sides
  };

  /// `stats` (owned by the relay) outlives this direction; so does `total_held`, the
  /// bytes held by every direction of the relay (this one adds and removes its own;
  /// null: no global cap).
  RelayDirection(const RelayOptions& options, int64_t delay_ns, uint64_t seed,
                 RelayDirectionStats* stats, size_t* total_held = nullptr);
  ~RelayDirection();
  RelayDirection(const RelayDirection&) = delete;
  RelayDirection& operator=(const RelayDirection&) = delete;

  void Attach(int src_fd, int dst_fd) {
    src_ = src_fd;
    dst_ = dst_fd;
  }
  /// Splits reads at segment boundaries from `map` (src's received stream, kept by
  /// `tap`; both outlive this direction's reads). The tap is drained (its queued frames
  /// read into the maps) before a read needs the map to cover it. Without a map (the
  /// default) a chunk is one read.
  void AttachMap(SegmentMap* map, SegmentTap* tap) {
    map_ = map;
    tap_ = tap;
  }
  /// Whether the loop should read from src: not at its FIN, below the held-bytes cap
  /// and the relay's (max_total_held_bytes), and (serializing) nothing in flight.
  bool WantsRead() const;
  /// Whether dst refused bytes (EAGAIN) and the loop should wait for it to be writable.
  bool WantsWrite() const { return blocked_; }
  void Unblock() { blocked_ = false; }

  /// One read from src (one chunk, at most read_size bytes) at time now_ns; the chunk
  /// is due its delay after its arrival (the kernel's receive stamp, rx_stamp.h; now_ns
  /// without one). A FIN is queued like a chunk, so it leaves no earlier than the data
  /// before it.
  /// `scratch` holds at least options.read_size bytes.
  Io ReadOnce(int64_t now_ns, char* scratch);
  /// Sends every chunk due at now_ns, in order, until dst would block.
  Io Flush(int64_t now_ns);
  /// When the next chunk is due, if the loop must wake for it; INT64_MAX otherwise.
  int64_t NextDue() const;
  /// The FIN went out: nothing more will pass this way.
  bool Done() const { return fin_sent_; }

 private:
  struct Chunk {
    std::string data;  // empty: the FIN
    size_t sent = 0;
    int64_t arrival_ns = 0;  // NowNs() time
    int64_t due_ns = 0;
  };
  // The read at now_ns carried stamp_ns (0: none): the arrival of its last byte in
  // NowNs() time (now_ns without a stamp), counted.
  int64_t ReadArrival(int64_t now_ns, int64_t stamp_ns);
  // Queues a chunk of data (n > 0, or the FIN: n == 0) that arrived at arrival_ns.
  void Enqueue(const char* data, size_t n, int64_t arrival_ns);
  // ReadOnce with the segment tap's map: the read cut (serializing) and split (pipelined)
  // at segment boundaries.
  Io ReadSplit(int64_t now_ns, char* scratch, size_t cap);
  void Push(Chunk chunk);
  // Sends what it can of the front chunk, stamping its leave time at its first byte;
  // false when dst would block or failed (*io = kReset).
  bool SendFront(Io* io);
  void Pop();

  const RelayOptions& options_;
  RelayDirectionStats* stats_;
  size_t* total_held_;
  LeaveSchedule schedule_;
  int src_ = -1;
  int dst_ = -1;
  std::deque<Chunk> queue_;
  size_t held_bytes_ = 0;
  int64_t in_flight_ = 0;  // data chunks in queue_
  int64_t last_arrival_ns_ = INT64_MIN;
  int64_t last_start_ns_ = INT64_MIN;  // the schedule's last input (it must not decrease)
  int64_t last_leave_ns_ = INT64_MIN;  // the previous chunk's first byte sent
  bool fin_read_ = false;
  bool fin_sent_ = false;
  bool blocked_ = false;
  SegmentMap* map_ = nullptr;  // null: the tap is off, a chunk is a read
  SegmentTap* tap_ = nullptr;
  std::vector<SegmentPiece> pieces_;  // scratch of ReadSplit
};

}  // namespace memstand

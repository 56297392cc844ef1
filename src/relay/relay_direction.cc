#include "relay/relay_direction.h"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <utility>

#include "core/clock.h"
#include "relay/rx_stamp.h"
#include "relay/segment_tap.h"

namespace memstand {

RelayDirection::RelayDirection(const RelayOptions& options, int64_t delay_ns, uint64_t seed,
                               RelayDirectionStats* stats, size_t* total_held)
    : options_(options),
      stats_(stats),
      total_held_(total_held),
      schedule_(delay_ns, options.jitter_ns, options.rate_bytes_per_s, seed) {}

RelayDirection::~RelayDirection() {
  if (total_held_ != nullptr) *total_held_ -= held_bytes_;  // dropped with the connection
}

bool RelayDirection::WantsRead() const {
  if (fin_read_ || held_bytes_ >= options_.max_held_bytes) return false;
  if (total_held_ != nullptr && *total_held_ >= options_.max_total_held_bytes) return false;
  return options_.mode == RelayMode::kPipelined || queue_.empty();
}

// A chunk's delay counts from its arrival, not from the read: a thread that wakes late
// no longer adds its lateness to the delay. The arrival is the kernel's receive stamp
// (rx_stamp.h: that of the last arrival among the bytes read), turned into NowNs() time
// by the wall - monotonic offset read beside it; a read without a stamp (stamping not on
// yet, or refused) counts from the read, as before, and is counted as such. With the
// segment tap the read is split at segment boundaries instead (ReadSplit).
RelayDirection::Io RelayDirection::ReadOnce(int64_t now_ns, char* scratch) {
  const size_t cap = std::min(options_.read_size, options_.max_held_bytes - held_bytes_);
  if (map_ != nullptr) return ReadSplit(now_ns, scratch, cap);
  int64_t stamp_ns = 0;
  const ssize_t n = RecvStamped(src_, scratch, cap, 0, &stamp_ns);
  if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK ? Io::kOk : Io::kReset;
  if (n > 0) ++stats_->reads;
  Enqueue(scratch, static_cast<size_t>(n), ReadArrival(now_ns, n > 0 ? stamp_ns : 0));
  return Io::kOk;
}

int64_t RelayDirection::ReadArrival(int64_t now_ns, int64_t stamp_ns) {
  if (stamp_ns == 0) return now_ns;
  // At most now (the offset's own error).
  const int64_t arrival_ns = std::min(now_ns, stamp_ns - RealtimeMinusMonotonicNs());
  ++stats_->stamped_reads;
  stats_->read_late_ns.Record(std::max<int64_t>(0, now_ns - arrival_ns));
  return arrival_ns;
}

// The segment tap's split (docs/relay.md, "The segment tap"). The tap sees a segment
// before TCP queues it, so once drained its map holds every segment a read returns.
//   Serializing: the read is cut to the next chunk, the segments that had arrived by
//   max(the first one's arrival, the previous chunk's leave): those that waited while
//   the previous chunk was in flight go together (one segment per chunk would cap the
//   stream at one segment per delay), a later one waits for the next chunk in the socket.
//   Pipelined: the whole read, one chunk per segment, each due from its own arrival.
// Bytes the map does not hold count from the read's stamp, as without the tap.
RelayDirection::Io RelayDirection::ReadSplit(int64_t now_ns, char* scratch, size_t cap) {
  const bool serializing = options_.mode == RelayMode::kSerializing;
  size_t want = cap;
  bool cut = false;
  if (serializing) {
    tap_->Drain();
    const size_t chunk = map_->SerialChunk(last_leave_ns_, &cut);
    if (chunk > 0 && chunk < want) {
      want = chunk;
    } else {
      cut = false;  // the read's cap cuts it, or the map does not hold the first byte
    }
  }
  int64_t stamp_ns = 0;
  const ssize_t n = RecvStamped(src_, scratch, want, 0, &stamp_ns);
  if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK ? Io::kOk : Io::kReset;
  const int64_t read_arrival = ReadArrival(now_ns, n > 0 ? stamp_ns : 0);
  if (n == 0) {
    Enqueue(scratch, 0, read_arrival);
    return Io::kOk;
  }
  ++stats_->reads;
  const auto size = static_cast<size_t>(n);
  map_->Pieces(size, &pieces_);
  const auto covered = [this] {
    for (const SegmentPiece& p : pieces_) {
      if (!p.covered) return false;
    }
    return true;
  };
  if (!covered()) {  // frames queued in the tap since the last drain
    tap_->Drain();
    map_->Pieces(size, &pieces_);
  }
  map_->Consume(size);
  const bool all = covered();
  ++(all ? stats_->tap_reads : stats_->tap_fallbacks);
  if (serializing) {  // one chunk, due from its last byte's arrival
    if (all && cut && size == want) ++stats_->tap_splits;
    Enqueue(scratch, size, all ? pieces_.back().arrival_ns : read_arrival);
    return Io::kOk;
  }
  stats_->tap_splits += static_cast<int64_t>(pieces_.size()) - 1;
  size_t at = 0;
  for (const SegmentPiece& p : pieces_) {
    Enqueue(scratch + at, p.bytes, p.covered ? std::min(p.arrival_ns, read_arrival) : read_arrival);
    at += p.bytes;
  }
  return Io::kOk;
}

// Stamps of one socket do not go back, and the schedule needs its inputs not to: an
// arrival is at least the previous one's.
void RelayDirection::Enqueue(const char* data, size_t n, int64_t arrival_ns) {
  arrival_ns = std::max(arrival_ns, last_arrival_ns_);
  last_arrival_ns_ = arrival_ns;
  // Serializing: one chunk in flight, store and forward. A chunk that arrived while the
  // one before it was in flight starts its delay when that one left.
  const int64_t start_ns = options_.mode == RelayMode::kSerializing
                               ? std::max(arrival_ns, last_leave_ns_)
                               : arrival_ns;
  Chunk chunk;
  chunk.arrival_ns = arrival_ns;
  chunk.due_ns = schedule_.Next(std::max(start_ns, last_start_ns_), n);
  last_start_ns_ = std::max(start_ns, last_start_ns_);
  if (n == 0) {
    fin_read_ = true;
  } else {
    chunk.data.assign(data, n);
    if (stats_->chunks == 0) stats_->first_read_ns = arrival_ns;
    ++stats_->chunks;
    stats_->bytes += static_cast<int64_t>(n);
  }
  Push(std::move(chunk));
}

void RelayDirection::Push(Chunk chunk) {
  if (!chunk.data.empty()) {
    held_bytes_ += chunk.data.size();
    if (total_held_ != nullptr) *total_held_ += chunk.data.size();
    ++in_flight_;
    stats_->max_in_flight = std::max(stats_->max_in_flight, in_flight_);
    stats_->max_held_bytes = std::max(stats_->max_held_bytes, static_cast<int64_t>(held_bytes_));
  }
  queue_.push_back(std::move(chunk));
}

void RelayDirection::Pop() {
  if (!queue_.front().data.empty()) {
    held_bytes_ -= queue_.front().data.size();
    if (total_held_ != nullptr) *total_held_ -= queue_.front().data.size();
    --in_flight_;
  }
  queue_.pop_front();
}

RelayDirection::Io RelayDirection::Flush(int64_t now_ns) {
  Io io = Io::kOk;
  while (!blocked_ && !queue_.empty() && queue_.front().due_ns <= now_ns) {
    if (!SendFront(&io)) break;
    Pop();
  }
  return io;
}

bool RelayDirection::SendFront(Io* io) {
  Chunk& c = queue_.front();
  if (c.data.empty()) {  // the FIN, after every byte before it
    shutdown(dst_, SHUT_WR);
    fin_sent_ = true;
    return true;
  }
  while (c.sent < c.data.size()) {
    const int64_t leave_ns = c.sent == 0 ? NowNs() : 0;
    const ssize_t n = send(dst_, c.data.data() + c.sent, c.data.size() - c.sent,
                           MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        blocked_ = true;
      } else {
        *io = Io::kReset;
      }
      return false;
    }
    if (c.sent == 0) {  // the chunk leaves: what the relay applied, and its own error
      stats_->applied_ns.Record(leave_ns - c.arrival_ns);
      stats_->extra_ns.Record(leave_ns - c.due_ns);
      stats_->last_leave_ns = leave_ns;
      last_leave_ns_ = leave_ns;
    }
    c.sent += static_cast<size_t>(n);
  }
  return true;
}

int64_t RelayDirection::NextDue() const {
  if (blocked_ || queue_.empty()) return INT64_MAX;
  return queue_.front().due_ns;
}

}  // namespace memstand

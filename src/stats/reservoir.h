// Raw per-request samples (docs/method.md rule 9: keep the raw samples, so the shape of a
// distribution can be checked by anyone): every one up to a cap, beyond it a uniform
// reservoir. One reservoir per load thread, nothing shared on the hot path; the
// threads' reservoirs are merged exactly into one uniform sample after the run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "util/rng.h"

namespace memstand {

/// One measured request.
struct Sample {
  int64_t time_ns = 0;     // reply time since the measured start
  int64_t latency_ns = 0;  // send to reply
  uint32_t command = 0;    // command index in LoadOptions::commands
};

/// A uniform random sample, without replacement, of the items offered so far: after n
/// offers it holds min(n, capacity) of them and every subset of that size is equally
/// likely (all of them while n <= capacity, in offer order). Algorithm L (Li, "Reservoir-
/// sampling algorithms of time complexity O(n(1 + log(N/n)))", ACM TOMS 1994): once
/// full, it draws how many items to skip before the next one it keeps, so an offer that
/// is skipped costs an increment and a comparison.
/// Memory grows with the items kept (doubling, never past capacity), so a big cap costs
/// nothing on a short run; once full, Offer never allocates. Not thread-safe: one owner.
class SampleReservoir {
 public:
  /// REQUIRES: capacity >= 1. The same seed and offers give the same sample.
  SampleReservoir(size_t capacity, uint64_t seed);

  void Offer(const Sample& s) {
    const uint64_t index = seen_++;
    if (index < capacity_) {
      Append(s);
    } else if (index == next_) {
      Replace(s);
    }
  }

  /// Items offered so far.
  uint64_t seen() const { return seen_; }
  size_t capacity() const { return capacity_; }
  /// The kept items: min(seen(), capacity()) of them, in no meaningful order once full.
  const std::vector<Sample>& samples() const { return kept_; }

 private:
  void Append(const Sample& s);
  void Replace(const Sample& s);
  /// Moves next_ past the items Algorithm L skips.
  void DrawNext();

  size_t capacity_;
  Rng rng_;
  std::vector<Sample> kept_;
  uint64_t seen_ = 0;
  uint64_t next_ = UINT64_MAX;  // index of the next item to keep, once full
  double w_ = 1;                // Algorithm L's W: the largest key kept, on its scale
};

/// One thread's reservoir and how to shift its times onto the common clock.
struct ReservoirPart {
  const SampleReservoir* reservoir = nullptr;  // null: the thread offered nothing
  int64_t time_offset_ns = 0;                  // added to every time_ns
};

/// Merges per-thread reservoirs exactly into one uniform sample of everything offered
/// to any of them: the result holds min(capacity, total seen) items and every subset of
/// that size of all offered items is equally likely, whatever the threads' shares.
/// Method: the number taken from each thread follows the multivariate hypergeometric
/// law of a uniform draw from the union (drawn one item at a time, each from a thread
/// with probability proportional to its not yet drawn count); then that many are taken
/// uniformly from the thread's reservoir, which is itself a uniform sample of the
/// thread's items. Sorted by time_ns (then latency, command). Deterministic per seed.
/// REQUIRES: every reservoir's capacity >= capacity >= 1.
std::vector<Sample> MergeReservoirs(const std::vector<ReservoirPart>& parts, size_t capacity,
                                    uint64_t seed);

}  // namespace memstand

// Runs of consecutive values kept from a stream of unknown length, spread evenly over
// it: what a serial-correlation or an inter-arrival test needs (neighbours in time),
// in memory that does not grow with the run. A uniform reservoir (reservoir.h) keeps
// single values and loses who followed whom; this keeps blocks of kBlock consecutive
// offers starting every `stride` offers, and when the blocks fill their room it drops
// every other one and doubles the stride, so that what is kept always covers the whole
// stream so far at an even spacing (systematic sampling with doubling).
// Not thread-safe: one owner (a load thread); offers cost a test and a decrement
// outside the blocks.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace memstand {

class BlockSample {
 public:
  static constexpr uint32_t kBlock = 256;

  /// REQUIRES: max_blocks >= 2 and even (halving keeps whole blocks).
  explicit BlockSample(uint32_t max_blocks = 64);

  void Offer(int64_t v) {
    if (skip_ != 0) {
      --skip_;
      return;
    }
    Keep(v);
  }

  /// Values offered so far.
  uint64_t offered() const;
  /// The kept blocks in stream order, each kBlock consecutive offers but the last,
  /// which may be shorter (the stream ended in it).
  std::vector<std::span<const int64_t>> blocks() const;
  /// Offers between the starts of two kept blocks.
  uint64_t stride() const { return stride_; }
  size_t kept() const { return values_.size(); }

 private:
  void Keep(int64_t v);

  uint32_t max_blocks_;
  std::vector<int64_t> values_;  // the blocks back to back
  uint64_t skip_ = 0;            // offers to pass over before the next block starts
  uint64_t pending_skip_ = 0;    // skip_ as set when the last block ended
  uint64_t stride_ = kBlock;
  uint64_t block_start_ = 0;     // the offer index where the current (or last) block began
};

}  // namespace memstand

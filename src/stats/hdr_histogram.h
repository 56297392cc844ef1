// HdrHistogram: a fixed-memory histogram of integer values (here: nanoseconds) whose
// buckets keep `significant_figures` decimal digits of precision over the whole range.
// Same bucket layout as the reference HdrHistogram (Gil Tene), so counts can be
// exported in its V2 log encoding. Not thread-safe: one per thread, merged with Add().
//
// The counts array spans the whole range (33,792 counts, 270 KB for 1 ns to 1 hour at 3
// digits), but a run's values touch a few pages of it. So the array is taken zero-filled
// from the kernel (mmap for large arrays: pages cost nothing until written), and copy,
// Add, Reset and the queries visit only the indexes between min() and max(), where every
// non-zero count lies. memstand keeps dozens of histograms (two per command, per thread,
// per one-second interval); zeroing and copying whole arrays was most of a short run's
// fixed CPU cost.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace memstand {

class HdrHistogram {
 public:
  /// REQUIRES: 1 <= lowest_discernible, 2 * lowest_discernible <= highest_trackable,
  /// 1 <= significant_figures <= 5.
  /// Default: 1 ns to 1 hour, 3 significant digits.
  explicit HdrHistogram(int64_t lowest_discernible = 1,
                        int64_t highest_trackable = 3'600'000'000'000LL,
                        int significant_figures = 3);
  HdrHistogram(const HdrHistogram& other);
  HdrHistogram& operator=(const HdrHistogram& other);
  /// A moved-from histogram may only be assigned to or destroyed.
  HdrHistogram(HdrHistogram&& other) noexcept;
  HdrHistogram& operator=(HdrHistogram&& other) noexcept;
  ~HdrHistogram();

  /// Records one value. Negative values are recorded as 0; values above
  /// highest_trackable are recorded as highest_trackable and counted in saturated().
  /// RecordN(v, n) is n times Record(v); n <= 0 records nothing.
  [[gnu::always_inline]] void Record(int64_t value) {  // once per reply: in line
    if (value < 0 || value > highest_trackable_) [[unlikely]] return RecordN(value, 1);
    const int pow2_ceiling = std::bit_width(static_cast<uint64_t>(value | sub_bucket_mask_));
    const int bucket = pow2_ceiling - unit_magnitude_ - (sub_bucket_half_count_magnitude_ + 1);
    const int sub_bucket = static_cast<int>(value >> (bucket + unit_magnitude_));
    ++counts_[((bucket + 1) << sub_bucket_half_count_magnitude_) + sub_bucket -
              sub_bucket_half_count_];
    ++total_count_;
    min_ = std::min(min_, value);
    max_ = std::max(max_, value);
  }
  void RecordN(int64_t value, int64_t count);

  /// Adds all counts of `other`. REQUIRES: same construction parameters.
  void Add(const HdrHistogram& other);
  void Reset();

  int64_t total_count() const { return total_count_; }
  int64_t saturated() const { return saturated_; }
  /// Exact min and max of recorded values (0 when empty).
  int64_t min() const;
  int64_t max() const;
  /// Mean and standard deviation computed from bucket midpoints (as the reference),
  /// so within the histogram's precision of the exact ones; the mean is clamped to
  /// [min(), max()]. 0 when empty.
  double mean() const;
  double stddev() const;
  /// The value at percentile p (0..100): the highest value equivalent to the bucket
  /// holding the ceil(p/100 * total)-th smallest recorded value (as the reference
  /// implementation), clamped to max(). p <= 0 returns min(), p >= 100 returns max().
  /// 0 when empty.
  int64_t ValueAtPercentile(double p) const;

  /// Bucket geometry (for exporters such as the V2 log encoder). Counts index i holds
  /// the values [ValueFromIndex(i), HighestEquivalentValue(ValueFromIndex(i))].
  /// REQUIRES (value arguments): 0 <= value <= highest_trackable().
  int64_t LowestEquivalentValue(int64_t value) const;
  int64_t HighestEquivalentValue(int64_t value) const;
  int CountsIndexFor(int64_t value) const;
  int64_t ValueFromIndex(int index) const;
  int counts_len() const { return counts_len_; }
  int64_t count_at_index(int index) const { return counts_[index]; }
  int64_t lowest_discernible() const { return lowest_discernible_; }
  int64_t highest_trackable() const { return highest_trackable_; }
  int significant_figures() const { return significant_figures_; }

 private:
  /// Index of the power-of-two bucket holding `value` (0 for the lowest ones).
  int BucketIndex(int64_t value) const;
  /// Midpoint of the value range held by counts index `index`.
  double MedianEquivalentValue(int index) const;
  /// [first, last] counts indexes that may be non-zero (those of min_ and max_);
  /// first > last when nothing was recorded.
  int FirstUsedIndex() const { return total_count_ == 0 ? 1 : CountsIndexFor(min_); }
  int LastUsedIndex() const { return total_count_ == 0 ? 0 : CountsIndexFor(max_); }

  int64_t lowest_discernible_;
  int64_t highest_trackable_;
  int significant_figures_;
  int unit_magnitude_;
  int sub_bucket_half_count_magnitude_;
  int32_t sub_bucket_count_;
  int32_t sub_bucket_half_count_;
  int64_t sub_bucket_mask_;
  int bucket_count_;
  int counts_len_ = 0;
  int64_t* counts_ = nullptr;  // counts_len_ zero-filled counts (AllocateZeroed)
  int64_t total_count_ = 0;
  int64_t saturated_ = 0;
  int64_t min_ = INT64_MAX;
  int64_t max_ = 0;
};

}  // namespace memstand

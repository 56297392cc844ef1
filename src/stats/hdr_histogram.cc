// Bucket layout (as the reference HdrHistogram): bucket b covers values whose top set
// bit is at position (unit_magnitude + sub_bucket_half_count_magnitude + b), split
// into sub-buckets of width 2^(unit_magnitude + b). Bucket 0 holds all sub_bucket_count
// sub-buckets; every later bucket only its upper half (the lower half is covered by
// the bucket before), so counts_len = (bucket_count + 1) * sub_bucket_half_count.
#include "stats/hdr_histogram.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>

#include <sys/mman.h>

namespace memstand {

namespace {

/// Position of the highest set bit of `v`, plus one (0 for v == 0).
int BitLength(uint64_t v) { return 64 - std::countl_zero(v); }

/// Smallest k with 2^k >= 2 * 10^significant_figures (the reference's
/// ceil(log2(largest_value_with_single_unit_resolution))).
int SubBucketCountMagnitude(int significant_figures) {
  int64_t largest_single_unit = 2;
  for (int i = 0; i < significant_figures; ++i) largest_single_unit *= 10;
  return BitLength(static_cast<uint64_t>(largest_single_unit - 1));
}

/// The 1-based rank ceil(p/100 * total), at least 1 and at most total. A few ulps
/// of slack keep an exact product (e.g. 99.9% of 1000) from rounding up.
int64_t RankAtPercentile(double p, int64_t total) {
  const double exact = p / 100.0 * static_cast<double>(total);
  const double rank = std::ceil(exact * (1.0 - 4 * DBL_EPSILON));
  return std::clamp(static_cast<int64_t>(rank), int64_t{1}, total);
}

/// Arrays from this size on are mapped from the kernel, whose pages are zero and cost
/// nothing until written; smaller ones come zeroed from calloc.
constexpr size_t kMapBytes = 64 * 1024;

/// Mapped arrays given back, zero again, for the next histogram of the same length:
/// merge and report decode, add and drop dozens of histograms per input, and each
/// mmap, first write of a page and munmap is a system call or a page fault (merge_test's
/// 2,770 merges: 23 s of system time, 7 s with these kept). At most kSpareArrays are kept
/// (2 MB of address space, resident only where a histogram wrote), for the whole
/// process: never destroyed, so histograms in static storage may still give theirs back.
constexpr int kSpareArrays = 8;
struct SpareArrays {
  std::mutex mu;
  int count = 0;
  int64_t* counts[kSpareArrays];
  int lens[kSpareArrays];
};
SpareArrays& Spares() {
  static SpareArrays* spares = new SpareArrays;
  return *spares;
}

int64_t* AllocateZeroed(int n) {
  const size_t bytes = static_cast<size_t>(n) * sizeof(int64_t);
  void* p;
  if (bytes >= kMapBytes) {
    SpareArrays& s = Spares();
    {
      std::lock_guard<std::mutex> lock(s.mu);
      for (int i = s.count - 1; i >= 0; --i) {
        if (s.lens[i] != n) continue;
        int64_t* counts = s.counts[i];
        --s.count;
        s.counts[i] = s.counts[s.count];
        s.lens[i] = s.lens[s.count];
        return counts;
      }
    }
    p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
  } else {
    p = std::calloc(static_cast<size_t>(n), sizeof(int64_t));
    if (p == nullptr) throw std::bad_alloc();
  }
  return static_cast<int64_t*>(p);
}

/// Every non-zero count of `counts` lies in [first, last] (first > last: none).
void ReleaseCounts(int64_t* counts, int n, int first, int last) {
  if (counts == nullptr) return;
  const size_t bytes = static_cast<size_t>(n) * sizeof(int64_t);
  if (bytes >= kMapBytes) {
    if (first <= last) std::fill(counts + first, counts + last + 1, 0);
    SpareArrays& s = Spares();
    {
      std::lock_guard<std::mutex> lock(s.mu);
      if (s.count < kSpareArrays) {
        s.counts[s.count] = counts;
        s.lens[s.count] = n;
        ++s.count;
        return;
      }
    }
    munmap(counts, bytes);
  } else {
    std::free(counts);
  }
}

}  // namespace

HdrHistogram::HdrHistogram(int64_t lowest_discernible, int64_t highest_trackable,
                           int significant_figures)
    : lowest_discernible_(lowest_discernible),
      highest_trackable_(highest_trackable),
      significant_figures_(significant_figures) {
  assert(lowest_discernible >= 1);
  assert(highest_trackable / 2 >= lowest_discernible);
  assert(significant_figures >= 1 && significant_figures <= 5);
  unit_magnitude_ = BitLength(static_cast<uint64_t>(lowest_discernible)) - 1;
  sub_bucket_half_count_magnitude_ = std::max(SubBucketCountMagnitude(significant_figures), 1) - 1;
  assert(unit_magnitude_ + sub_bucket_half_count_magnitude_ <= 61);
  sub_bucket_count_ = int32_t{1} << (sub_bucket_half_count_magnitude_ + 1);
  sub_bucket_half_count_ = sub_bucket_count_ / 2;
  sub_bucket_mask_ = (int64_t{sub_bucket_count_} - 1) << unit_magnitude_;
  // Buckets needed so that highest_trackable falls below the last bucket's top.
  bucket_count_ = std::max(BitLength(static_cast<uint64_t>(highest_trackable)) - unit_magnitude_ -
                               sub_bucket_half_count_magnitude_,
                           1);
  counts_len_ = (bucket_count_ + 1) * sub_bucket_half_count_;
  counts_ = AllocateZeroed(counts_len_);
}

// The geometry follows from the three construction parameters; the counts are copied
// over the used range only.
HdrHistogram::HdrHistogram(const HdrHistogram& other)
    : HdrHistogram(other.lowest_discernible_, other.highest_trackable_,
                   other.significant_figures_) {
  total_count_ = other.total_count_;
  saturated_ = other.saturated_;
  min_ = other.min_;
  max_ = other.max_;
  const int first = other.FirstUsedIndex();
  const int last = other.LastUsedIndex();
  if (first <= last) {
    std::memcpy(counts_ + first, other.counts_ + first,
                static_cast<size_t>(last - first + 1) * sizeof(int64_t));
  }
}

HdrHistogram& HdrHistogram::operator=(const HdrHistogram& other) {
  if (this == &other) return *this;
  const bool same_geometry = counts_ != nullptr &&
                             lowest_discernible_ == other.lowest_discernible_ &&
                             highest_trackable_ == other.highest_trackable_ &&
                             significant_figures_ == other.significant_figures_;
  if (!same_geometry) {
    HdrHistogram copy(other);
    return *this = std::move(copy);
  }
  Reset();  // the same geometry: reuse the array, clearing only what was used
  Add(other);
  return *this;
}

HdrHistogram::HdrHistogram(HdrHistogram&& other) noexcept
    : lowest_discernible_(other.lowest_discernible_),
      highest_trackable_(other.highest_trackable_),
      significant_figures_(other.significant_figures_),
      unit_magnitude_(other.unit_magnitude_),
      sub_bucket_half_count_magnitude_(other.sub_bucket_half_count_magnitude_),
      sub_bucket_count_(other.sub_bucket_count_),
      sub_bucket_half_count_(other.sub_bucket_half_count_),
      sub_bucket_mask_(other.sub_bucket_mask_),
      bucket_count_(other.bucket_count_),
      counts_len_(other.counts_len_),
      counts_(other.counts_),
      total_count_(other.total_count_),
      saturated_(other.saturated_),
      min_(other.min_),
      max_(other.max_) {
  other.counts_ = nullptr;
  other.total_count_ = 0;
  other.saturated_ = 0;
  other.min_ = INT64_MAX;
  other.max_ = 0;
}

HdrHistogram& HdrHistogram::operator=(HdrHistogram&& other) noexcept {
  if (this == &other) return *this;
  // Swapped: `other` keeps a valid (if unspecified) array, ours, released with it.
  std::swap(lowest_discernible_, other.lowest_discernible_);
  std::swap(highest_trackable_, other.highest_trackable_);
  std::swap(significant_figures_, other.significant_figures_);
  std::swap(unit_magnitude_, other.unit_magnitude_);
  std::swap(sub_bucket_half_count_magnitude_, other.sub_bucket_half_count_magnitude_);
  std::swap(sub_bucket_count_, other.sub_bucket_count_);
  std::swap(sub_bucket_half_count_, other.sub_bucket_half_count_);
  std::swap(sub_bucket_mask_, other.sub_bucket_mask_);
  std::swap(bucket_count_, other.bucket_count_);
  std::swap(counts_len_, other.counts_len_);
  std::swap(counts_, other.counts_);
  std::swap(total_count_, other.total_count_);
  std::swap(saturated_, other.saturated_);
  std::swap(min_, other.min_);
  std::swap(max_, other.max_);
  return *this;
}

HdrHistogram::~HdrHistogram() {
  ReleaseCounts(counts_, counts_len_, FirstUsedIndex(), LastUsedIndex());
}

void HdrHistogram::RecordN(int64_t value, int64_t count) {
  if (count <= 0) return;
  if (value < 0) value = 0;
  if (value > highest_trackable_) {
    value = highest_trackable_;
    saturated_ += count;
  }
  counts_[CountsIndexFor(value)] += count;
  total_count_ += count;
  min_ = std::min(min_, value);
  max_ = std::max(max_, value);
}

void HdrHistogram::Add(const HdrHistogram& other) {
  assert(other.counts_len_ == counts_len_);
  assert(other.unit_magnitude_ == unit_magnitude_);
  assert(other.sub_bucket_half_count_magnitude_ == sub_bucket_half_count_magnitude_);
  if (other.total_count_ == 0 && other.saturated_ == 0) return;
  const int last = other.LastUsedIndex();
  for (int i = other.FirstUsedIndex(); i <= last; ++i) counts_[i] += other.counts_[i];
  total_count_ += other.total_count_;
  saturated_ += other.saturated_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
}

void HdrHistogram::Reset() {
  const int first = FirstUsedIndex();
  const int last = LastUsedIndex();
  if (first <= last) std::fill(counts_ + first, counts_ + last + 1, 0);
  total_count_ = 0;
  saturated_ = 0;
  min_ = INT64_MAX;
  max_ = 0;
}

int64_t HdrHistogram::min() const { return total_count_ == 0 ? 0 : min_; }

int64_t HdrHistogram::max() const { return total_count_ == 0 ? 0 : max_; }

double HdrHistogram::mean() const {
  if (total_count_ == 0) return 0.0;
  double sum = 0.0;
  const int last = LastUsedIndex();
  for (int i = FirstUsedIndex(); i <= last; ++i) {
    if (counts_[i] != 0) sum += static_cast<double>(counts_[i]) * MedianEquivalentValue(i);
  }
  const double mean = sum / static_cast<double>(total_count_);
  return std::clamp(mean, static_cast<double>(min_), static_cast<double>(max_));
}

double HdrHistogram::stddev() const {
  if (total_count_ == 0) return 0.0;
  const double mu = mean();
  double sum_sq = 0.0;
  const int last = LastUsedIndex();
  for (int i = FirstUsedIndex(); i <= last; ++i) {
    if (counts_[i] == 0) continue;
    const double d = MedianEquivalentValue(i) - mu;
    sum_sq += static_cast<double>(counts_[i]) * d * d;
  }
  return std::sqrt(sum_sq / static_cast<double>(total_count_));
}

int64_t HdrHistogram::ValueAtPercentile(double p) const {
  if (total_count_ == 0) return 0;
  if (!(p > 0.0)) return min();
  if (p >= 100.0) return max();
  const int64_t rank = RankAtPercentile(p, total_count_);
  int64_t cumulative = 0;
  const int last = LastUsedIndex();
  for (int i = FirstUsedIndex(); i <= last; ++i) {
    cumulative += counts_[i];
    if (cumulative >= rank) return std::min(HighestEquivalentValue(ValueFromIndex(i)), max_);
  }
  return max();
}

int64_t HdrHistogram::LowestEquivalentValue(int64_t value) const {
  const int bucket = BucketIndex(value);
  return (value >> (bucket + unit_magnitude_)) << (bucket + unit_magnitude_);
}

int64_t HdrHistogram::HighestEquivalentValue(int64_t value) const {
  const int64_t width = int64_t{1} << (BucketIndex(value) + unit_magnitude_);
  return LowestEquivalentValue(value) + (width - 1);
}

int HdrHistogram::CountsIndexFor(int64_t value) const {
  const int bucket = BucketIndex(value);
  const int sub_bucket = static_cast<int>(value >> (bucket + unit_magnitude_));
  return ((bucket + 1) << sub_bucket_half_count_magnitude_) + sub_bucket - sub_bucket_half_count_;
}

int64_t HdrHistogram::ValueFromIndex(int index) const {
  int bucket = (index >> sub_bucket_half_count_magnitude_) - 1;
  int sub_bucket = (index & (sub_bucket_half_count_ - 1)) + sub_bucket_half_count_;
  if (bucket < 0) {
    sub_bucket -= sub_bucket_half_count_;
    bucket = 0;
  }
  return int64_t{sub_bucket} << (bucket + unit_magnitude_);
}

int HdrHistogram::BucketIndex(int64_t value) const {
  const int pow2_ceiling = BitLength(static_cast<uint64_t>(value | sub_bucket_mask_));
  return pow2_ceiling - unit_magnitude_ - (sub_bucket_half_count_magnitude_ + 1);
}

double HdrHistogram::MedianEquivalentValue(int index) const {
  const int64_t lowest = ValueFromIndex(index);
  const int64_t half_width = (HighestEquivalentValue(lowest) - lowest + 1) >> 1;
  return static_cast<double>(lowest + half_width);
}

}  // namespace memstand

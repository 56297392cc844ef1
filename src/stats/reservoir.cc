#include "stats/reservoir.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace memstand {
namespace {

constexpr size_t kFirstReserve = 1024;
// Skips at or past this are "never" (2^62 items would take centuries to offer).
constexpr double kNeverSkip = 4.6e18;

// Uniform in the open interval (0, 1): logarithms below never see 0.
double OpenUnit(Rng& rng) { return (static_cast<double>(rng.Next() >> 11) + 0.5) * 0x1p-53; }

// Counts left to draw per part, with prefix sums in O(log n) (a Fenwick tree), so a
// draw proportional to the counts costs O(log parts) however many parts there are.
class CountTree {
 public:
  explicit CountTree(const std::vector<uint64_t>& counts) : tree_(counts.size() + 1, 0) {
    for (size_t i = 0; i < counts.size(); ++i) Add(i, static_cast<int64_t>(counts[i]));
  }
  void Add(size_t index, int64_t delta) {
    for (size_t i = index + 1; i < tree_.size(); i += i & (~i + 1)) tree_[i] += delta;
  }
  /// The part holding the x-th remaining item (0-based). REQUIRES: x < total left.
  size_t Find(uint64_t x) const {
    size_t pos = 0;
    size_t step = 1;
    while (step * 2 < tree_.size()) step *= 2;
    for (; step > 0; step /= 2) {
      if (pos + step < tree_.size() && static_cast<uint64_t>(tree_[pos + step]) <= x) {
        pos += step;
        x -= static_cast<uint64_t>(tree_[pos]);
      }
    }
    return pos;
  }

 private:
  std::vector<int64_t> tree_;
};

// How many items of a uniform draw of `take` from the union come from each part.
std::vector<uint64_t> DrawCounts(const std::vector<uint64_t>& seen, uint64_t take, Rng& rng) {
  std::vector<uint64_t> drawn(seen.size(), 0);
  uint64_t left = 0;
  for (uint64_t n : seen) left += n;
  CountTree tree(seen);
  for (uint64_t d = 0; d < take; ++d, --left) {
    size_t part = tree.Find(rng.Uniform(left));
    ++drawn[part];
    tree.Add(part, -1);
  }
  return drawn;
}

// Appends `take` items chosen uniformly from `from` (a partial Fisher-Yates shuffle).
void TakeUniform(const std::vector<Sample>& from, uint64_t take, int64_t offset_ns, Rng& rng,
                 std::vector<Sample>* out) {
  std::vector<Sample> pool = from;
  for (uint64_t i = 0; i < take; ++i) {
    std::swap(pool[i], pool[i + rng.Uniform(pool.size() - i)]);
    Sample s = pool[i];
    s.time_ns += offset_ns;
    out->push_back(s);
  }
}

}  // namespace

SampleReservoir::SampleReservoir(size_t capacity, uint64_t seed)
    : capacity_(std::max<size_t>(capacity, 1)), rng_(seed) {}

void SampleReservoir::Append(const Sample& s) {
  if (kept_.size() == kept_.capacity()) {
    kept_.reserve(std::min(capacity_, std::max(kFirstReserve, kept_.size() * 2)));
  }
  kept_.push_back(s);
  if (kept_.size() == capacity_) {
    w_ = std::exp(std::log(OpenUnit(rng_)) / static_cast<double>(capacity_));
    next_ = capacity_ - 1;
    DrawNext();
  }
}

void SampleReservoir::Replace(const Sample& s) {
  kept_[rng_.Uniform(capacity_)] = s;
  w_ *= std::exp(std::log(OpenUnit(rng_)) / static_cast<double>(capacity_));
  DrawNext();
}

void SampleReservoir::DrawNext() {
  // Items skipped before the next kept one: geometric with success probability W.
  const double skip = std::floor(std::log(OpenUnit(rng_)) / std::log1p(-w_));
  if (!(skip < kNeverSkip) || next_ > UINT64_MAX - 1 - static_cast<uint64_t>(skip)) {
    next_ = UINT64_MAX;
    return;
  }
  next_ += static_cast<uint64_t>(skip) + 1;
}

std::vector<Sample> MergeReservoirs(const std::vector<ReservoirPart>& parts, size_t capacity,
                                    uint64_t seed) {
  Rng rng(seed);
  std::vector<uint64_t> seen;
  uint64_t total = 0;
  for (const ReservoirPart& p : parts) {
    seen.push_back(p.reservoir != nullptr ? p.reservoir->seen() : 0);
    total += seen.back();
  }
  const uint64_t take = std::min<uint64_t>(capacity, total);
  std::vector<uint64_t> counts = DrawCounts(seen, take, rng);
  std::vector<Sample> merged;
  merged.reserve(take);
  for (size_t i = 0; i < parts.size(); ++i) {
    if (counts[i] == 0) continue;
    TakeUniform(parts[i].reservoir->samples(), counts[i], parts[i].time_offset_ns, rng, &merged);
  }
  std::sort(merged.begin(), merged.end(), [](const Sample& a, const Sample& b) {
    return std::tie(a.time_ns, a.latency_ns, a.command) <
           std::tie(b.time_ns, b.latency_ns, b.command);
  });
  return merged;
}

}  // namespace memstand

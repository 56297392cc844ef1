#include "stats/block_sample.h"

#include <algorithm>
#include <cassert>

namespace memstand {

BlockSample::BlockSample(uint32_t max_blocks) : max_blocks_(max_blocks) {
  assert(max_blocks >= 2 && max_blocks % 2 == 0);
}

void BlockSample::Keep(int64_t v) {
  if (values_.empty()) values_.reserve(size_t{kBlock} * 4);
  if (values_.size() % kBlock == 0 && !values_.empty()) {
    // A new block starts where the skip ended.
    block_start_ += kBlock + pending_skip_;
  }
  values_.push_back(v);
  if (values_.size() % kBlock != 0) return;
  // The block is complete: where the next one starts.
  uint64_t next = block_start_ + stride_;
  if (values_.size() == size_t{max_blocks_} * kBlock) {
    // Full: keep the blocks at even multiples of the stride (0, 2, 4, ...: every other
    // one), and the next block at the next multiple of the doubled stride.
    size_t out = 0;
    for (size_t b = 0; b < max_blocks_; b += 2, out += kBlock) {
      for (size_t i = 0; i < kBlock; ++i) values_[out + i] = values_[b * kBlock + i];
    }
    values_.resize(out);
    stride_ *= 2;
    next = (block_start_ / stride_ + 1) * stride_;
  }
  pending_skip_ = skip_ = next - (block_start_ + kBlock);
}

uint64_t BlockSample::offered() const {
  if (values_.empty()) return 0;
  const size_t in_block = values_.size() % kBlock;
  if (in_block != 0) return block_start_ + in_block;
  return block_start_ + kBlock + (pending_skip_ - skip_);
}

std::vector<std::span<const int64_t>> BlockSample::blocks() const {
  std::vector<std::span<const int64_t>> out;
  for (size_t i = 0; i < values_.size(); i += kBlock) {
    const size_t n = std::min<size_t>(kBlock, values_.size() - i);
    out.emplace_back(values_.data() + i, n);
  }
  return out;
}

}  // namespace memstand

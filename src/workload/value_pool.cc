#include "workload/value_pool.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <string>

namespace memstand {
namespace {

constexpr size_t kMaxValueSize = size_t{512} << 20;
// Extra bytes past max_size: the range of start offsets, so that values of one size
// differ from one another.
constexpr size_t kOffsetWindow = size_t{64} << 10;
// The pool's Rng stream, apart from the streams connections derive from the same seed.
constexpr uint64_t kPoolStream = ~uint64_t{0};

constexpr std::string_view kPattern = "memstand-pattern";

void FillPattern(std::string& bytes) {
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = kPattern[i % kPattern.size()];
}

void FillRandom(char* out, size_t n, Rng& rng) {
  while (n > 0) {
    const uint64_t word = rng.Next();
    const size_t take = std::min(n, sizeof(word));
    std::memcpy(out, &word, take);
    out += take;
    n -= take;
  }
}

// kCompressible: the pool is a sequence of blocks of `block` bytes; each starts with
// `random` bytes from the Rng (incompressible) and is padded with one repeated byte,
// which zstd encodes as a single match of a few bytes. A block then compresses to
// about `random` + 3 bytes, so `random` is chosen as block / ratio minus that
// overhead. Blocks are 256 bytes up to ratio 8 and grow with the ratio beyond, so a
// block keeps ~32 random bytes and the overhead stays small next to them. A value
// shorter than a block may land mostly in random or mostly in filler bytes; the
// ratio holds on average and for values of a few blocks or more.
void FillCompressible(std::string& bytes, double ratio, Rng& rng) {
  constexpr double kMatchOverhead = 3;
  const size_t block = static_cast<size_t>(std::clamp(32 * ratio, 256.0, 65536.0));
  const double target = static_cast<double>(block) / ratio - kMatchOverhead;
  const size_t random =
      static_cast<size_t>(std::clamp(std::round(target), 1.0, static_cast<double>(block)));
  const size_t random_bytes = ratio <= 1.0 ? block : random;
  for (size_t at = 0; at < bytes.size(); at += block) {
    const size_t n = std::min(block, bytes.size() - at);
    const size_t r = std::min(random_bytes, n);
    FillRandom(bytes.data() + at, r, rng);
    std::memset(bytes.data() + at + r, 'x', n - r);
  }
}

}  // namespace

Status ValidateValueSpec(const ValueSpec& spec) {
  if (spec.keyed != nullptr) {
    return spec.keyed->size() > 0 ? Status::OK()
                                  : Status::InvalidArgument("keyed values: the table is empty");
  }
  if (spec.min_size < 1) return Status::InvalidArgument("value size must be at least 1 byte");
  if (spec.max_size > kMaxValueSize) {
    return Status::InvalidArgument("value size " + std::to_string(spec.max_size) +
                                   " exceeds the limit of 512 MiB (" +
                                   std::to_string(kMaxValueSize) + " bytes)");
  }
  if (spec.min_size > spec.max_size) {
    return Status::InvalidArgument("value size range is empty: min " +
                                   std::to_string(spec.min_size) + " > max " +
                                   std::to_string(spec.max_size));
  }
  if (!(spec.compress_ratio >= 1.0) || !std::isfinite(spec.compress_ratio)) {
    return Status::InvalidArgument("compression ratio must be a finite number >= 1, got " +
                                   std::to_string(spec.compress_ratio));
  }
  return Status::OK();
}

ValuePool::ValuePool(const ValueSpec& spec, uint64_t seed) : spec_(spec), keyed_(spec.keyed.get()) {
  assert(ValidateValueSpec(spec).ok());
  if (keyed_ != nullptr) return;
  bytes_.resize(spec.max_size + kOffsetWindow);
  Rng rng(DeriveSeed(seed, kPoolStream));
  switch (spec.content) {
    case ValueSpec::Content::kPattern:
      FillPattern(bytes_);
      break;
    case ValueSpec::Content::kRandom:
      FillRandom(bytes_.data(), bytes_.size(), rng);
      break;
    case ValueSpec::Content::kCompressible:
      FillCompressible(bytes_, spec.compress_ratio, rng);
      break;
  }
}

}  // namespace memstand

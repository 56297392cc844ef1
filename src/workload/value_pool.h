// Values to write: sizes fixed or in a range, content incompressible or compressible
// to a chosen ratio. The pool is built once and read by every thread; values are views
// into it, so drawing one allocates nothing.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "util/rng.h"
#include "util/status.h"
#include "workload/keyed_values.h"

namespace memstand {

struct ValueSpec {
  size_t min_size = 32;  // memtier's default data size
  size_t max_size = 32;  // == min_size: fixed size
  enum class Content {
    kPattern,      // a repeated short pattern: compresses very well (memtier's default)
    kRandom,       // incompressible random bytes (--random-data)
    kCompressible, // zstd compresses it by about `compress_ratio`
  };
  Content content = Content::kPattern;
  double compress_ratio = 1.0;  // kCompressible: >= 1
  /// Set: the value of key k is keyed->At(k) (a dataset's records), and the fields
  /// above are ignored; every key of the run must lie in [first(), last()]. Null: drawn.
  std::shared_ptr<const KeyedValues> keyed;
};

/// Checks sizes (1 .. 512 MiB, min <= max) and ratio (>= 1).
Status ValidateValueSpec(const ValueSpec& spec);

class ValuePool {
 public:
  /// REQUIRES: ValidateValueSpec(spec).ok().
  ValuePool(const ValueSpec& spec, uint64_t seed);
  /// A value of a size drawn uniformly in [min_size, max_size], at a random offset
  /// (kPattern: at offset 0, which reads the same as any other).
  /// Thread-safe (const); the view lives as long as the pool.
  /// With ValueSpec::keyed, the key's own value instead. In line: one per request.
  std::string_view Pick(Rng& rng, uint64_t key) const {
    if (keyed_ != nullptr) [[unlikely]] return keyed_->At(key);
    size_t size = spec_.min_size;
    if (spec_.max_size > spec_.min_size) size += rng.Uniform(spec_.max_size - spec_.min_size + 1);
    // A repeated pattern reads the same at every offset: no draw needed.
    if (spec_.content == ValueSpec::Content::kPattern) return {bytes_.data(), size};
    const size_t offset = rng.Uniform(bytes_.size() - size + 1);
    return {bytes_.data() + offset, size};
  }
  const ValueSpec& spec() const { return spec_; }

 private:
  ValueSpec spec_;
  const KeyedValues* keyed_ = nullptr;  // spec_.keyed, for the hot path
  std::string bytes_;  // max_size + a window of offsets
};

}  // namespace memstand

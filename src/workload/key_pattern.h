// Key patterns: which key index a connection uses next, in [key_min, key_max].
#pragma once

#include <cstdint>
#include <string_view>

#include "util/rng.h"
#include "util/status.h"

namespace memstand {

struct KeyPatternSpec {
  enum class Kind {
    kUniform,      // R: uniform over the whole range
    kSequential,   // S: one sequence over the range, striped across connections:
                   //    connection i of n takes min+i, min+i+n, ... and wraps
    kGaussian,     // G: normal around `median` with `stddev`, clamped to the range
    kZipf,         // Z: Zipf with `zipf_exponent`; rank 1 is key_min
    kPartitioned,  // P: connection i of n owns the i-th contiguous slice, walked in order;
                   //    the first size % n slices one key longer (as --requests splits)
  };
  Kind kind = Kind::kUniform;
  double median = -1;         // G: < 0 means the middle of the range
  double stddev = -1;         // G: < 0 means (max - min) / 6
  double zipf_exponent = 0.99;  // Z: > 0
};

/// Parses one letter: R, S, G, Z or P (case-insensitive).
Result<KeyPatternSpec> ParseKeyPattern(std::string_view text);

/// Checks the numeric fields a KeySequence relies on: zipf_exponent > 0 and finite,
/// median and stddev finite.
Status ValidateKeyPatternSpec(const KeyPatternSpec& spec);

/// A connection's key sequence. Deterministic for (spec, range, seed, conn_index);
/// every connection draws from its own Rng seeded with DeriveSeed(seed, conn_index).
/// S: conn i of n walks min+i, min+i+n, ... and after the range end wraps to min+i
///    (to min + i mod size when n > size).
/// P: conn i of n owns offsets [i*size/n, (i+1)*size/n) and walks them in order,
///    wrapping; when n > size that slice may be empty, and the connection then owns
///    the single key min + i*size/n, shared with the connection whose slice holds it.
/// G: round(normal(median, stddev)) clamped to [min, max].
/// Z: P(key = min + k - 1) proportional to 1 / k^zipf_exponent, k in 1..size; ranks
///    beyond 2^53 are resolved only to double precision.
class KeySequence {
 public:
  /// REQUIRES: key_min <= key_max, conn_index < conn_count,
  /// ValidateKeyPatternSpec(spec).ok().
  KeySequence(const KeyPatternSpec& spec, uint64_t key_min, uint64_t key_max, uint64_t seed,
              uint64_t conn_index, uint64_t conn_count);
  uint64_t Next() {  // the uniform case in line: it is the default, drawn per request
    return spec_.kind == KeyPatternSpec::Kind::kUniform ? NextUniform() : NextOther();
  }

 private:
  uint64_t NextUniform() {
    const uint64_t span = max_ - min_;
    return min_ + (span == UINT64_MAX ? rng_.Next() : rng_.Uniform(span + 1));
  }
  uint64_t NextOther();
  uint64_t NextSequential();
  uint64_t NextPartitioned();
  uint64_t NextGaussian();
  uint64_t NextZipf();
  void InitStriped(uint64_t conn_index, uint64_t conn_count);
  void InitPartition(uint64_t conn_index, uint64_t conn_count);
  void InitGaussian();
  void InitZipf();

  KeyPatternSpec spec_;
  uint64_t min_, max_;
  Rng rng_;
  uint64_t next_ = 0;    // S, P: offset from min_ of the next key
  uint64_t first_ = 0;   // S, P: offset the walk starts at and wraps back to
  uint64_t last_ = 0;    // P: last offset of this connection's slice
  uint64_t stride_ = 1;  // S: number of connections
  // G: median and stddev with the defaults resolved.
  double gauss_median_ = 0, gauss_stddev_ = 0;
  // Z: rejection-inversion sampler constants (Hormann & Derflinger).
  double zipf_h_x1_ = 0, zipf_h_n_ = 0, zipf_s_ = 0;
};

}  // namespace memstand

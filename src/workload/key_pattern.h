// Key patterns: which key index a connection uses next, in [key_min, key_max].
#pragma once

#include <cstdint>
#include <string_view>

#include "util/status.h"
#include "workload/rng.h"

namespace memstand {

struct KeyPatternSpec {
  enum class Kind {
    kUniform,      // R: uniform over the whole range
    kSequential,   // S: one sequence over the range, striped across connections:
                   //    connection i of n takes min+i, min+i+n, ... and wraps
    kGaussian,     // G: normal around `median` with `stddev`, clamped to the range
    kZipf,         // Z: Zipf with `zipf_exponent`; rank 1 is key_min
    kPartitioned,  // P: connection i of n owns the i-th contiguous slice, walked in order
  };
  Kind kind = Kind::kUniform;
  double median = -1;         // G: < 0 means the middle of the range
  double stddev = -1;         // G: < 0 means (max - min) / 6
  double zipf_exponent = 0.99;  // Z: > 0
};

/// Parses one letter: R, S, G, Z or P (case-insensitive).
Result<KeyPatternSpec> ParseKeyPattern(std::string_view text);

/// A connection's key sequence. Deterministic for (spec, range, seed, conn_index).
class KeySequence {
 public:
  /// REQUIRES: key_min <= key_max, conn_index < conn_count.
  KeySequence(const KeyPatternSpec& spec, uint64_t key_min, uint64_t key_max, uint64_t seed,
              uint64_t conn_index, uint64_t conn_count);
  uint64_t Next();

 private:
  KeyPatternSpec spec_;
  uint64_t min_, max_;
  Rng rng_;
  uint64_t next_;    // S, P: next key
  uint64_t stride_;  // S: number of connections
  uint64_t part_lo_, part_hi_;  // P: this connection's slice
  // Z: rejection-inversion sampler constants (Hormann & Derflinger).
  double zipf_h_x1_ = 0, zipf_h_n_ = 0, zipf_s_ = 0;
};

}  // namespace memstand

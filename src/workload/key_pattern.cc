#include "workload/key_pattern.h"

#include <algorithm>
#include <cassert>
#include <cctype>
#include <cmath>
#include <string>

#include "util/redact.h"

namespace memstand {
namespace {

// --- Zipf by rejection-inversion: W. Hormann, G. Derflinger, "Rejection-inversion to
// generate variates from monotone discrete distributions" (1996). h(x) = x^-q is the
// unnormalised density; H is its antiderivative with H(1) = 0. The two helpers keep
// H and its inverse accurate as q -> 1, where H(x) -> log(x).

// log1p(x) / x, continuous at 0.
double Log1pOverX(double x) {
  if (std::fabs(x) > 1e-8) return std::log1p(x) / x;
  return 1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x));
}

// expm1(x) / x, continuous at 0.
double Expm1OverX(double x) {
  if (std::fabs(x) > 1e-8) return std::expm1(x) / x;
  return 1.0 + x * 0.5 * (1.0 + x / 3.0 * (1.0 + 0.25 * x));
}

double ZipfH(double x, double q) { return std::exp(-q * std::log(x)); }

// (x^(1-q) - 1) / (1-q), or log(x) when q == 1.
double ZipfBigH(double x, double q) {
  const double log_x = std::log(x);
  return Expm1OverX((1.0 - q) * log_x) * log_x;
}

double ZipfBigHInverse(double y, double q) {
  double t = y * (1.0 - q);
  if (t < -1.0) t = -1.0;  // guards rounding at the domain's edge
  return std::exp(Log1pOverX(t) * y);
}

// The double `v` rounded to the nearest integer and clamped to [lo, hi].
uint64_t RoundAndClamp(double v, uint64_t lo, uint64_t hi) {
  v = std::nearbyint(v);
  if (!(v > static_cast<double>(lo))) return lo;  // also NaN
  if (v >= static_cast<double>(hi)) return hi;
  const uint64_t k = static_cast<uint64_t>(v);
  return k < lo ? lo : (k > hi ? hi : k);
}

}  // namespace

Result<KeyPatternSpec> ParseKeyPattern(std::string_view text) {
  static constexpr struct {
    char letter;
    KeyPatternSpec::Kind kind;
  } kLetters[] = {{'R', KeyPatternSpec::Kind::kUniform},
                  {'S', KeyPatternSpec::Kind::kSequential},
                  {'G', KeyPatternSpec::Kind::kGaussian},
                  {'Z', KeyPatternSpec::Kind::kZipf},
                  {'P', KeyPatternSpec::Kind::kPartitioned}};
  const char letter = text.size() == 1 ? std::toupper(static_cast<unsigned char>(text[0])) : 0;
  for (const auto& entry : kLetters) {
    if (entry.letter != letter) continue;
    KeyPatternSpec spec;
    spec.kind = entry.kind;
    return spec;
  }
  return Status::InvalidArgument("unknown key pattern '" + Abbreviate(text) +
                                 "'; expected one letter: R (uniform), S (sequential), "
                                 "G (gaussian), Z (zipf) or P (partitioned)");
}

Status ValidateKeyPatternSpec(const KeyPatternSpec& spec) {
  if (!std::isfinite(spec.median)) return Status::InvalidArgument("key median must be finite");
  if (!std::isfinite(spec.stddev)) return Status::InvalidArgument("key stddev must be finite");
  if (!(spec.zipf_exponent > 0) || !std::isfinite(spec.zipf_exponent)) {
    return Status::InvalidArgument("zipf exponent must be a finite number > 0, got " +
                                   std::to_string(spec.zipf_exponent));
  }
  return Status::OK();
}

KeySequence::KeySequence(const KeyPatternSpec& spec, uint64_t key_min, uint64_t key_max,
                         uint64_t seed, uint64_t conn_index, uint64_t conn_count)
    : spec_(spec), min_(key_min), max_(key_max), rng_(DeriveSeed(seed, conn_index)) {
  assert(key_min <= key_max && conn_index < conn_count);
  switch (spec_.kind) {
    case KeyPatternSpec::Kind::kSequential:
      InitStriped(conn_index, conn_count);
      break;
    case KeyPatternSpec::Kind::kPartitioned:
      InitPartition(conn_index, conn_count);
      break;
    case KeyPatternSpec::Kind::kGaussian:
      InitGaussian();
      break;
    case KeyPatternSpec::Kind::kZipf:
      InitZipf();
      break;
    case KeyPatternSpec::Kind::kUniform:
      break;
  }
}

void KeySequence::InitStriped(uint64_t conn_index, uint64_t conn_count) {
  const uint64_t span = max_ - min_;
  first_ = span == UINT64_MAX ? conn_index : conn_index % (span + 1);
  next_ = first_;
  stride_ = conn_count;
}

void KeySequence::InitPartition(uint64_t conn_index, uint64_t conn_count) {
  // The first size % n connections take one key more: the same split as a run's
  // --requests over its connections, so that as many requests as keys visit each once.
  using u128 = unsigned __int128;
  const u128 size = static_cast<u128>(max_ - min_) + 1;
  // More connections than keys: one key each, the ones past the range sharing them.
  const u128 base = size / conn_count, extra = size % conn_count;
  const u128 lo = base == 0 ? conn_index % size : base * conn_index + std::min<u128>(conn_index, extra);
  const u128 hi = base == 0 ? lo + 1 : lo + base + (conn_index < extra ? 1 : 0);  // exclusive; may be 2^64
  first_ = static_cast<uint64_t>(lo);
  last_ = static_cast<uint64_t>(hi > lo ? hi - 1 : lo);
  next_ = first_;
}

void KeySequence::InitGaussian() {
  const double span = static_cast<double>(max_ - min_);
  gauss_median_ = spec_.median >= 0 ? spec_.median : static_cast<double>(min_) + span / 2;
  gauss_stddev_ = spec_.stddev >= 0 ? spec_.stddev : span / 6;
}

void KeySequence::InitZipf() {
  assert(spec_.zipf_exponent > 0);
  const double q = spec_.zipf_exponent;
  const double n = static_cast<double>(max_ - min_) + 1.0;
  zipf_h_x1_ = ZipfBigH(1.5, q) - 1.0;
  zipf_h_n_ = ZipfBigH(n + 0.5, q);
  zipf_s_ = 2.0 - ZipfBigHInverse(ZipfBigH(2.5, q) - ZipfH(2.0, q), q);
}

uint64_t KeySequence::NextOther() {
  switch (spec_.kind) {
    case KeyPatternSpec::Kind::kUniform:
      return NextUniform();
    case KeyPatternSpec::Kind::kSequential:
      return NextSequential();
    case KeyPatternSpec::Kind::kGaussian:
      return NextGaussian();
    case KeyPatternSpec::Kind::kZipf:
      return NextZipf();
    case KeyPatternSpec::Kind::kPartitioned:
      return NextPartitioned();
  }
  return min_;
}

uint64_t KeySequence::NextSequential() {
  const uint64_t key = min_ + next_;
  next_ = (max_ - min_) - next_ < stride_ ? first_ : next_ + stride_;
  return key;
}

uint64_t KeySequence::NextPartitioned() {
  const uint64_t key = min_ + next_;
  next_ = next_ == last_ ? first_ : next_ + 1;
  return key;
}

uint64_t KeySequence::NextGaussian() {
  return RoundAndClamp(gauss_median_ + gauss_stddev_ * rng_.NextGaussian(), min_, max_);
}

uint64_t KeySequence::NextZipf() {
  const double q = spec_.zipf_exponent;
  const double n = static_cast<double>(max_ - min_) + 1.0;
  while (true) {
    const double u = zipf_h_n_ + rng_.NextDouble() * (zipf_h_x1_ - zipf_h_n_);
    const double x = ZipfBigHInverse(u, q);
    double k = std::floor(x + 0.5);
    k = k < 1.0 ? 1.0 : (k > n ? n : k);
    if (k - x <= zipf_s_ || u >= ZipfBigH(k + 0.5, q) - ZipfH(k, q)) {
      return min_ + RoundAndClamp(k - 1.0, 0, max_ - min_);
    }
  }
}

}  // namespace memstand

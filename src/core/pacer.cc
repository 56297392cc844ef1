#include "core/pacer.h"

#include <cmath>
#include <cstdio>
#include <string>

namespace memstand {
namespace {

constexpr long double kNsPerSecond = 1e9L;

std::string FormatNumber(double x) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%g", x);
  return buf;
}

}  // namespace

Pacer::Pacer(const PacerOptions& options, int64_t start_ns)
    : options_(options),
      start_ns_(start_ns),
      mean_gap_ns_(kNsPerSecond / options.rate_per_s),
      rng_(options.seed) {
  Schedule();
}

int64_t Pacer::Next() {
  const int64_t due = next_ns_;
  ++issued_;
  Schedule();
  return due;
}

void Pacer::Schedule() {
  if (options_.arrival == PacerOptions::Arrival::kConstant) {
    // k * 1e9 is exact in long double's 64-bit mantissa for any k below 1.8e10, so
    // the division is the only rounding before the final one.
    next_ns_ = AtOffset(static_cast<long double>(issued_) * kNsPerSecond / options_.rate_per_s);
    return;
  }
  if (issued_ > 0) {
    // Inverse transform: 1 - U lies in (0, 1], so the gap is finite and >= 0.
    const long double u = rng_.NextDouble();
    poisson_offset_ns_ += -std::log1p(-u) * mean_gap_ns_;
  }
  next_ns_ = AtOffset(poisson_offset_ns_);
}

int64_t Pacer::AtOffset(long double offset_ns) const {
  const long double room = static_cast<long double>(INT64_MAX) - start_ns_;
  if (!(offset_ns < room)) return INT64_MAX;
  return start_ns_ + std::llround(offset_ns);
}

std::vector<double> SplitRate(double total, int n) {
  if (n <= 0) return {};
  std::vector<double> shares(n, total / n);
  double sum_before_last = 0;
  for (int i = 0; i + 1 < n; ++i) sum_before_last += shares[i];
  // The first n-1 shares add up to about (n-1)/n of total, within a factor of two of
  // it, so this difference is exact (Sterbenz) and the in-order sum is exactly total.
  shares[n - 1] = total - sum_before_last;
  return shares;
}

Status ValidateRate(double rate, int connections) {
  if (!std::isfinite(rate)) {
    return Status::InvalidArgument("--rate must be a finite number of requests/s, got " +
                                   FormatNumber(rate));
  }
  if (rate <= 0) {
    return Status::InvalidArgument("--rate must be > 0 requests/s, got " + FormatNumber(rate));
  }
  if (rate > kMaxRatePerSecond) {
    return Status::InvalidArgument("--rate " + FormatNumber(rate) +
                                   " requests/s is above the cap of " +
                                   FormatNumber(kMaxRatePerSecond) + " requests/s");
  }
  if (connections <= 0) {
    return Status::InvalidArgument("--rate needs at least one connection, got " +
                                   std::to_string(connections));
  }
  return Status::OK();
}

}  // namespace memstand

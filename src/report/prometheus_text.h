// The building blocks of Prometheus text exposition format 0.0.4, shared by every
// /metrics page memstand serves (`memstand run`: prometheus.h; `memstand relay`:
// relay_metrics.h): family headers, samples, escaped labels, numbers as Prometheus
// reads them, and a histogram family's samples from an HDR histogram.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "stats/hdr_histogram.h"

namespace memstand {

/// Request latencies (`memstand run`): 1 us .. 60 s, log-spaced, 32 bounds per decade
/// (10^(j/32) rounded to three significant digits: 1, 1.07, 1.15, 1.24, ... 9.31 times
/// 1e-6 .. 1e1 s, ending at 56.2 s), 249 bounds. Neighbours differ by at most 7.9%, so
/// histogram_quantile (linear inside the bucket that holds the rank) is within 7.9% of
/// the HDR percentile for any latency in range (prometheus_test.cc checks < 10% at p50,
/// p90, p99 on recorded distributions).
std::span<const int64_t> RequestLatencyBoundsNs();
/// 1 us .. 10 s in 1-2.5-5 steps: the relay's applied and added delays, whose
/// overshoot is a few microseconds when the CPU is free.
std::span<const int64_t> RelayDelayBoundsNs();

/// A label value with \\, \" and \n escaped.
std::string EscapeLabelValue(std::string_view v);
/// `name="value"` with the value escaped.
std::string PromLabel(std::string_view name, std::string_view value);
/// Shortest text that reads back as v, in fixed notation unless the decimal exponent is
/// below -4 or above 20 (as Go's strconv 'g': "0.0005", "1e-05"); NaN, +Inf, -Inf.
std::string PromDouble(double v);

/// "# HELP name help\n# TYPE name type\n".
void AppendPromHeader(std::string* out, std::string_view name, std::string_view type,
                      std::string_view help);
/// "name{labels} value\n"; labels "" or `a="x",b="y"` (already escaped).
void AppendPromSample(std::string* out, std::string_view name, std::string_view labels,
                      std::string_view value);

/// The samples of one histogram of family `name` (in seconds) from `h` (in ns):
/// name_bucket{labels,le} per bound (cumulative) and le="+Inf", name_sum, name_count.
/// Bucket rounding: each HDR counts index counts as its highest equivalent value
/// clamped to the exact max() (the value ValueAtPercentile reports for it), so a bucket
/// le=b holds the indices whose highest equivalent value is <= b; values in an index
/// straddling b fall in the next bucket up. _sum is mean() * total_count(); _count and
/// le="+Inf" are total_count(). REQUIRES: bounds_ns ascending.
void AppendPromHistogram(std::string* out, std::string_view name, std::string_view labels,
                         const HdrHistogram& h, std::span<const int64_t> bounds_ns);

}  // namespace memstand

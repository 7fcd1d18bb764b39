// Latency summary of one (operation, message size) phase (pure).
// Percentiles use the nearest-rank definition: for N sorted samples, pX is the sample at
// 1-based rank ceil(X/100 * N) (rank 1 for X = 0). So p50 of {1,2,3,4} is 2, p99 of 100 samples
// is the 99th smallest, p99.9 of fewer than 1000 samples is the maximum.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "probes/wire/probe_report.h"  // LatencyStats

namespace rh {

/// Nearest-rank percentile of an ascending-sorted, non-empty vector; `pct` in [0, 100].
double nearest_rank(const std::vector<double>& sorted, double pct);

/// The CDF of ascending-sorted samples: every sample (x_i, (i+1)/n) when n <= kCdfPoints, else
/// the samples at the nearest ranks of 1/n (the minimum), k/kCdfPoints (k = 1..kCdfPoints), and
/// 0.99 (n >= 100), 0.995 (n >= 200), 0.999 (n >= 1000) for the tail, each with its true
/// cumulative fraction (samples <= it, ties included; one point per distinct latency): enough
/// to draw the distribution without keeping every sample (a report carries one per pair, op
/// and size).
std::vector<std::pair<double, double>> cdf_points(const std::vector<double>& sorted);

/// Fills min/p50/p99/p99.9/max/mean/iterations/msg_rate/cdf from samples (µs) and the wall time of
/// the loop that produced them. `samples` is sorted in place. Empty samples leave zeros.
void summarize(std::vector<double>& samples_us, double wall_seconds, LatencyStats& out);

}  // namespace rh

#include "probes/latency/latency_stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace rh {

double nearest_rank(const std::vector<double>& sorted, double pct) {
    const auto n = sorted.size();
    // The 1e-9 keeps ceil(99.9/100*1000) at 999 despite binary rounding.
    auto rank = static_cast<std::size_t>(std::ceil(pct / 100.0 * static_cast<double>(n) - 1e-9));
    rank = std::clamp<std::size_t>(rank, 1, n);
    return sorted[rank - 1];
}

std::vector<std::pair<double, double>> cdf_points(const std::vector<double>& sorted) {
    std::vector<std::pair<double, double>> out;
    const auto n = sorted.size();
    if (n <= LatencyStats::kCdfPoints) {
        for (std::size_t i = 0; i < n; ++i)
            out.emplace_back(sorted[i], static_cast<double>(i + 1) / static_cast<double>(n));
        return out;
    }
    // Sample ranks to show: the minimum, every 2 %, and the tail where n can resolve it (as
    // p99.9 needs >= 1000 samples). Each point is a true CDF point: the fraction of samples
    // <= that latency (ties included), so F(max) is 1.
    std::vector<double> fractions{1.0 / static_cast<double>(n)};
    for (std::size_t k = 1; k <= LatencyStats::kCdfPoints; ++k)
        fractions.push_back(static_cast<double>(k) / LatencyStats::kCdfPoints);
    for (auto [tail, min_n] : {std::pair{0.99, 100}, {0.995, 200}, {0.999, 1000}})
        if (n >= static_cast<std::size_t>(min_n)) fractions.push_back(tail);
    std::sort(fractions.begin(), fractions.end());
    for (double f : fractions) {
        const double x = nearest_rank(sorted, f * 100);
        const auto le = std::upper_bound(sorted.begin(), sorted.end(), x) - sorted.begin();
        const double cdf = static_cast<double>(le) / static_cast<double>(n);
        if (out.empty() || x > out.back().first) out.emplace_back(x, cdf);
    }
    return out;
}

void summarize(std::vector<double>& samples_us, double wall_seconds, LatencyStats& out) {
    out.iterations = samples_us.size();
    if (samples_us.empty()) return;
    std::sort(samples_us.begin(), samples_us.end());
    out.min_us = samples_us.front();
    out.max_us = samples_us.back();
    out.p50_us = nearest_rank(samples_us, 50);
    out.p99_us = nearest_rank(samples_us, 99);
    out.p999_us = nearest_rank(samples_us, 99.9);
    out.mean_us = std::accumulate(samples_us.begin(), samples_us.end(), 0.0) /
                  static_cast<double>(samples_us.size());
    out.msg_rate_per_s =
        wall_seconds > 0 ? static_cast<double>(samples_us.size()) / wall_seconds : 0;
    out.cdf = cdf_points(samples_us);
}

}  // namespace rh

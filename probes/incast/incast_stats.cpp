#include "probes/incast/incast_stats.h"

#include <algorithm>

namespace rh::incast {

double gbps(std::uint64_t bytes, double seconds) {
    return seconds > 0 ? static_cast<double>(bytes) * 8 / 1e9 / seconds : 0;
}

double mib_per_s(std::uint64_t bytes, double seconds) {
    return seconds > 0 ? static_cast<double>(bytes) / (1024.0 * 1024.0) / seconds : 0;
}

std::optional<double> jain_index(const std::vector<double>& x) {
    double sum = 0, sq = 0;
    for (double v : x) {
        sum += v;
        sq += v * v;
    }
    if (x.empty() || sq <= 0) return std::nullopt;
    return sum * sum / (static_cast<double>(x.size()) * sq);
}

Figures compute_figures(const std::vector<SenderShare>& shares, std::optional<double> link_gbps) {
    Figures f;
    std::vector<double> ran;
    std::uint64_t total = 0;
    double longest = 0, shortest = 0;
    bool any = false;
    for (const auto& s : shares) {
        f.gbps.push_back(gbps(s.intact_bytes, s.active_s));
        f.mib_per_s.push_back(mib_per_s(s.intact_bytes, s.active_s));
        if (s.active_s <= 0) continue;
        ran.push_back(f.gbps.back());
        total += s.intact_bytes;
        longest = any ? std::max(longest, s.active_s) : s.active_s;
        shortest = any ? std::min(shortest, s.active_s) : s.active_s;
        any = true;
    }
    if (!any) return f;
    f.aggregate_gbps = gbps(total, longest);
    f.aggregate_mib_per_s = mib_per_s(total, longest);
    if (link_gbps && *link_gbps > 0) f.share_of_link = f.aggregate_gbps / *link_gbps;
    f.jain = jain_index(ran);
    f.spread_ms = (longest - shortest) * 1000;
    f.first_finish_s = shortest;
    f.last_finish_s = longest;
    return f;
}

namespace {
/// Cumulative bytes of one sender at `t` seconds: linear between reports, 0 before the first
/// (at t = 0 nothing was sent), flat after the last.
double bytes_at(const ProgressSeries& s, double t) {
    double t0 = 0, b0 = 0;
    for (const auto& [ts, b] : s) {
        if (t <= ts) {
            if (ts <= t0) return static_cast<double>(b);
            return b0 + (static_cast<double>(b) - b0) * (t - t0) / (ts - t0);
        }
        t0 = ts;
        b0 = static_cast<double>(b);
    }
    return b0;
}
}  // namespace

std::vector<double> per_second_gbps(const std::vector<ProgressSeries>& senders, unsigned seconds) {
    std::vector<double> out(seconds, 0);
    for (unsigned k = 0; k < seconds; ++k)
        for (const auto& s : senders) out[k] += (bytes_at(s, k + 1) - bytes_at(s, k)) * 8 / 1e9;
    return out;
}

}  // namespace rh::incast

#include "agent/daemon/probe_summary.h"

#include <algorithm>

#include "probes/latency/latency_stats.h"

namespace rh::agent {

void ProbeSummaries::configure(const std::vector<std::string>& peers,
                               const std::vector<std::string>& ops,
                               const std::vector<std::uint64_t>& sizes, double window_s) {
    std::lock_guard<std::mutex> l(m_);
    std::map<Key, Row> rows;
    std::map<std::pair<std::string, std::string>, std::uint64_t> errors;
    for (const auto& peer : peers) {
        for (const auto& op : ops) {
            for (auto size : sizes) {
                const Key k{peer, op, size};
                const auto it = rows_.find(k);
                rows[k] = it == rows_.end() ? Row{} : std::move(it->second);
            }
        }
        std::vector<std::string> error_ops = ops;
        error_ops.push_back("connect");
        for (const auto& op : error_ops) {
            const auto it = errors_.find({peer, op});
            errors[{peer, op}] = it == errors_.end() ? 0 : it->second;
        }
    }
    rows_ = std::move(rows);
    errors_ = std::move(errors);
    window_s_ = window_s;
}

void ProbeSummaries::add_phase(const std::string& peer, const std::string& op, std::uint64_t size,
                               const std::vector<double>& raw_us, double now_s) {
    std::lock_guard<std::mutex> l(m_);
    const auto it = rows_.find({peer, op, size});
    if (it == rows_.end() || raw_us.empty()) return;
    Row& r = it->second;
    double sum_us = 0;
    for (double v : raw_us) sum_us += v;
    r.sum_us += sum_us;
    r.count += raw_us.size();
    auto& total = total_lat_[{op, size}];
    total.first += sum_us / 1e6;
    total.second += raw_us.size();
    r.rounds.emplace_back(now_s, raw_us);
}

void ProbeSummaries::add_error(const std::string& peer, const std::string& op, double now_s) {
    std::lock_guard<std::mutex> l(m_);
    const auto it = errors_.find({peer, op});
    if (it == errors_.end()) return;
    ++it->second;
    ++total_err_[op];
    recent_errors_.emplace_back(now_s, peer, op);
}

ProbeMetrics ProbeSummaries::view(double now_s) {
    std::lock_guard<std::mutex> l(m_);
    ProbeMetrics out;
    out.window_s = window_s_;
    out.errors = errors_;
    while (!recent_errors_.empty() && std::get<0>(recent_errors_.front()) < now_s - window_s_)
        recent_errors_.pop_front();
    for (const auto& [key, n] : errors_) out.window_errors[key] = 0;
    for (const auto& [t, peer, op] : recent_errors_) {
        if (t < now_s - window_s_) continue;  // out of order (the pruning stops at a newer one)
        if (auto it = out.window_errors.find({peer, op}); it != out.window_errors.end())
            ++it->second;
    }
    out.total_latency = total_lat_;
    out.total_errors = total_err_;
    for (const auto& [peer_op, n] : errors_) out.total_errors.try_emplace(peer_op.second, 0);
    for (const auto& [key, r] : rows_)
        out.total_latency.try_emplace({std::get<1>(key), std::get<2>(key)}, 0.0, 0);
    std::vector<double> window;
    for (auto& [key, r] : rows_) {
        while (!r.rounds.empty() && r.rounds.front().first < now_s - window_s_)
            r.rounds.pop_front();
        window.clear();
        for (const auto& [t, v] : r.rounds) window.insert(window.end(), v.begin(), v.end());
        std::sort(window.begin(), window.end());
        ProbeLatencyRow row;
        row.peer = std::get<0>(key);
        row.op = std::get<1>(key);
        row.size_bytes = std::get<2>(key);
        row.window_samples = window.size();
        if (!window.empty()) {
            row.p50_s = nearest_rank(window, 50) / 1e6;
            row.p99_s = nearest_rank(window, 99) / 1e6;
            if (window.size() >= LatencyStats::kMinIterationsForP999)
                row.p999_s = nearest_rank(window, 99.9) / 1e6;
        }
        row.sum_s = r.sum_us / 1e6;
        row.count = r.count;
        out.latency.push_back(std::move(row));
    }
    return out;
}

}  // namespace rh::agent

// The probe mesh's latency as Prometheus summaries: per (peer, op, size) the timed samples of
// the last `window_s` seconds (quantiles 0.5, 0.99, 0.999 over them, nearest rank as
// probes/latency/latency_stats.h) plus the cumulative sum and count of every sample since the agent
// started; and the mesh's failures per (peer, op) since the agent started and in the window,
// and the totals of every row (what the series budget exports: agent/daemon/mesh_budget.h). Fed by
// the mesh thread (probes/mesh/mesh.h MeshHooks), read by the run loop when it renders /metrics:
// thread-safe. Cumulative values survive a mesh restart (a SIGHUP reload), as Prometheus
// counters should; rows of peers, ops or sizes no longer configured are dropped.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace rh::agent {

/// One (peer, op, size) summary, in seconds.
struct ProbeLatencyRow {
    std::string peer;  ///< HOST[:PORT] as configured
    std::string op;    ///< "write" | "read"
    std::uint64_t size_bytes = 0;
    std::size_t window_samples = 0;  ///< samples the quantiles are computed over
    /// Nearest-rank quantiles of the window; nullopt when the window is empty. p999 is nullopt
    /// below 1000 samples (it would be the maximum).
    std::optional<double> p50_s, p99_s, p999_s;
    double sum_s = 0;         ///< every sample since the agent started
    std::uint64_t count = 0;  ///< ... and how many
};

struct ProbeMetrics {
    std::vector<ProbeLatencyRow> latency;  ///< sorted by (peer, op, size)
    /// (peer, op) -> failures since the agent started; op "connect": no session could be set
    /// up. Every configured (peer, op) and (peer, "connect") is present, from 0.
    std::map<std::pair<std::string, std::string>, std::uint64_t> errors;
    /// (peer, op) -> failures in the last window_s (the same keys as `errors`).
    std::map<std::pair<std::string, std::string>, std::uint64_t> window_errors;
    /// Every row's timed samples since the agent started, summed per (op, size): (sum in
    /// seconds, count). Kept when rows are dropped, so they count up as counters must.
    std::map<std::pair<std::string, std::uint64_t>, std::pair<double, std::uint64_t>> total_latency;
    /// Every row's failures since the agent started per op (as `errors`' ops), kept likewise.
    std::map<std::string, std::uint64_t> total_errors;
    double window_s = 0;
    /// Set by keep_worst (agent/daemon/mesh_budget.h): `latency` and `window_errors` hold only
    /// the worst destinations, and /metrics shows the summarised form (their quantiles and
    /// window failures, plus the totals) instead of per-row sums, counts and `errors`.
    bool summarised = false;
};

class ProbeSummaries {
  public:
    /// Sets the rows that exist (every combination, from 0) and the window; keeps what was
    /// accumulated for rows that stay.
    void configure(const std::vector<std::string>& peers, const std::vector<std::string>& ops,
                   const std::vector<std::uint64_t>& sizes, double window_s);

    /// A phase's timed samples (µs) at monotonic time now_s. Unknown rows are ignored.
    void add_phase(const std::string& peer, const std::string& op, std::uint64_t size,
                   const std::vector<double>& raw_us, double now_s);
    /// A failure (op as probes/mesh/mesh.h: a configured op or "connect") at monotonic time
    /// now_s. Unknown peers are ignored.
    void add_error(const std::string& peer, const std::string& op, double now_s);

    /// Drops samples older than now_s - window_s and computes the quantiles.
    ProbeMetrics view(double now_s);

  private:
    using Key = std::tuple<std::string, std::string, std::uint64_t>;
    struct Row {
        std::deque<std::pair<double, std::vector<double>>> rounds;  ///< (t, samples µs)
        double sum_us = 0;
        std::uint64_t count = 0;
    };
    std::mutex m_;
    std::map<Key, Row> rows_;
    std::map<std::pair<std::string, std::string>, std::uint64_t> errors_;
    std::deque<std::tuple<double, std::string, std::string>> recent_errors_;  ///< (t, peer, op)
    std::map<std::pair<std::string, std::uint64_t>, std::pair<double, std::uint64_t>> total_lat_;
    std::map<std::string, std::uint64_t> total_err_;
    double window_s_ = 60;
};

}  // namespace rh::agent

// rocehealth_engine_bench: how long the rule engine takes over long recordings, and whether it
// scales linearly with their length. Builds recordings of N one-second passes (N = 600, 1800,
// 3600 by default) by continuing a replay scenario's per-pass counter increments (the
// `healthy_steady_load` two-host ConnectX-6 Dx recording: ~11 GB/s of RoCE, ECN marks, CNPs),
// loads each into a SeriesStore and times run_rules with the shipped rules file.
// Prints per N: series, passes, engine seconds, passes evaluated per second, and the time ratio
// to the shortest run (linear scaling: ratio ~ N / N_min).
// Usage: rocehealth_engine_bench [SCENARIO_DIR] [N ...]
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "core/sample_json.h"
#include "rules/engine/engine.h"

namespace fs = std::filesystem;

namespace {

/// The scenario's samples, every host, in file order.
std::vector<rh::Sample> load(const fs::path& dir) {
    std::vector<rh::Sample> all;
    for (const auto& e : fs::directory_iterator(dir)) {
        if (e.path().extension() != ".jsonl") continue;
        auto r = rh::read_samples_file(e.path().string());
        if (!r) {
            std::fprintf(stderr, "engine_bench: %s\n", r.error().message().c_str());
            std::exit(2);
        }
        all.insert(all.end(), r->samples.begin(), r->samples.end());
    }
    return all;
}

/// A store holding `passes` passes: the recording's passes, then its per-pass increments
/// repeated (counters keep growing as they did, gauges keep their cycle).
rh::SeriesStore extend(const std::vector<rh::Sample>& rec, std::size_t passes) {
    // Per series: its samples in order.
    std::map<std::string, std::vector<const rh::Sample*>> by_series;
    for (const auto& s : rec) {
        std::string key = s.host + "|" + s.series;
        for (const auto& [k, v] : s.labels) key += "|" + k + "=" + v;
        by_series[key].push_back(&s);
    }
    rh::SeriesStore store(rh::StoreLimits{std::numeric_limits<double>::infinity(),
                                          std::numeric_limits<std::size_t>::max()});
    for (const auto& [key, v] : by_series) {
        if (v.size() < 2) continue;
        const std::size_t n = v.size();
        std::uint64_t carry = 0;
        for (std::size_t i = 0; i < passes; ++i) {
            const std::size_t cycle = i / (n - 1), k = i % (n - 1);
            rh::Sample s = *v[k];
            const double shift = static_cast<double>(cycle) * (v[n - 1]->t_s - v[0]->t_s);
            s.t_s += shift;
            if (s.wall_ms) s.wall_ms += static_cast<std::int64_t>(shift * 1000);
            if (s.count && v[n - 1]->count && v[0]->count) {
                if (k == 0 && cycle > 0) carry += *v[n - 1]->count - *v[0]->count;
                s.count = *s.count + carry;
            }
            store.add(s);
        }
    }
    return store;
}

}  // namespace

int main(int argc, char** argv) {
    fs::path dir = argc > 1 ? fs::path(argv[1]) : fs::path(RH_BENCH_SCENARIO);
    std::vector<std::size_t> lengths;
    for (int i = 2; i < argc; ++i) lengths.push_back(std::stoul(argv[i]));
    if (lengths.empty()) lengths = {600, 1800, 3600};
    const auto rules = rh::load_rules_file(RH_BENCH_RULES);
    if (!rules) {
        std::fprintf(stderr, "engine_bench: %s\n", rules.error().message().c_str());
        return 2;
    }
    const auto rec = load(dir);
    std::printf("engine over %s (%zu samples), %zu rules\n", dir.c_str(), rec.size(),
                rules->rules.size());
    std::printf("%8s %8s %10s %12s %12s %8s\n", "passes", "series", "findings", "engine_s",
                "passes/s", "ratio");
    double first = 0;
    for (std::size_t n : lengths) {
        const auto store = extend(rec, n);
        const auto t0 = std::chrono::steady_clock::now();
        const auto r = rh::run_rules(store, *rules);
        const double s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (first == 0) first = s;
        std::printf("%8zu %8zu %10zu %12.3f %12.0f %8.2f\n", n, store.series_count(),
                    r.findings.size(), s, static_cast<double>(n) / s, s / first);
    }
    return 0;
}

// rocehealth_engine_bench: how long the rule engine takes over long recordings, and whether it
// scales linearly with their length. Builds recordings of N one-second passes (N = 600, 1800,
// 3600 and 86400, a day: issue 13's goal is < 2 s for it, by default) by continuing a replay
// scenario's per-pass counter increments (the `healthy_steady_load` two-host ConnectX-6 Dx
// recording: ~11 GB/s of RoCE, ECN marks, CNPs), loads each into a SeriesStore and times run_rules
// with the shipped rules file. Prints per N: series, passes, engine wall and CPU seconds, passes
// evaluated per CPU second, the CPU time ratio to the shortest run and the ratio linear scaling
// would give (N / N_min). CPU time, because a loaded machine stretches wall time (the build, other
// benchmarks). Usage: rocehealth_engine_bench [SCENARIO_DIR] [N ...]
#include <chrono>
#include <cstdio>
#include <ctime>
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

double cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
    fs::path dir = argc > 1 ? fs::path(argv[1]) : fs::path(RH_BENCH_SCENARIO);
    std::vector<std::size_t> lengths;
    for (int i = 2; i < argc; ++i) lengths.push_back(std::stoul(argv[i]));
    if (lengths.empty()) lengths = {600, 1800, 3600, 86400};
    const auto rules = rh::load_rules_file(RH_BENCH_RULES);
    if (!rules) {
        std::fprintf(stderr, "engine_bench: %s\n", rules.error().message().c_str());
        return 2;
    }
    const auto rec = load(dir);
    std::printf("engine over %s (%zu samples), %zu rules\n", dir.c_str(), rec.size(),
                rules->rules.size());
    std::printf("%8s %8s %9s %9s %9s %10s %8s %8s\n", "passes", "series", "findings", "wall_s",
                "cpu_s", "passes/s", "ratio", "linear");
    double first = 0;
    for (std::size_t n : lengths) {
        const auto store = extend(rec, n);
        const auto t0 = std::chrono::steady_clock::now();
        const double c0 = cpu_seconds();
        const auto r = rh::run_rules(store, *rules);
        const double cpu = cpu_seconds() - c0;
        const double wall =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (first == 0) first = cpu;
        std::printf("%8zu %8zu %9zu %9.3f %9.3f %10.0f %8.2f %8.2f\n", n, store.series_count(),
                    r.findings.size(), wall, cpu, static_cast<double>(n) / cpu, cpu / first,
                    static_cast<double>(n) / static_cast<double>(lengths.front()));
    }
    return 0;
}

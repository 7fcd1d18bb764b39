// rocehealth_engine_bench: how long the rule engine takes over long recordings, and whether it
// scales linearly with their length. Builds recordings of N one-second passes (N = 600, 1800,
// 3600 and 86400, a day: issue 13's goal is < 2 s for it, by default) by continuing a replay
// scenario's per-pass counter increments (the `healthy_steady_load` two-host ConnectX-6 Dx
// recording: ~11 GB/s of RoCE, ECN marks, CNPs), loads each into a SeriesStore and times run_rules
// with the shipped rules file. Prints per N: series, passes, engine wall and CPU seconds, passes
// evaluated per CPU second, the CPU time ratio to the shortest run and the ratio linear scaling
// would give (N / N_min). CPU time, because a loaded machine stretches wall time (the build, other
// benchmarks). `--repeat R` runs the engine R times on each store and prints the fastest run (a
// loaded machine's figures vary by 10-20 %; R runs also make a profile mostly the engine's).
// `--agent [RETENTION_S ...]` (300, 900, 3600 by default) times the agent's case instead: rules
// runs after each new pass over a store with that retention, without and with the VerdictCache
// (agent_runs); `--agent-cached` only with the cache, 300 runs (for a profiler). Usage:
// rocehealth_engine_bench [--packed] [--repeat R | --agent | --agent-cached] [SCENARIO_DIR] [N ...]
// rocehealth_engine_bench --inventory [DIR]
// `--packed` keeps the replay's points packed as the agent's store does (store/point_seq.h), to
// weigh that encoding's read cost; the agent's case is always packed. `--inventory` times what
// one inventory costs between the collector and the engine (for each `snapshot --json` file of
// DIR, default tests/fixtures/inventory): the JSON detour the store took before issue 30 (the
// static facts as JSON text, parsed into a tree, decoded back by the engine) against the typed
// copy the store keeps now (inventory_static_facts).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "core/inventory/inventory.h"
#include "core/inventory/inventory_from_json.h"
#include "core/json_file.h"
#include "core/recording/sample_json.h"
#include "rules/engine/engine.h"
#include "rules/engine/verdict_cache.h"

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

/// The recording per series (host, name, labels): its samples in order; series read fewer
/// than twice are left out.
std::vector<std::vector<const rh::Sample*>> by_series(const std::vector<rh::Sample>& rec) {
    std::map<std::string, std::vector<const rh::Sample*>> m;
    for (const auto& s : rec) {
        std::string key = s.host + "|" + s.series;
        for (const auto& [k, v] : s.labels) key += "|" + k + "=" + v;
        m[key].push_back(&s);
    }
    std::vector<std::vector<const rh::Sample*>> out;
    for (auto& [key, v] : m)
        if (v.size() >= 2) out.push_back(std::move(v));
    return out;
}

/// Pass i of one series: the recording's passes, then its per-pass increments repeated
/// (counters keep growing as they did, gauges keep their cycle).
rh::Sample pass_sample(const std::vector<const rh::Sample*>& v, std::size_t i) {
    const std::size_t n = v.size(), cycle = i / (n - 1), k = i % (n - 1);
    rh::Sample s = *v[k];
    const double shift = static_cast<double>(cycle) * (v[n - 1]->t_s - v[0]->t_s);
    s.t_s += shift;
    if (s.wall_ms) s.wall_ms += static_cast<std::int64_t>(shift * 1000);
    if (s.count && v[n - 1]->count && v[0]->count)
        s.count = *s.count + cycle * (*v[n - 1]->count - *v[0]->count);
    return s;
}

/// A store holding `passes` passes of every series, kept whole, added a pass at a time (as
/// recordings and the agent add them); its points plain as a replay keeps them, or `packed` as
/// the agent does (store/point_seq.h).
rh::SeriesStore extend(const std::vector<rh::Sample>& rec, std::size_t passes, bool packed) {
    rh::SeriesStore store(rh::StoreLimits{std::numeric_limits<double>::infinity(),
                                          std::numeric_limits<std::size_t>::max(), packed});
    const auto series = by_series(rec);
    for (std::size_t i = 0; i < passes; ++i)
        for (const auto& v : series) store.add(pass_sample(v, i));
    return store;
}

double cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

/// The agent's case: a store with `retention_s` of retention (1 s passes) that one pass at a
/// time grows and ages, the rules run after every pass. Fills the retention, then times
/// `runs` rules runs without (full) and with the verdict cache kept between runs, and checks
/// that both give the same report at every run. Prints a row; false when they differ.
/// `first_cached_ms` is the first row's cached CPU per run (set by the first call).
bool agent_runs(const std::vector<rh::Sample>& rec, const rh::RuleSet& rules, double retention_s,
                std::size_t runs, bool full, double& first_cached_ms) {
    const auto series = by_series(rec);
    const auto passes = static_cast<std::size_t>(retention_s);
    rh::SeriesStore store(rh::StoreLimits{retention_s, passes + 16});
    rh::VerdictCache cache;
    std::size_t i = 0;
    for (; i < passes; ++i)
        for (const auto& v : series) store.add(pass_sample(v, i));
    rh::run_rules(store, rules, {}, cache);  // the cache as a running agent has it
    double full_cpu = 0, cached_cpu = 0;
    bool same = true;
    for (std::size_t r = 0; r < runs; ++r, ++i) {
        for (const auto& v : series) store.add(pass_sample(v, i));
        double c0 = cpu_seconds();
        const auto b = rh::run_rules(store, rules, {}, cache);
        cached_cpu += cpu_seconds() - c0;
        if (!full) continue;
        c0 = cpu_seconds();
        const auto a = rh::run_rules(store, rules);
        full_cpu += cpu_seconds() - c0;
        same = same && nlohmann::json(a.findings) == nlohmann::json(b.findings) &&
               nlohmann::json(a.unevaluated) == nlohmann::json(b.unevaluated) &&
               nlohmann::json(a.not_applicable) == nlohmann::json(b.not_applicable) &&
               a.not_judged.size() == b.not_judged.size();
    }
    const double full_ms = full_cpu * 1e3 / static_cast<double>(runs);
    const double cached_ms = cached_cpu * 1e3 / static_cast<double>(runs);
    if (first_cached_ms == 0) first_cached_ms = cached_ms;
    std::printf("%11.0f %8zu %7zu %6zu %12.3f %14.3f %13.2f %9s\n", retention_s,
                store.pass_times(store.hosts().front()).size(), cache.groups(), cache.runs(),
                full_ms, cached_ms, cached_ms / first_cached_ms,
                full ? (same ? "yes" : "NO") : "-");
    return same;
}

/// `--inventory [DIR]`: per `snapshot --json` file of DIR (default tests/fixtures/inventory), the
/// CPU microseconds per inventory of the JSON detour the store took before issue 30 (the static
/// facts as JSON text parsed into a tree, snapshot_json_tree, then decoded by the engine,
/// snapshot_from_json) and of the typed copy it keeps now (inventory_static_facts), and their
/// ratio.
int inventory_costs(const fs::path& dir) {
    constexpr int kRounds = 2000;
    std::printf("%24s %8s %14s %14s %8s\n", "snapshot", "devices", "json_us/inv", "typed_us/inv",
                "ratio");
    std::size_t sink = 0;
    for (const auto& e : fs::directory_iterator(dir)) {
        if (e.path().extension() != ".json") continue;
        const auto doc = rh::read_json_file(e.path().string(), "read");
        auto snap = doc ? rh::snapshot_from_json(*doc) : rh::Result<rh::Snapshot>(doc.error());
        if (!snap) {
            std::fprintf(stderr, "engine_bench: %s\n", snap.error().message().c_str());
            return 2;
        }
        double c0 = cpu_seconds();
        for (int k = 0; k < kRounds; ++k) {
            const auto back = rh::snapshot_from_json(
                rh::snapshot_json_tree(*snap, rh::InventoryJson::without_counters));
            sink += back ? back->devices.size() : 0;
        }
        const double json_us = (cpu_seconds() - c0) * 1e6 / kRounds;
        c0 = cpu_seconds();
        for (int k = 0; k < kRounds; ++k) sink += rh::inventory_static_facts(*snap).devices.size();
        const double typed_us = (cpu_seconds() - c0) * 1e6 / kRounds;
        std::printf("%24s %8zu %14.1f %14.1f %8.1f\n", e.path().filename().c_str(),
                    snap->devices.size(), json_us, typed_us, json_us / typed_us);
    }
    return sink > 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    int arg = 1, repeat = 1;
    bool agent = false, full = true, packed = false;
    if (argc > 1 && std::string(argv[1]) == "--packed") {
        packed = true;
        ++argv;
        --argc;
    }
    const bool inventory = argc > 1 && std::string(argv[1]) == "--inventory";
    if (inventory) arg = 2;
    if (argc > 1 &&
        (std::string(argv[1]) == "--agent" || std::string(argv[1]) == "--agent-cached")) {
        agent = true;
        full = std::string(argv[1]) == "--agent";
        arg = 2;
    } else if (argc > 2 && std::string(argv[1]) == "--repeat") {
        repeat = std::max(1, std::stoi(argv[2]));
        arg = 3;
    }
    fs::path dir = argc > arg ? fs::path(argv[arg]) : fs::path(RH_BENCH_SCENARIO);
    std::vector<std::size_t> lengths;
    for (int i = arg + 1; i < argc; ++i) lengths.push_back(std::stoul(argv[i]));
    if (lengths.empty())
        lengths = agent ? std::vector<std::size_t>{300, 900, 3600}
                        : std::vector<std::size_t>{600, 1800, 3600, 86400};
    const auto rules = rh::load_rules_file(RH_BENCH_RULES);
    if (!rules) {
        std::fprintf(stderr, "engine_bench: %s\n", rules.error().message().c_str());
        return 2;
    }
    if (inventory)
        return inventory_costs(argc > arg ? fs::path(argv[arg])
                                          : dir.parent_path().parent_path() / "fixtures/inventory");
    const auto rec = load(dir);
    std::printf("engine over %s (%zu samples), %zu rules, points %s\n", dir.c_str(), rec.size(),
                rules->rules.size(), packed ? "packed (the agent's)" : "plain (a replay's)");
    if (agent) {
        std::printf("%11s %8s %7s %6s %12s %14s %13s %9s\n", "retention_s", "passes", "groups",
                    "runs", "full_ms/run", "cached_ms/run", "cached_ratio", "identical");
        double first_ms = 0;
        bool ok = true;
        for (std::size_t r : lengths)
            ok = agent_runs(rec, *rules, static_cast<double>(r), full ? 30 : 300, full, first_ms) &&
                 ok;
        return ok ? 0 : 1;
    }
    std::printf("%8s %8s %9s %9s %9s %10s %8s %8s\n", "passes", "series", "findings", "wall_s",
                "cpu_s", "passes/s", "ratio", "linear");
    double first = 0;
    for (std::size_t n : lengths) {
        const auto store = extend(rec, n, packed);
        double cpu = std::numeric_limits<double>::infinity(), wall = 0;
        rh::EngineResult r;
        for (int k = 0; k < repeat; ++k) {
            const auto t0 = std::chrono::steady_clock::now();
            const double c0 = cpu_seconds();
            r = rh::run_rules(store, *rules);
            const double c = cpu_seconds() - c0;
            if (c < cpu) {
                cpu = c;
                wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            }
        }
        if (first == 0) first = cpu;
        std::printf("%8zu %8zu %9zu %9.3f %9.3f %10.0f %8.2f %8.2f\n", n, store.series_count(),
                    r.findings.size(), wall, cpu, static_cast<double>(n) / cpu, cpu / first,
                    static_cast<double>(n) / static_cast<double>(lengths.front()));
    }
    return 0;
}

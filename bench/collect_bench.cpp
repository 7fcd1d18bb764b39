// rocehealth_bench: times N full collect_snapshot passes (every source, normalization included)
// over a fixture sysfs tree, without and with JSON serialization of the snapshot.
//   rocehealth_bench [--sysfs-root DIR] [--passes N]
// Prints a human summary and `key=value` lines for scripts (bench/node_exporter_compare.sh).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "collectors/collect.h"

namespace {

struct Timing {
    double total_s = 0;
    double cpu_s = 0;       ///< process CPU time (user + system), robust to a busy machine
    std::size_t bytes = 0;  ///< JSON size of the last pass (0 without JSON)
    std::size_t counters = 0;
};

Timing run(const rh::CollectOptions& opts, int passes, bool json) {
    Timing t;
    const auto start = std::chrono::steady_clock::now();
    const std::clock_t cpu0 = std::clock();
    for (int i = 0; i < passes; ++i) {
        const rh::Snapshot s = rh::collect_snapshot(opts);
        if (json) t.bytes = nlohmann::json(s).dump().size();
        if (i == 0)
            for (const auto& d : s.devices)
                for (const auto& p : d.ports)
                    t.counters += p.counters.size() + p.hw_counters.size() + p.normalized.size() +
                                  (p.netdev ? p.netdev->ethtool_stats.size() : 0);
    }
    t.total_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    t.cpu_s = static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC;
    return t;
}

void report(std::string_view what, const Timing& t, int passes) {
    const double us = t.total_s * 1e6 / passes;
    std::printf("%-14s %6d passes  %8.1f passes/s  %9.1f us/pass wall  %9.1f us/pass CPU",
                std::string(what).c_str(), passes, passes / t.total_s, us, t.cpu_s * 1e6 / passes);
    if (t.bytes) std::printf("  (%zu JSON bytes)", t.bytes);
    std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
    std::string root = RH_BENCH_DEFAULT_TREE;
    int passes = 1000;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (a == "--sysfs-root" && i + 1 < argc) {
            root = argv[++i];
        } else if (a == "--passes" && i + 1 < argc) {
            passes = std::atoi(argv[++i]);
        } else {
            std::fprintf(stderr, "usage: %s [--sysfs-root DIR] [--passes N]\n", argv[0]);
            return 2;
        }
    }
    if (passes <= 0) passes = 1;
    rh::CollectOptions opts{rh::SysfsRoot(root), {}};
    const rh::Snapshot first = rh::collect_snapshot(opts);  // warm the page cache
    std::size_t ports = 0;
    for (const auto& d : first.devices) ports += d.ports.size();
    std::printf("tree %s: %zu devices, %zu ports\n", root.c_str(), first.devices.size(), ports);

    const Timing collect = run(opts, passes, false);
    const Timing with_json = run(opts, passes, true);
    std::printf("raw+normalized counters per pass: %zu\n", collect.counters);
    report("collect", collect, passes);
    report("collect+json", with_json, passes);
    std::printf(
        "collect_us_per_pass=%.1f\ncollect_json_us_per_pass=%.1f\n"
        "collect_cpu_us_per_pass=%.1f\ncollect_json_cpu_us_per_pass=%.1f\nports=%zu\n",
        collect.total_s * 1e6 / passes, with_json.total_s * 1e6 / passes,
        collect.cpu_s * 1e6 / passes, with_json.cpu_s * 1e6 / passes, ports);
    return first.devices.empty() ? 1 : 0;
}

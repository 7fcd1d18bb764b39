// rocehealth_bench: times, over a fixture sysfs tree,
//  - N full collect_snapshot passes (discovery: every source, GIDs, PCIe chain, normalization),
//    without and with JSON serialization of the snapshot, and
//  - N steady-state CounterPoller::poll passes (kept descriptors, pread, in-place normalization)
//    on the snapshot of one discovery pass.
//   rocehealth_bench [--sysfs-root DIR] [--passes N]
// CPU is process CPU time (user + system); read syscalls per pass come from /proc/self/io
// (`syscr`: read/pread calls). Prints a human summary and `key=value` lines for scripts
// (bench/node_exporter_compare.sh).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "collectors/collect.h"
#include "collectors/counter_poller.h"

namespace {

struct Timing {
    double total_s = 0;
    double cpu_s = 0;       ///< process CPU time (user + system), robust to a busy machine
    std::size_t bytes = 0;  ///< JSON size of the last pass (0 without JSON)
    std::size_t counters = 0;
    double reads = 0;       ///< read syscalls per pass (/proc/self/io syscr), 0 if unknown
    std::size_t files = 0;  ///< files read per pass (poll only)
};

/// read/pread syscalls of this process so far (`syscr` of /proc/self/io), 0 when unavailable.
double read_syscalls() {
    std::ifstream in("/proc/self/io");
    std::string key;
    double v = 0;
    while (in >> key >> v)
        if (key == "syscr:") return v;
    return 0;
}

Timing run(const rh::CollectOptions& opts, int passes, bool json) {
    Timing t;
    const double reads0 = read_syscalls();
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
    t.reads = (read_syscalls() - reads0) / passes;
    return t;
}

/// `passes` polls of `snap` by one CounterPoller built on it (construction not timed).
Timing run_poll(const rh::CollectOptions& opts, rh::Snapshot snap, int passes) {
    Timing t;
    rh::CounterPoller poller(opts.sysfs, snap);
    std::size_t files = 0;
    bool rediscover = false;
    const double reads0 = read_syscalls();
    const auto start = std::chrono::steady_clock::now();
    const std::clock_t cpu0 = std::clock();
    for (int i = 0; i < passes; ++i) {
        const rh::PollResult r = poller.poll(snap);
        files += r.files_read;
        rediscover = rediscover || r.rediscover;
    }
    t.total_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    t.cpu_s = static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC;
    t.reads = (read_syscalls() - reads0) / passes;
    t.files = files / static_cast<std::size_t>(passes);
    if (rediscover) std::fprintf(stderr, "warning: a poll asked for rediscovery\n");
    for (const auto& d : snap.devices)
        for (const auto& p : d.ports)
            t.counters += p.counters.size() + p.hw_counters.size() + p.normalized.size();
    return t;
}

void report(std::string_view what, const Timing& t, int passes) {
    const double us = t.total_s * 1e6 / passes;
    std::printf("%-14s %6d passes  %8.1f passes/s  %9.1f us/pass wall  %9.1f us/pass CPU",
                std::string(what).c_str(), passes, passes / t.total_s, us, t.cpu_s * 1e6 / passes);
    if (t.reads) std::printf("  %6.0f read syscalls/pass", t.reads);
    if (t.files) std::printf("  %zu files/pass", t.files);
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
    const Timing poll = run_poll(opts, first, passes);
    std::printf("raw+normalized counters per pass: %zu (poll: %zu, no ethtool -S re-read)\n",
                collect.counters, poll.counters);
    report("collect", collect, passes);
    report("collect+json", with_json, passes);
    report("poll", poll, passes);
    std::printf(
        "collect_us_per_pass=%.1f\ncollect_json_us_per_pass=%.1f\n"
        "collect_cpu_us_per_pass=%.1f\ncollect_json_cpu_us_per_pass=%.1f\n"
        "collect_reads_per_pass=%.0f\n"
        "poll_us_per_pass=%.1f\npoll_cpu_us_per_pass=%.1f\npoll_reads_per_pass=%.0f\n"
        "poll_files_per_pass=%zu\nports=%zu\n",
        collect.total_s * 1e6 / passes, with_json.total_s * 1e6 / passes,
        collect.cpu_s * 1e6 / passes, with_json.cpu_s * 1e6 / passes, collect.reads,
        poll.total_s * 1e6 / passes, poll.cpu_s * 1e6 / passes, poll.reads, poll.files, ports);
    return first.devices.empty() ? 1 : 0;
}

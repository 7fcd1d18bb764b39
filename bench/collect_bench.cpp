// rocehealth_bench: times, over a fixture sysfs tree,
//  - N full collect_snapshot passes (discovery: every source, GIDs, PCIe chain, normalization),
//    without and with JSON serialization of the snapshot, and
//  - N steady-state CounterPoller::poll passes (kept descriptors, pread, in-place normalization)
//    on the snapshot of one discovery pass, the tree unchanged ("poll"), and
//  - the same polls while every counters/ and hw_counters/ file changes between them ("poll
//    changing", on a private copy of the tree: every port is normalized again on each pass).
//   rocehealth_bench [--sysfs-root DIR] [--passes N] [--poll-passes N]
//                    [--only collect|json|poll]
// --passes: discovery passes (default 1000); --poll-passes: polls of each kind (default
// --passes). --only times one kind of pass (for a profiler: `valgrind --tool=callgrind
// --toggle-collect='rh::CounterPoller::poll(*' rocehealth_bench --only poll --passes 300`).
// CPU is process CPU time (user + system); read syscalls per pass come from /proc/self/io
// (`syscr`: read/pread calls). Prints a human summary and `key=value` lines for scripts
// (bench/node_exporter_compare.sh).
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/collect.h"
#include "collectors/poller/counter_poller.h"

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
        if (json) t.bytes = rh::snapshot_json_text(s, -1).size();
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

/// Every `counters/` and `hw_counters/` file of a snapshot, open for writing, rewritten in
/// place with a new value of fixed width (same length: no truncation, no block allocation), so
/// that the next poll finds every counter changed, as on a host with traffic on every port.
class CounterBumper {
  public:
    explicit CounterBumper(const rh::Snapshot& snap) {
        for (const auto& d : snap.devices)
            for (const auto& p : d.ports)
                for (const auto* list : {&p.counters, &p.hw_counters})
                    for (const auto& c : *list) {
                        const int fd = ::open(c.source.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
                        if (fd < 0) throw std::runtime_error("cannot write " + c.source);
                        fds_.push_back(fd);
                    }
        bump(0);
    }
    ~CounterBumper() {
        for (int fd : fds_) ::close(fd);
    }
    CounterBumper(const CounterBumper&) = delete;
    CounterBumper& operator=(const CounterBumper&) = delete;

    void bump(int pass) {
        char v[32];
        for (std::size_t k = 0; k < fds_.size(); ++k) {
            const int n =
                std::snprintf(v, sizeof v, "%016llu\n",
                              1000000ull + static_cast<unsigned long long>(pass) * 1000 + k);
            if (::pwrite(fds_[k], v, static_cast<std::size_t>(n), 0) != n)
                throw std::runtime_error("counter rewrite failed");
        }
    }

  private:
    std::vector<int> fds_;
};

/// `passes` polls of `snap` by one CounterPoller built on it (construction not timed). With
/// `changing`, every counter file is rewritten before each poll (not timed: only the poll()
/// calls are, each between two clock readings).
Timing run_poll(const rh::CollectOptions& opts, rh::Snapshot snap, int passes, bool changing) {
    Timing t;
    rh::CounterPoller poller(opts.sysfs, snap);
    std::size_t files = 0;
    bool rediscover = false;
    std::optional<CounterBumper> bumper;
    if (changing) bumper.emplace(snap);
    const double reads0 = read_syscalls();
    const auto start = std::chrono::steady_clock::now();
    const std::clock_t cpu0 = std::clock();
    for (int i = 0; i < passes; ++i) {
        if (changing) {
            bumper->bump(i + 1);
            const auto w0 = std::chrono::steady_clock::now();
            const std::clock_t c0 = std::clock();
            const rh::PollResult r = poller.poll(snap);
            t.cpu_s += static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
            t.total_s +=
                std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
            files += r.files_read;
            rediscover = rediscover || r.rediscover;
            continue;
        }
        const rh::PollResult r = poller.poll(snap);
        files += r.files_read;
        rediscover = rediscover || r.rediscover;
    }
    if (!changing) {
        t.total_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        t.cpu_s = static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC;
    }
    t.reads = (read_syscalls() - reads0) / passes;  // the rewrites are not reads
    t.files = files / static_cast<std::size_t>(passes);
    if (rediscover) std::fprintf(stderr, "warning: a poll asked for rediscovery\n");
    for (const auto& d : snap.devices)
        for (const auto& p : d.ports)
            t.counters += p.counters.size() + p.hw_counters.size() + p.normalized.size();
    return t;
}

/// A private copy of a fixture tree (`root`, and the `ethtool/` recordings beside it) for the
/// polls that rewrite counters; removed on destruction.
struct TreeCopy {
    std::filesystem::path dir;
    explicit TreeCopy(const std::filesystem::path& root) {
        char tmpl[] = "/tmp/rocehealth_bench.XXXXXX";
        if (!::mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
        dir = tmpl;
        const auto opts =
            std::filesystem::copy_options::recursive | std::filesystem::copy_options::copy_symlinks;
        std::filesystem::copy(root, dir / "sys", opts);
        if (std::filesystem::is_directory(root / ".." / "ethtool"))
            std::filesystem::copy(root / ".." / "ethtool", dir / "ethtool", opts);
    }
    ~TreeCopy() {
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
    }
};

void report(std::string_view what, const Timing& t, int passes) {
    const double us = t.total_s * 1e6 / passes;
    std::printf("%-14s %6d passes  %8.1f passes/s  %9.1f us/pass wall  %9.1f us/pass CPU",
                std::string(what).c_str(), passes, passes / t.total_s, us, t.cpu_s * 1e6 / passes);
    if (t.reads) std::printf("  %6.0f read syscalls/pass", t.reads);
    if (t.files) std::printf("  %zu files/pass", t.files);
    if (t.bytes) std::printf("  (%zu JSON bytes)", t.bytes);
    std::printf("\n");
}

/// `key=value` lines (newline-terminated) for scripts: <what>_passes_per_s, _us_per_pass (wall),
/// _cpu_us_per_pass, _reads_per_pass.
std::string keys(std::string_view what, const Timing& t, int passes) {
    const std::string w(what);
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "%s_passes_per_s=%.1f\n%s_us_per_pass=%.1f\n%s_cpu_us_per_pass=%.1f\n"
                  "%s_reads_per_pass=%.0f\n",
                  w.c_str(), passes / t.total_s, w.c_str(), t.total_s * 1e6 / passes, w.c_str(),
                  t.cpu_s * 1e6 / passes, w.c_str(), t.reads);
    return buf;
}

}  // namespace

int main(int argc, char** argv) {
    const char* usage =
        "usage: %s [--sysfs-root DIR] [--passes N] [--poll-passes N] [--only collect|json|poll]\n";
    std::string root = RH_BENCH_DEFAULT_TREE;
    int passes = 1000;
    int poll_passes = 0;  // 0: as --passes
    std::string only;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        const std::string_view next = i + 1 < argc ? argv[i + 1] : "";
        if (a == "--sysfs-root" && i + 1 < argc) {
            root = argv[++i];
        } else if (a == "--passes" && i + 1 < argc) {
            passes = std::atoi(argv[++i]);
        } else if (a == "--poll-passes" && i + 1 < argc) {
            poll_passes = std::atoi(argv[++i]);
        } else if (a == "--only" && (next == "collect" || next == "json" || next == "poll")) {
            only = argv[++i];
        } else {
            std::fprintf(stderr, usage, argv[0]);
            return 2;
        }
    }
    if (passes <= 0) passes = 1;
    if (poll_passes <= 0) poll_passes = passes;
    rh::CollectOptions opts{rh::SysfsRoot(root), {}};
    const rh::Snapshot first = rh::collect_snapshot(opts);  // warm the page cache
    std::size_t ports = 0;
    for (const auto& d : first.devices) ports += d.ports.size();
    std::printf("tree %s: %zu devices, %zu ports\n", root.c_str(), first.devices.size(), ports);

    const bool all = only.empty();
    std::string out;  // key=value lines, printed after the summary
    if (all || only == "collect") {
        const Timing collect = run(opts, passes, false);
        report("collect", collect, passes);
        out += keys("collect", collect, passes);
        std::printf("  raw+normalized counters per discovery pass: %zu\n", collect.counters);
    }
    if (all || only == "json") {
        const Timing with_json = run(opts, passes, true);
        report("collect+json", with_json, passes);
        out += keys("collect_json", with_json, passes);
    }
    if (all || only == "poll") {
        const Timing poll = run_poll(opts, first, poll_passes, false);
        report("poll", poll, poll_passes);
        out += keys("poll", poll, poll_passes) +
               "poll_files_per_pass=" + std::to_string(poll.files) + "\n";
        std::printf("  raw+normalized counters per poll pass: %zu (no ethtool -S on a fixture)\n",
                    poll.counters);
        if (!opts.sysfs.is_live()) {  // never rewrite the live /sys
            const TreeCopy copy(opts.sysfs.root());
            const rh::CollectOptions copy_opts{rh::SysfsRoot(copy.dir / "sys"), {}};
            const Timing busy =
                run_poll(copy_opts, rh::collect_snapshot(copy_opts), poll_passes, true);
            report("poll changing", busy, poll_passes);
            out += keys("poll_changing", busy, poll_passes);
        }
    }
    std::printf("%sports=%zu\n", out.c_str(), ports);
    return first.devices.empty() ? 1 : 0;
}

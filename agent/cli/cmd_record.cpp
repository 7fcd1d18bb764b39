// rocehealth record: samples this host's counters and facts at a fixed interval and appends them to
// a recording (JSON lines, store/README.md) for `rocehealth diagnose --replay`. The first pass
// discovers devices (collect_snapshot) and records the inventory; later passes re-read the kept-
// open counter files (collectors/poller/counter_poller.h); a device or file that appears or
// disappears triggers a new discovery and a new inventory sample. Each pass is flushed, so a
// recorder killed mid-run leaves every complete pass readable. Exit: 0 recorded (duration reached,
// or SIGINT/SIGTERM), 2 could not run. Options and their checks: agent/cli/record_options.h.
#include <signal.h>
#include <time.h>

#include <csignal>
#include <cstring>
#include <fstream>
#include <iostream>

#include "agent/cli/commands.h"
#include "agent/cli/options.h"
#include "agent/cli/record_options.h"
#include "agent/sampling/host_sampler.h"
#include "core/clock.h"
#include "core/pass_schedule.h"
#include "core/recording/sample_json.h"

namespace rh::cli {

namespace {

/// Sleeps until monotonic time `deadline_s`; returns early when a stop signal arrives.
void sleep_until(double deadline_s, const std::atomic<bool>& stop) {
    timespec ts{};
    ts.tv_sec = static_cast<time_t>(deadline_s);
    ts.tv_nsec = static_cast<long>((deadline_s - static_cast<double>(ts.tv_sec)) * 1e9);
    while (!stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
    }
}

/// Writes a pass of `sampler` to `out` every interval until the duration or a stop signal;
/// prints the totals. Exit 2 when a write fails (the passes before it are complete).
int record_passes(const RecordArgs& a, HostSampler& sampler, std::ofstream& out,
                  const std::atomic<bool>& stop) {
    PassSchedule schedule(a.interval_s, a.duration_s, monotonic_now_s());
    std::size_t passes = 0, samples = 0;
    while (!stop) {
        std::vector<std::string> rediscovered;
        const auto& batch = sampler.pass(rediscovered);
        for (const auto& why : rediscovered)
            std::cerr << "rocehealth record: rediscovered devices: " << why << "\n";
        for (const Sample& s : batch) write_sample(out, s);
        out.flush();
        if (!out) {
            std::cerr << "rocehealth record: writing " << a.out_path
                      << " failed (disk full?); passes written so far are complete\n";
            return kExitCannotRun;
        }
        ++passes;
        samples += batch.size();
        const double now = monotonic_now_s();
        if (schedule.done(now)) break;
        sleep_until(schedule.next_after(now), stop);
    }
    std::cerr << "rocehealth record: " << passes << " passes, " << samples << " samples to "
              << a.out_path << " (" << sampler.rediscoveries() << " rediscoveries)\n";
    return kExitOk;
}

}  // namespace

int run_record(const std::vector<std::string>& args) {
    RecordArgs a;
    const auto desc = record_options(a);
    po::variables_map vm;
    if (auto exit = parse_options("record",
                                  "rocehealth record --out FILE [--interval 1s] [--duration D] "
                                  "[--sysfs-root DIR] [--device NAME]",
                                  "Record counters and facts as JSON lines for `rocehealth "
                                  "diagnose --replay FILE`.\nExit: 0 recorded, 2 could not run.",
                                  args, desc, vm))
        return *exit;
    if (!check_record_args(a, vm)) return kExitCannotRun;
    HostSampler sampler(CollectOptions{SysfsRoot(a.root), a.device}, a.host);
    if (sampler.devices() == 0) {
        std::cerr << "rocehealth record: no RDMA device"
                  << (a.device.empty() ? "" : " named " + a.device) << " found under " << a.root
                  << "/class/infiniband\n";
        return kExitCannotRun;
    }
    std::ofstream out(a.out_path, a.append ? std::ios::app : std::ios::trunc);
    if (!out) {
        std::cerr << "rocehealth record: cannot open " << a.out_path
                  << " for writing: " << std::strerror(errno) << "\n";
        return kExitCannotRun;
    }
    // A stop signal ends the recording cleanly; the sleep returns at once.
    return record_passes(a, sampler, out, stop_on_signals());
}

}  // namespace rh::cli

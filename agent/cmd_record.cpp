// rocehealth record: samples this host's counters and facts at a fixed interval and appends them to
// a recording (JSON lines, store/README.md) for `rocehealth diagnose --replay`. The first pass
// discovers devices (collect_snapshot) and records the inventory; later passes re-read the kept-
// open counter files (collectors/poller/counter_poller.h); a device or file that appears or
// disappears triggers a new discovery and a new inventory sample. Each pass is flushed, so a
// recorder killed mid-run leaves every complete pass readable. Exit: 0 recorded (duration reached,
// or SIGINT/SIGTERM), 2 could not run.
#include <signal.h>
#include <time.h>

#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "agent/commands.h"
#include "agent/host_sampler.h"
#include "agent/options.h"
#include "core/clock.h"
#include "core/duration_arg.h"
#include "core/pass_schedule.h"
#include "core/sample_json.h"

namespace rh::cli {

namespace {

volatile std::sig_atomic_t g_stop = 0;

void on_signal(int) {
    g_stop = 1;
}

/// SIGINT/SIGTERM end the recording cleanly; no SA_RESTART, so the sleep returns at once.
void install_stop_handlers() {
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
}

/// Sleeps until monotonic time `deadline_s`; returns early when a stop signal arrives.
void sleep_until(double deadline_s) {
    timespec ts{};
    ts.tv_sec = static_cast<time_t>(deadline_s);
    ts.tv_nsec = static_cast<long>((deadline_s - static_cast<double>(ts.tv_sec)) * 1e9);
    while (!g_stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
    }
}

}  // namespace

int run_record(const std::vector<std::string>& args) {
    po::options_description desc("options");
    std::string out_path, interval_text = "1s", duration_text, root = "/sys", device, host;
    desc.add_options()("help,h", "show this help")(
        "out", po::value(&out_path), "recording to write (JSON lines); must not exist")(
        "interval", po::value(&interval_text), "time between passes (default 1s; 100ms to 1h)")(
        "duration", po::value(&duration_text),
        "stop after this long (default: until SIGINT/SIGTERM)")(
        "append", "add to an existing recording instead of refusing to overwrite it")(
        "sysfs-root", po::value(&root), "sysfs tree to read (default /sys)")(
        "device", po::value(&device), "only this RDMA device")(
        "host", po::value(&host), "host name to record (default: this host's name)");
    po::variables_map vm;
    if (auto exit = parse_options("record",
                                  "rocehealth record --out FILE [--interval 1s] [--duration D] "
                                  "[--sysfs-root DIR] [--device NAME]",
                                  "Record counters and facts as JSON lines for `rocehealth "
                                  "diagnose --replay FILE`.\nExit: 0 recorded, 2 could not run.",
                                  args, desc, vm))
        return *exit;
    if (out_path.empty()) {
        std::cerr << "rocehealth record: --out FILE is required\n";
        return kExitCannotRun;
    }
    double interval_s = 1, duration_s = 0;
    if (auto e = parse_duration_s("--interval", interval_text, 0.1, 3600, interval_s)) {
        std::cerr << "rocehealth record: " << *e << "\n";
        return kExitCannotRun;
    }
    if (vm.count("duration"))
        if (auto e =
                parse_duration_s("--duration", duration_text, 0.1, 366 * 86400.0, duration_s)) {
            std::cerr << "rocehealth record: " << *e << "\n";
            return kExitCannotRun;
        }
    if (!sysfs_root_usable("record", root)) return kExitCannotRun;
    const bool append = vm.count("append") > 0;
    std::error_code ec;
    if (!append && std::filesystem::exists(out_path, ec)) {
        std::cerr << "rocehealth record: " << out_path
                  << " exists; refusing to overwrite a recording (use --append or another name)\n";
        return kExitCannotRun;
    }

    if (append)
        if (auto s = check_appendable_recording(out_path); !s) {
            std::cerr << "rocehealth record: " << s.error().message()
                      << "; refusing to append samples to it\n";
            return kExitCannotRun;
        }

    HostSampler sampler(CollectOptions{SysfsRoot(root), device}, host);
    if (sampler.devices() == 0) {
        std::cerr << "rocehealth record: no RDMA device"
                  << (device.empty() ? "" : " named " + device) << " found under " << root
                  << "/class/infiniband\n";
        return kExitCannotRun;
    }
    std::ofstream out(out_path, append ? std::ios::app : std::ios::trunc);
    if (!out) {
        std::cerr << "rocehealth record: cannot open " << out_path
                  << " for writing: " << std::strerror(errno) << "\n";
        return kExitCannotRun;
    }
    install_stop_handlers();

    PassSchedule schedule(interval_s, duration_s, monotonic_now_s());
    std::size_t passes = 0, samples = 0;
    while (!g_stop) {
        std::vector<std::string> rediscovered;
        const auto batch = sampler.pass(rediscovered);
        for (const auto& why : rediscovered)
            std::cerr << "rocehealth record: rediscovered devices: " << why << "\n";
        for (const Sample& s : batch) write_sample(out, s);
        out.flush();
        if (!out) {
            std::cerr << "rocehealth record: writing " << out_path
                      << " failed (disk full?); passes written so far are complete\n";
            return kExitCannotRun;
        }
        ++passes;
        samples += batch.size();
        const double now = monotonic_now_s();
        if (schedule.done(now)) break;
        sleep_until(schedule.next_after(now));
    }
    std::cerr << "rocehealth record: " << passes << " passes, " << samples << " samples to "
              << out_path << " (" << sampler.rediscoveries() << " rediscoveries)\n";
    return kExitOk;
}

}  // namespace rh::cli

// rocehealth responder: serves probes and peer queries until SIGINT/SIGTERM.
#include <csignal>
#include <cstdio>
#include <iostream>

#include <boost/program_options.hpp>

#include "agent/commands.h"
#include "probes/responder.h"

namespace po = boost::program_options;

namespace rh::cli {

namespace {
std::atomic<bool> g_stop{false};  // the one global: set by the signal handler
static_assert(std::atomic<bool>::is_always_lock_free);
extern "C" void on_signal(int) { g_stop.store(true); }
}  // namespace

int run_responder(const std::vector<std::string>& args) {
    ResponderOptions o;
    int gid_index = -1;
    po::options_description desc("rocehealth responder [options]");
    desc.add_options()
        ("help,h", "this help")
        ("port", po::value(&o.port)->default_value(o.port), "TCP port")
        ("listen", po::value(&o.listen_addr)->default_value(o.listen_addr), "address to listen on")
        ("device", po::value(&o.device), "RDMA device (default: first with an ACTIVE Ethernet port)")
        ("gid-index", po::value(&gid_index), "GID index (default: RoCE v2, IPv4-mapped preferred)")
        ("max-sessions", po::value(&o.max_sessions)->default_value(o.max_sessions), "concurrent sessions")
        ("sysfs-root", po::value<std::string>(), "sysfs root (default /sys)");
    po::variables_map vm;
    try {
        po::store(po::command_line_parser(args).options(desc).run(), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        std::fprintf(stderr, "rocehealth responder: %s\n", e.what());
        return kExitCannotRun;
    }
    if (vm.count("help")) {
        std::cout << desc;
        return kExitOk;
    }
    if (gid_index >= 0) o.gid_index = static_cast<unsigned>(gid_index);
    if (vm.count("sysfs-root")) o.sysfs_root = vm["sysfs-root"].as<std::string>();
    if (o.max_sessions == 0) {
        std::fprintf(stderr, "rocehealth responder: --max-sessions must be >= 1\n");
        return kExitCannotRun;
    }

    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    std::signal(SIGPIPE, SIG_IGN);

    if (auto s = rh::run_responder(o, g_stop); !s) {
        std::fprintf(stderr, "rocehealth responder: %s\n", s.error().message().c_str());
        return kExitCannotRun;
    }
    return kExitOk;
}

}  // namespace rh::cli

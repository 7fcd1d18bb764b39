// rocehealth responder: serves probes and peer queries until SIGINT/SIGTERM.
#include <csignal>
#include <cstdio>
#include <iostream>

#include "agent/cli/commands.h"
#include "agent/cli/key_option.h"
#include "agent/cli/options.h"
#include "agent/cli/probe_args.h"
#include "agent/sampling/responder_sampler.h"
#include "probes/responder/responder.h"
#include "probes/wire/oob_protocol.h"

namespace rh::cli {

namespace {
std::atomic<bool> g_reload{false};  // set by SIGHUP: read the key files again
static_assert(std::atomic<bool>::is_always_lock_free);
extern "C" void on_hangup(int) {
    g_reload.store(true);
}

constexpr const char* kUsage =
    "rocehealth responder [--port 18520] [--listen ADDR] [--device NAME] [--gid-index N] "
    "[--max-sessions N] [--recv-depth N] [--allow-fault] [--key-file FILE]";

/// The options as given (text, checked by check_responder_args into `o`).
struct ResponderArgs {
    ResponderOptions o;
    std::string port = std::to_string(o.port), max_sessions = std::to_string(o.max_sessions),
                recv_depth = std::to_string(o.recv_depth), gid_index, sysfs_root;
};

po::options_description responder_options(ResponderArgs& a) {
    const std::string max_depth = std::to_string(oob::kMaxRecvDepth);
    po::options_description desc("options");
    desc.add_options()("help,h", "show this help")(
        "port", po::value(&a.port)->default_value(a.port), "TCP port of the handshake, 1..65535")(
        "listen", po::value(&a.o.listen_addr)->default_value(a.o.listen_addr),
        "address to listen on (\"::\" for any IPv6)")(
        "device", po::value(&a.o.device),
        "RDMA device (default: first with an ACTIVE Ethernet port)")(
        "gid-index", po::value(&a.gid_index),
        "GID index 0..255 (default: RoCE v2, IPv4-mapped preferred)")(
        "max-sessions", po::value(&a.max_sessions)->default_value(a.max_sessions),
        "sessions at once of hosts that proved the fabric key, and as many unauthenticated "
        "probe sessions (2 per address), 1..1024")(
        "recv-depth", po::value(&a.recv_depth)->default_value(a.recv_depth),
        ("receive WQEs kept posted per session that uses SEND (`probe --op send`), 0.." +
         max_depth +
         "; re-posted one per message, so 1 suffices for the ping-pong and the default is "
         "headroom. 0 posts none: every SEND meets receiver-not-ready (RNR NAKs), to reproduce "
         "that fault")
            .c_str())("sysfs-root", po::value(&a.sysfs_root),
                      "sysfs root; must be the live /sys (the default)")(
        "allow-fault", po::bool_switch(&a.o.allow_fault),
        "let `rocehealth accept` (stage fault) take this host's RDMA link down and up "
        "(needs CAP_NET_ADMIN); off by default");
    add_key_file_option(desc, a.o.key_file, true);
    return desc;
}

/// Fills `a.o` from the option texts: nullopt, or the first problem (for usage_error).
std::optional<std::string> check_responder_args(ResponderArgs& a, const po::variables_map& vm) {
    std::uint64_t v = 0;
    if (auto e = parse_number("port", a.port, 1, 65535, v)) return e;
    a.o.port = static_cast<std::uint16_t>(v);
    if (auto e = parse_number("max-sessions", a.max_sessions, 1, 1024, v)) return e;
    a.o.max_sessions = static_cast<unsigned>(v);
    if (auto e = parse_number("recv-depth", a.recv_depth, 0, oob::kMaxRecvDepth, v)) return e;
    a.o.recv_depth = static_cast<unsigned>(v);
    if (vm.count("gid-index")) {
        if (auto e = parse_number("gid-index", a.gid_index, 0, 255, v)) return e;
        a.o.gid_index = static_cast<unsigned>(v);
    }
    return std::nullopt;
}

/// SIGINT/SIGTERM stop (the returned flag), SIGHUP reloads the keys, SIGPIPE is ignored (a peer
/// that went away).
std::atomic<bool>& install_signal_handlers() {
    std::atomic<bool>& stop = stop_on_signals();
    struct sigaction sa {};
    sa.sa_handler = on_hangup;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGHUP, &sa, nullptr);
    std::signal(SIGPIPE, SIG_IGN);
    return stop;
}

}  // namespace

int run_responder(const std::vector<std::string>& args) {
    ResponderArgs a;
    const auto desc = responder_options(a);
    po::variables_map vm;
    if (auto exit = parse_options(
            "responder", kUsage,
            "Serve `rocehealth probe` and `check --peer` until SIGINT/SIGTERM. Each session gets\n"
            "its own QP and buffer. A new connection must send its first message within 5 s;\n"
            "between the phases of a session the responder waits up to 120 s. Control commands\n"
            "(incast, accept) need the fabric key (--key-file); without one only latency\n"
            "probes and hello are served. SIGHUP reads --key-file, --host-key-file and\n"
            "--known-hosts again, all or none (a bad file keeps the keys in use, logged).\n"
            "Exit: 0 stopped, 2 could not start.",
            args, desc, vm))
        return *exit;
    if (auto e = check_responder_args(a, vm)) return usage_error("responder", kUsage, *e);
    if (vm.count("sysfs-root"))
        if (auto e = live_sysfs_error("responder", a.sysfs_root)) {
            std::cerr << "rocehealth responder: " << *e << "\n";
            return kExitCannotRun;
        }
    ResponderOptions& o = a.o;
    if (auto exit = install_fabric_key("responder", o.key_file)) return *exit;
    o.host_key_file = host_key_file_option();  // read again with the fabric key on SIGHUP
    o.known_hosts_file = known_hosts_option();
    o.reload_key = &g_reload;
    o.sampler = host_pass_source(o.sysfs_root.string());  // counters for `rocehealth incast`
    o.inventory = host_inventory();  // facts for `rocehealth accept`'s inventory stage
    const std::atomic<bool>& stop = install_signal_handlers();
    if (auto s = rh::run_responder(o, stop); !s) {
        std::fprintf(stderr, "rocehealth responder: %s\n", s.error().message().c_str());
        return kExitCannotRun;
    }
    return kExitOk;
}

}  // namespace rh::cli

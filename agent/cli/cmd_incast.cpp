// rocehealth incast --receiver HOST --senders H1,H2,...: many-to-one traffic between hosts that
// run `rocehealth responder`, coordinated from here (probes/incast_coordinator.h); the result
// with per-sender goodput, fairness, integrity, the victim flow, and the rule engine over every
// participant's counters (agent/reports/incast_report.h).
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <sstream>

#include "agent/cli/commands.h"
#include "agent/cli/key_option.h"
#include "agent/cli/options.h"
#include "agent/cli/probe_args.h"
#include "agent/reports/incast_analysis.h"
#include "agent/reports/incast_report.h"
#include "core/duration_arg.h"
#include "probes/incast_coordinator.h"

namespace rh::cli {

namespace {

constexpr const char* kUsage =
    "rocehealth incast --receiver HOST[:PORT] --senders H1,H2,... [--size 64KiB] "
    "[--qps-per-sender N] [--queue-depth N] [--duration 10s] [--op write|send] [--json]";

int usage_error(const std::string& msg) {
    std::cerr << "rocehealth incast: " << msg << "\nusage: " << kUsage
              << "\n(rocehealth incast --help for details)\n";
    return kExitCannotRun;
}

std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream in(s);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty()) out.push_back(item);
    return out;
}

/// "\r  3.5/8.0 s  aggregate 1.234 Gb/s  errors 0  senders reporting 3  victim p99 812 us" on
/// stderr.
void live_line(const incast::Live& l) {
    char b[256];
    std::snprintf(b, sizeof b,
                  "\r  %4.1f/%.1f s  aggregate %.3f Gb/s  errors %llu  senders reporting %u",
                  l.elapsed_s, l.duration_s, l.aggregate_gbps,
                  static_cast<unsigned long long>(l.errors), l.running);
    std::string s = b;
    if (l.victim_p99_us) {
        std::snprintf(b, sizeof b, "  victim p99 %.0f us", *l.victim_p99_us);
        s += b;
    }
    std::fprintf(stderr, "%s   ", s.c_str());
    std::fflush(stderr);
}

}  // namespace

int run_incast(const std::vector<std::string>& args) {
    incast::Options o;
    std::string senders, size = "64k", qps = "1", qd = std::to_string(o.queue_depth),
                         duration = "10s", op = "write", interval = "1s", gid_index, rules_file;
    bool json = false, no_victim = false;
    po::options_description desc("options");
    desc.add_options()("help,h", "show this help")(
        "receiver", po::value(&o.receiver),
        "HOST[:PORT] of the receiver's `rocehealth responder` (default port 18520)")(
        "senders", po::value(&senders),
        "comma-separated HOST[:PORT] of the senders' responders; each must reach the receiver "
        "by the name given to --receiver")(
        "size", po::value(&size)->default_value(size),
        "message size, k = KiB, m = MiB: a multiple of 8 from 24 B to 16 MiB (each slot ends "
        "with a 16-byte trailer, sequence number and checksum, the receiver verifies)")(
        "qps-per-sender", po::value(&qps)->default_value(qps), "RC QPs per sender, 1..16")(
        "queue-depth", po::value(&qd)->default_value(qd),
        "messages outstanding per QP, 1..64 (the receiver keeps 2x posted, ring 3x)")(
        "duration", po::value(&duration)->default_value(duration),
        "traffic time, e.g. 10s, 500ms, 1m (0.1 s .. 1 h)")(
        "op", po::value(&op)->default_value(op),
        "write (RDMA WRITE with immediate into the receiver's ring) or send (SEND/RECV)")(
        "interval", po::value(&interval)->default_value(interval),
        "counter sampling interval on every participant")(
        "no-victim", po::bool_switch(&no_victim),
        "do not run the 64 B WRITE victim probe from this host to the receiver")(
        "device", po::value(&o.device), "RDMA device of this host for the victim probe")(
        "gid-index", po::value(&gid_index), "GID index of this host for the victim probe")(
        "rules", po::value(&rules_file),
        "rules file (default: $ROCEHEALTH_RULES, /etc/rocehealth/rules.json, the packaged one)")(
        "json", po::bool_switch(&json), "print JSON (no progress line)");
    std::string key_file;
    add_key_file_option(desc, key_file);
    po::variables_map vm;
    if (auto exit = parse_options(
            "incast", kUsage,
            "Many-to-one RDMA traffic: every sender streams to the receiver at one agreed start\n"
            "time, coordinated through the hosts' `rocehealth responder` (TCP 18520). Reports\n"
            "per-sender goodput, aggregate vs the receiver's link rate, Jain's fairness index,\n"
            "completion-time spread, bad slots, errors by completion status, a 64 B victim\n"
            "probe before vs during, and the rule engine's findings over every participant's\n"
            "counters (sampled before, during and after).\n"
            "Exit: 0 all senders ran clean, 1 a sender failed / errors / bad slots / findings,\n"
            "2 could not run (bad options, receiver unreachable, no sender started).",
            args, desc, vm))
        return *exit;
    if (o.receiver.empty()) return usage_error("missing --receiver HOST");
    o.senders = split(senders);
    if (o.senders.empty()) return usage_error("missing --senders H1,H2,...");
    std::vector<std::uint64_t> sizes;
    if (auto e = parse_sizes(size, sizes, "--size")) return usage_error(*e);
    if (sizes.size() != 1) return usage_error("--size: one size only");
    o.size_bytes = sizes[0];
    std::uint64_t v = 0;
    if (auto e = parse_number("qps-per-sender", qps, 1, stream::kMaxQps, v)) return usage_error(*e);
    o.qps = static_cast<unsigned>(v);
    if (auto e = parse_number("queue-depth", qd, 1, limits::kMaxQueueDepth, v))
        return usage_error(*e);
    o.queue_depth = static_cast<unsigned>(v);
    double secs = 0;
    if (auto e = parse_duration_s("--duration", duration, 0.1, 3600, secs)) return usage_error(*e);
    o.duration_ms = static_cast<std::uint32_t>(secs * 1000);
    if (auto e = parse_duration_s("--interval", interval, 0.1, 60, secs)) return usage_error(*e);
    o.sample_interval_ms = static_cast<std::uint32_t>(secs * 1000);
    const auto parsed_op = stream::parse_op(op);
    if (!parsed_op) return usage_error("--op: '" + op + "' (expected write or send)");
    o.op = *parsed_op;
    o.victim = !no_victim;
    if (vm.count("gid-index")) {
        if (auto e = parse_number("gid-index", gid_index, 0, 255, v)) return usage_error(*e);
        o.gid_index = static_cast<unsigned>(v);
    }
    if (auto c = incast::check_options(o); !c) return usage_error(c.error().detail);
    if (auto exit = install_fabric_key("incast", key_file)) return *exit;
    if (rules_file.empty()) rules_file = default_rules_path();
    const auto rules = load_rules_file(rules_file);
    if (!rules) {
        std::cerr << "rocehealth incast: " << rules.error().message() << "\n";
        return kExitCannotRun;
    }

    const bool tty = !json && ::isatty(STDERR_FILENO);
    auto run = incast::run_incast(o, tty ? live_line : std::function<void(const incast::Live&)>());
    if (tty) std::fprintf(stderr, "\n");
    if (!run) {
        std::cerr << "rocehealth incast: " << run.error().message() << "\n";
        if (json)
            std::cout << nlohmann::json{{"ok", false}, {"error", run.error().message()}}.dump(2)
                      << "\n";
        return kExitCannotRun;
    }
    const auto doc = incast_json(*run, analyse_incast(*run, *rules, rules_file));
    if (json)
        std::cout << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    else
        render_incast_text(std::cout, doc);
    return incast_exit_code(doc);
}

}  // namespace rh::cli

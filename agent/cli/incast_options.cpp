#include "agent/cli/incast_options.h"

#include <sstream>
#include <vector>

#include "agent/cli/key_option.h"
#include "agent/cli/probe_args.h"
#include "core/duration_arg.h"

namespace rh::cli {

const char* const kIncastUsage =
    "rocehealth incast --receiver HOST[:PORT] --senders H1,H2,... [--size 64KiB] "
    "[--qps-per-sender N] [--queue-depth N] [--duration 10s] [--op write|send] [--json]";
const char* const kIncastAbout =
    "Many-to-one RDMA traffic: every sender streams to the receiver at one agreed start\n"
    "time, coordinated through the hosts' `rocehealth responder` (TCP 18520). Reports\n"
    "per-sender goodput, aggregate vs the receiver's link rate, Jain's fairness index,\n"
    "completion-time spread, bad slots, errors by completion status, a 64 B victim\n"
    "probe before vs during, and the rule engine's findings over every participant's\n"
    "counters (sampled before, during and after).\n"
    "Exit: 0 all senders ran clean, 1 a sender failed / errors / bad slots / findings,\n"
    "2 could not run (bad options, receiver unreachable, no sender started).";

namespace {

std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream in(s);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty()) out.push_back(item);
    return out;
}

}  // namespace

po::options_description incast_options(IncastArgs& a) {
    po::options_description desc("options");
    desc.add_options()("help,h", "show this help")(
        "receiver", po::value(&a.o.receiver),
        "HOST[:PORT] of the receiver's `rocehealth responder` (default port 18520)")(
        "senders", po::value(&a.senders),
        "comma-separated HOST[:PORT] of the senders' responders; each must reach the receiver "
        "by the name given to --receiver")(
        "size", po::value(&a.size)->default_value(a.size),
        "message size, k = KiB, m = MiB: a multiple of 8 from 24 B to 16 MiB (each slot ends "
        "with a 16-byte trailer, sequence number and checksum, the receiver verifies)")(
        "qps-per-sender", po::value(&a.qps)->default_value(a.qps), "RC QPs per sender, 1..16")(
        "queue-depth", po::value(&a.qd)->default_value(a.qd),
        "messages outstanding per QP, 1..64 (the receiver keeps 2x posted, ring 3x)")(
        "duration", po::value(&a.duration)->default_value(a.duration),
        "traffic time, e.g. 10s, 500ms, 1m (0.1 s .. 1 h)")(
        "op", po::value(&a.op)->default_value(a.op),
        "write (RDMA WRITE with immediate into the receiver's ring) or send (SEND/RECV)")(
        "interval", po::value(&a.interval)->default_value(a.interval),
        "counter sampling interval on every participant")(
        "no-victim", po::bool_switch(&a.no_victim),
        "do not run the 64 B WRITE victim probe from this host to the receiver")(
        "device", po::value(&a.o.device), "RDMA device of this host for the victim probe")(
        "gid-index", po::value(&a.gid_index), "GID index of this host for the victim probe")(
        "rules", po::value(&a.rules_file),
        "rules file (default: $ROCEHEALTH_RULES, /etc/rocehealth/rules.json, the packaged one)")(
        "json", po::bool_switch(&a.json), "print JSON (no progress line)");
    add_key_file_option(desc, a.key_file);
    return desc;
}

std::optional<std::string> check_incast_args(IncastArgs& a, const po::variables_map& vm) {
    incast::Options& o = a.o;
    if (o.receiver.empty()) return "missing --receiver HOST";
    o.senders = split(a.senders);
    if (o.senders.empty()) return "missing --senders H1,H2,...";
    std::vector<std::uint64_t> sizes;
    if (auto e = parse_sizes(a.size, sizes, "--size")) return e;
    if (sizes.size() != 1) return "--size: one size only";
    o.size_bytes = sizes[0];
    std::uint64_t v = 0;
    if (auto e = parse_number("qps-per-sender", a.qps, 1, stream::kMaxQps, v)) return e;
    o.qps = static_cast<unsigned>(v);
    if (auto e = parse_number("queue-depth", a.qd, 1, limits::kMaxQueueDepth, v)) return e;
    o.queue_depth = static_cast<unsigned>(v);
    double secs = 0;
    if (auto e = parse_duration_s("--duration", a.duration, 0.1, 3600, secs)) return e;
    o.duration_ms = static_cast<std::uint32_t>(secs * 1000);
    if (auto e = parse_duration_s("--interval", a.interval, 0.1, 60, secs)) return e;
    o.sample_interval_ms = static_cast<std::uint32_t>(secs * 1000);
    const auto parsed_op = stream::parse_op(a.op);
    if (!parsed_op) return "--op: '" + a.op + "' (expected write or send)";
    o.op = *parsed_op;
    o.victim = !a.no_victim;
    if (vm.count("gid-index")) {
        if (auto e = parse_number("gid-index", a.gid_index, 0, 255, v)) return e;
        o.gid_index = static_cast<unsigned>(v);
    }
    if (auto c = incast::check_options(o); !c) return c.error().detail;
    return std::nullopt;
}

}  // namespace rh::cli

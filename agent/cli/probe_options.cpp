#include "agent/cli/probe_options.h"

#include "agent/cli/key_option.h"
#include "agent/cli/probe_args.h"
#include "probes/wire/oob_protocol.h"

namespace rh::cli {

const char* const kProbeUsage =
    "rocehealth probe PEER[:PORT] [--op write,read,send] [--sizes 64,4k,64k,1m] [--iterations N] "
    "[--queue-depth N] [--rnr-retry 0..7] [--timeout-ms N] [--json] [--key-file FILE]";

po::options_description probe_options(ProbeArgs& a) {
    const std::string max_qd = std::to_string(limits::kMaxQueueDepth);
    const std::string max_timeout = std::to_string(oob::kMaxTimeoutMs);
    po::options_description desc("options");
    desc.add_options()("help,h", "show this help")(
        "peer", po::value(&a.peers),
        "HOST[:PORT] of a host running `rocehealth responder` (default "
        "port 18520); also accepted as the positional argument")(
        "op", po::value(&a.ops)->default_value(a.ops),
        "operations, comma-separated, run in that order: write, read, send (SEND/RECV; the "
        "responder must keep receives posted)")(
        "sizes", po::value(&a.sizes)->default_value(a.sizes),
        "message sizes, comma-separated, k = KiB, m = MiB; multiples of 8 from 24 B to 16 MiB "
        "(each message slot ends with an 8-byte checksum and sequence number)")(
        "iterations", po::value(&a.iterations)->default_value(a.iterations),
        "timed messages per op and size, 1..1000000 (p99.9 is shown from 1000)")(
        "warmup", po::value(&a.warmup)->default_value(a.warmup),
        "untimed messages before them, 0..100000")(
        "queue-depth", po::value(&a.queue_depth)->default_value(a.queue_depth),
        ("outstanding READs, 1.." + max_qd + " (the WRITE and SEND ping-pongs are always 1)")
            .c_str())(
        "rnr-retry", po::value(&a.rnr_retry)->default_value(a.rnr_retry),
        "0..7: retries of a SEND that meets receiver-not-ready (an RNR NAK; the responder's "
        "QP sets the wait, 0.64 ms); 7 = retry forever (IB spec, perftest default); after "
        "the last, the phase fails with IBV_WC_RNR_RETRY_EXC_ERR")(
        "device", po::value(&a.o.device),
        "RDMA device (default: first with an ACTIVE Ethernet port)")(
        "gid-index", po::value(&a.gid_index),
        "GID index 0..255 (default: RoCE v2, IPv4-mapped preferred)")(
        "timeout-ms", po::value(&a.timeout)->default_value(a.timeout),
        ("deadline of each wait (connect, each message), 1.." + max_timeout).c_str())(
        "json", po::bool_switch(&a.json), "print JSON")(
        "record", po::value(&a.record_path),
        "append the results as samples (probe_latency_us, probe_errors) to this recording, "
        "for `rocehealth diagnose --replay` beside the host's counter recording")(
        "host", po::value(&a.host), "host name for --record (default: this host's name)")(
        "sysfs-root", po::value(&a.sysfs_root), "sysfs root; must be the live /sys (the default)");
    // Read only for a probe past a responder's unauthenticated budget (4 MiB of buffers, READ
    // phases of 30 min), or when given.
    add_key_file_option(desc, a.key_file);
    return desc;
}

/// Fills `a.o` from the option texts; the first problem as "--OPTION: why", else nullopt.
std::optional<std::string> check_probe_args(ProbeArgs& a, const po::variables_map& vm) {
    if (a.peers.empty()) return "missing PEER[:PORT]";
    if (a.peers.size() > 1) return "unexpected argument '" + a.peers[1] + "' (one PEER only)";
    if (auto e = check_host_arg(vm, a.host)) return e;
    ProbeOptions& o = a.o;
    o.peer = a.peers[0];
    std::uint64_t v = 0;
    if (auto e = parse_ops(a.ops, o.ops)) return e;
    if (auto e = parse_sizes(a.sizes, o.sizes)) return e;
    if (auto e = parse_number("iterations", a.iterations, 1, 1'000'000, v)) return e;
    o.iterations = static_cast<unsigned>(v);
    if (auto e = parse_number("warmup", a.warmup, 0, 100'000, v)) return e;
    o.warmup = static_cast<unsigned>(v);
    if (auto e = parse_number("queue-depth", a.queue_depth, 1, limits::kMaxQueueDepth, v)) return e;
    o.queue_depth = static_cast<unsigned>(v);
    if (auto e = parse_number("timeout-ms", a.timeout, 1, oob::kMaxTimeoutMs, v)) return e;
    o.timeout_ms = static_cast<int>(v);
    if (auto e = parse_number("rnr-retry", a.rnr_retry, 0, limits::kMaxRnrRetry, v)) return e;
    o.rnr_retry = static_cast<unsigned>(v);
    if (vm.count("gid-index")) {
        if (auto e = parse_number("gid-index", a.gid_index, 0, 255, v)) return e;
        o.gid_index = static_cast<unsigned>(v);
    }
    return std::nullopt;
}

}  // namespace rh::cli

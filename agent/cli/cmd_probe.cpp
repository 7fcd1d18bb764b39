// rocehealth probe PEER[:PORT]: RDMA WRITE/READ and SEND/RECV latency to a peer's
// `rocehealth responder`.

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "agent/cli/commands.h"
#include "agent/cli/options.h"
#include "agent/cli/probe_args.h"
#include "agent/sampling/host_sampler.h"
#include "core/clock.h"
#include "core/hostname.h"
#include "core/sample_json.h"
#include "probes/oob_protocol.h"
#include "probes/probe.h"
#include "probes/probe_samples.h"
#include "probes/tcp.h"

namespace rh::cli {

namespace {

constexpr const char* kUsage =
    "rocehealth probe PEER[:PORT] [--op write,read,send] [--sizes 64,4k,64k,1m] [--iterations N] "
    "[--queue-depth N] [--rnr-retry 0..7] [--timeout-ms N] [--json]";

std::string fmt(const char* f, double v) {
    char b[64];
    std::snprintf(b, sizeof b, f, v);
    return b;
}

std::string rate(double v) {
    return fmt(v < 10 ? "%.1f" : "%.0f", v);
}

void print_text(const ProbeReport& r) {
    std::printf("peer %s: %s %s GID[%u] %s\n", r.peer.c_str(), r.remote_hostname.c_str(),
                r.remote_device.c_str(), r.remote_gid_index, r.remote_gid.c_str());
    std::printf("local: %s port %u GID[%u] %s (%s)\n", r.device.c_str(), r.port, r.gid_index,
                r.gid.c_str(), r.gid_type.c_str());
    std::printf(
        "active_mtu local %u B, remote %u B -> path_mtu %u B; QP timeout %u, retry_cnt %u, "
        "rnr_retry %u%s\n",
        r.local_active_mtu_bytes, r.remote_active_mtu_bytes, r.path_mtu_bytes, r.qp_timeout,
        r.qp_retry_cnt, r.qp_rnr_retry, r.qp_rnr_retry == 7 ? " (forever)" : "");
    if (r.remote_recv_depth)
        std::printf(
            "responder keeps %u receives posted for SEND%s\n", *r.remote_recv_depth,
            *r.remote_recv_depth == 0 ? " (--recv-depth 0): SENDs meet receiver-not-ready" : "");
    bool has_write = false, has_read = false, has_send = false, p999_hidden = false;
    for (const auto& s : r.results) {
        has_write |= s.op == "write";
        has_read |= s.op == "read";
        has_send |= s.op == "send";
        p999_hidden |= s.measured() && !s.has_p999();
    }
    std::string kinds;
    auto add = [&kinds](const std::string& k) { kinds += (kinds.empty() ? "" : "; ") + k; };
    if (has_write) add("write: half round trip of a WRITE ping-pong (queue depth 1)");
    if (has_read)
        add("read: post to completion (queue depth " + std::to_string(r.queue_depth) + ")");
    if (has_send) add("send: half round trip of a SEND/RECV ping-pong (queue depth 1)");
    std::printf("%s\n\n", kinds.c_str());
    std::printf("%-6s %9s %7s %12s %12s %12s %12s %12s %11s %9s\n", "op", "bytes", "iters",
                "min_us", "p50_us", "p99_us", "p99.9_us", "max_us", "msg/s", "cksum_err");
    for (const auto& s : r.results) {
        const auto bytes = static_cast<unsigned long long>(s.size_bytes);
        if (!s.skipped.empty()) {
            std::printf("%-6s %9llu skipped: %s\n", s.op.c_str(), bytes, s.skipped.c_str());
            continue;
        }
        const bool m = s.measured();
        auto us = [m](double v) { return m ? fmt("%.2f", v) : std::string("-"); };
        std::printf("%-6s %9llu %7s %12s %12s %12s %12s %12s %11s %9llu%s\n", s.op.c_str(), bytes,
                    m ? std::to_string(s.iterations).c_str() : "-", us(s.min_us).c_str(),
                    us(s.p50_us).c_str(), us(s.p99_us).c_str(),
                    m && s.has_p999() ? us(s.p999_us).c_str() : "-", us(s.max_us).c_str(),
                    m ? rate(s.msg_rate_per_s).c_str() : "-",
                    static_cast<unsigned long long>(s.checksum_errors),
                    m ? "" : ("  failed: " + s.error).c_str());
    }
    if (p999_hidden)
        std::printf("(p99.9 needs >= %llu iterations; with fewer it would be the maximum)\n",
                    static_cast<unsigned long long>(LatencyStats::kMinIterationsForP999));
    for (const auto& e : r.errors) std::printf("error: %s\n", e.c_str());
    std::size_t skipped = 0;
    for (const auto& s : r.results) skipped += !s.skipped.empty();
    const auto failed = r.errors.size();
    std::printf("\n%s: %llu checksum errors, %zu failed %s", r.ok() ? "OK" : "FAILED",
                static_cast<unsigned long long>(r.checksum_errors()), failed,
                failed == 1 ? "phase" : "phases");
    if (skipped) std::printf(", %zu skipped %s", skipped, skipped == 1 ? "phase" : "phases");
    std::printf("\n");
}

/// Prints "rocehealth probe: MSG" and the usage line; returns the exit code.
int usage_error(const std::string& msg) {
    std::cerr << "rocehealth probe: " << msg << "\nusage: " << kUsage
              << "\n(rocehealth probe --help for details)\n";
    return kExitCannotRun;
}

}  // namespace

int run_probe(const std::vector<std::string>& args) {
    ProbeOptions o;
    std::string ops = "write,read", sizes = "64,4096,65536,1048576";
    std::string iterations = std::to_string(o.iterations), warmup = std::to_string(o.warmup),
                queue_depth = std::to_string(o.queue_depth), timeout = std::to_string(o.timeout_ms),
                rnr_retry = std::to_string(o.rnr_retry), gid_index, sysfs_root, record_path, host;
    std::vector<std::string> peers;
    bool json = false;
    const std::string max_qd = std::to_string(limits::kMaxQueueDepth);
    const std::string max_timeout = std::to_string(oob::kMaxTimeoutMs);
    po::options_description desc("options");
    desc.add_options()("help,h", "show this help")(
        "peer", po::value(&peers),
        "HOST[:PORT] of a host running `rocehealth responder` (default "
        "port 18520); also accepted as the positional argument")(
        "op", po::value(&ops)->default_value(ops),
        "operations, comma-separated, run in that order: write, read, send (SEND/RECV; the "
        "responder must keep receives posted)")(
        "sizes", po::value(&sizes)->default_value(sizes),
        "message sizes, comma-separated, k = KiB, m = MiB; multiples of 8 from 24 B to 16 MiB "
        "(each message slot ends with an 8-byte checksum and sequence number)")(
        "iterations", po::value(&iterations)->default_value(iterations),
        "timed messages per op and size, 1..1000000 (p99.9 is shown from 1000)")(
        "warmup", po::value(&warmup)->default_value(warmup),
        "untimed messages before them, 0..100000")(
        "queue-depth", po::value(&queue_depth)->default_value(queue_depth),
        ("outstanding READs, 1.." + max_qd + " (the WRITE and SEND ping-pongs are always 1)")
            .c_str())(
        "rnr-retry", po::value(&rnr_retry)->default_value(rnr_retry),
        "0..7: retries of a SEND that meets receiver-not-ready (an RNR NAK; the responder's "
        "QP sets the wait, 0.64 ms); 7 = retry forever (IB spec, perftest default); after "
        "the last, the phase fails with IBV_WC_RNR_RETRY_EXC_ERR")(
        "device", po::value(&o.device),
        "RDMA device (default: first with an ACTIVE Ethernet port)")(
        "gid-index", po::value(&gid_index),
        "GID index 0..255 (default: RoCE v2, IPv4-mapped preferred)")(
        "timeout-ms", po::value(&timeout)->default_value(timeout),
        ("deadline of each wait (connect, each message), 1.." + max_timeout).c_str())(
        "json", po::bool_switch(&json), "print JSON")(
        "record", po::value(&record_path),
        "append the results as samples (probe_latency_us, probe_errors) to this recording, "
        "for `rocehealth diagnose --replay` beside the host's counter recording")(
        "host", po::value(&host), "host name for --record (default: this host's name)")(
        "sysfs-root", po::value(&sysfs_root), "sysfs root; must be the live /sys (the default)");
    po::positional_options_description pos;
    pos.add("peer", -1);
    po::variables_map vm;
    if (auto exit = parse_options(
            "probe", kUsage,
            "RDMA WRITE, READ and SEND/RECV latency over one RC QP to a peer running `rocehealth\n"
            "responder`. WRITE and SEND latency are half the round trip of a ping-pong (as\n"
            "ib_write_lat, ib_send_lat); READ latency is post to completion on this host (as\n"
            "ib_read_lat). A phase that fails stops the probe: its figures are not shown and the\n"
            "phases after it are listed as skipped.\n"
            "Exit: 0 ok, 1 measured with errors (checksum, failed phase), 2 could not run.",
            args, desc, vm, &pos))
        return *exit;

    if (peers.empty()) return usage_error("missing PEER[:PORT]");
    if (peers.size() > 1)
        return usage_error("unexpected argument '" + peers[1] + "' (one PEER only)");
    o.peer = peers[0];
    std::uint64_t v = 0;
    if (auto e = parse_ops(ops, o.ops)) return usage_error(*e);
    if (auto e = parse_sizes(sizes, o.sizes)) return usage_error(*e);
    if (auto e = parse_number("iterations", iterations, 1, 1'000'000, v)) return usage_error(*e);
    o.iterations = static_cast<unsigned>(v);
    if (auto e = parse_number("warmup", warmup, 0, 100'000, v)) return usage_error(*e);
    o.warmup = static_cast<unsigned>(v);
    if (auto e = parse_number("queue-depth", queue_depth, 1, limits::kMaxQueueDepth, v))
        return usage_error(*e);
    o.queue_depth = static_cast<unsigned>(v);
    if (auto e = parse_number("timeout-ms", timeout, 1, oob::kMaxTimeoutMs, v))
        return usage_error(*e);
    o.timeout_ms = static_cast<int>(v);
    if (auto e = parse_number("rnr-retry", rnr_retry, 0, limits::kMaxRnrRetry, v))
        return usage_error(*e);
    o.rnr_retry = static_cast<unsigned>(v);
    if (vm.count("gid-index")) {
        if (auto e = parse_number("gid-index", gid_index, 0, 255, v)) return usage_error(*e);
        o.gid_index = static_cast<unsigned>(v);
    }
    if (vm.count("sysfs-root")) {
        if (auto e = live_sysfs_error("probe", sysfs_root)) {
            std::cerr << "rocehealth probe: " << *e << "\n";
            return kExitCannotRun;
        }
    }

    std::ofstream record;
    if (!record_path.empty()) {
        record.open(record_path, std::ios::app);
        if (!record) {
            std::cerr << "rocehealth probe: cannot open " << record_path << " for appending\n";
            return kExitCannotRun;
        }
        if (host.empty()) host = host_name();
    }
    ProbeRunTimes when{monotonic_now_s(), 0, wall_now_ms(), 0};
    auto r = rh::run_probe(o);
    when.end_t_s = monotonic_now_s();
    when.end_wall_ms = wall_now_ms();
    if (r && record.is_open()) {
        const auto hp = tcp::parse_host_port(o.peer, oob::kDefaultPort);
        const std::string peer_host = hp ? hp->host : o.peer;
        for (const Sample& s : samples_from_probe(*r, host, peer_host, when))
            write_sample(record, s);
        record.flush();
        if (!record) std::cerr << "rocehealth probe: writing " << record_path << " failed\n";
    }
    if (!r) {
        std::fprintf(stderr, "rocehealth probe: %s\n", r.error().message().c_str());
        if (json)
            std::cout << nlohmann::json{{"ok", false}, {"error", r.error().message()}}.dump(2)
                      << "\n";
        return kExitCannotRun;
    }
    if (json)
        std::cout << to_json(*r).dump(2) << "\n";
    else
        print_text(*r);
    for (const auto& e : r->errors) std::fprintf(stderr, "rocehealth probe: %s\n", e.c_str());
    return r->ok() ? kExitOk : kExitFindings;
}

}  // namespace rh::cli

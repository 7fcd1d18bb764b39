// rocehealth probe PEER[:PORT]: RDMA WRITE/READ latency to a peer's `rocehealth responder`.
#include <cstdio>
#include <iostream>
#include <sstream>

#include <boost/program_options.hpp>

#include "agent/commands.h"
#include "probes/probe.h"

namespace po = boost::program_options;

namespace rh::cli {

namespace {

/// "64,4k,64K,1m" -> bytes (k = KiB, m = MiB).
bool parse_sizes(const std::string& text, std::vector<std::uint64_t>& out, std::string& err) {
    out.clear();
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ',')) {
        if (item.empty()) { err = "empty size in '" + text + "'"; return false; }
        std::uint64_t mult = 1;
        const char last = item.back();
        if (last == 'k' || last == 'K') mult = 1024;
        if (last == 'm' || last == 'M') mult = 1024 * 1024;
        if (mult != 1) item.pop_back();
        if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos || item.size() > 9) {
            err = "bad size '" + item + "'";
            return false;
        }
        out.push_back(std::stoull(item) * mult);
    }
    if (out.empty()) { err = "no sizes"; return false; }
    return true;
}

bool parse_ops(const std::string& text, std::vector<ProbeOp>& out, std::string& err) {
    out.clear();
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ',')) {
        if (item == "write") out.push_back(ProbeOp::write);
        else if (item == "read") out.push_back(ProbeOp::read);
        else { err = "unknown op '" + item + "' (write, read)"; return false; }
    }
    if (out.empty()) { err = "no op"; return false; }
    return true;
}

std::string fmt(const char* f, double v) {
    char b[64];
    std::snprintf(b, sizeof b, f, v);
    return b;
}

void print_text(const ProbeReport& r) {
    std::printf("peer %s: %s %s GID[%u] %s\n", r.peer.c_str(), r.remote_hostname.c_str(),
                r.remote_device.c_str(), r.remote_gid_index, r.remote_gid.c_str());
    std::printf("local: %s port %u GID[%u] %s (%s)\n", r.device.c_str(), r.port, r.gid_index,
                r.gid.c_str(), r.gid_type.c_str());
    std::printf("active_mtu local %u B, remote %u B -> path_mtu %u B; QP timeout %u, retry_cnt %u\n",
                r.local_active_mtu_bytes, r.remote_active_mtu_bytes, r.path_mtu_bytes, r.qp_timeout,
                r.qp_retry_cnt);
    std::printf("write: half round trip of a WRITE ping-pong (queue depth 1); "
                "read: post to completion (queue depth %u)\n\n", r.queue_depth);
    std::printf("%-6s %9s %6s %10s %10s %10s %10s %10s %11s %8s\n", "op", "bytes", "iters", "min_us",
                "p50_us", "p99_us", "p99.9_us", "max_us", "msg/s", "cksum_err");
    for (const auto& s : r.results) {
        std::printf("%-6s %9llu %6llu %10s %10s %10s %10s %10s %11s %8llu\n", s.op.c_str(),
                    static_cast<unsigned long long>(s.size_bytes),
                    static_cast<unsigned long long>(s.iterations), fmt("%.2f", s.min_us).c_str(),
                    fmt("%.2f", s.p50_us).c_str(), fmt("%.2f", s.p99_us).c_str(),
                    fmt("%.2f", s.p999_us).c_str(), fmt("%.2f", s.max_us).c_str(),
                    fmt("%.0f", s.msg_rate_per_s).c_str(),
                    static_cast<unsigned long long>(s.checksum_errors));
    }
    for (const auto& e : r.errors) std::printf("error: %s\n", e.c_str());
    std::printf("\n%s: %llu checksum errors, %zu failed phases\n", r.ok() ? "OK" : "FAILED",
                static_cast<unsigned long long>(r.checksum_errors()), r.errors.size());
}

}  // namespace

int run_probe(const std::vector<std::string>& args) {
    ProbeOptions o;
    std::string ops = "write,read", sizes = "64,4096,65536,1048576";
    int gid_index = -1;
    bool json = false;
    po::options_description desc("rocehealth probe PEER[:PORT] [options]");
    desc.add_options()
        ("help,h", "this help")
        ("op", po::value(&ops)->default_value(ops), "operations: write,read")
        ("sizes", po::value(&sizes)->default_value(sizes), "message sizes in bytes (k/m suffixes: KiB/MiB)")
        ("iterations", po::value(&o.iterations)->default_value(o.iterations), "timed messages per op and size")
        ("warmup", po::value(&o.warmup)->default_value(o.warmup), "untimed messages before them")
        ("queue-depth", po::value(&o.queue_depth)->default_value(o.queue_depth), "outstanding READs (WRITE ping-pong is always 1)")
        ("device", po::value(&o.device), "RDMA device (default: first with an ACTIVE Ethernet port)")
        ("gid-index", po::value(&gid_index), "GID index (default: RoCE v2, IPv4-mapped preferred)")
        ("timeout-ms", po::value(&o.timeout_ms)->default_value(o.timeout_ms), "deadline of each wait")
        ("json", po::bool_switch(&json), "print JSON")
        ("sysfs-root", po::value<std::string>(), "sysfs root (default /sys)");
    po::options_description hidden;
    hidden.add_options()("peer", po::value(&o.peer));
    po::options_description all;
    all.add(desc).add(hidden);
    po::positional_options_description pos;
    pos.add("peer", 1);
    po::variables_map vm;
    try {
        po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        std::fprintf(stderr, "rocehealth probe: %s\n", e.what());
        return kExitCannotRun;
    }
    if (vm.count("help")) {
        std::cout << desc << "\nWRITE latency is half the round trip of a ping-pong (as ib_write_lat);\n"
                     "READ latency is post to completion on this host (as ib_read_lat).\n"
                     "Exit: 0 ok, 1 measured with errors (checksum, error completions), 2 could not run.\n";
        return kExitOk;
    }
    std::string err;
    if (o.peer.empty()) err = "missing PEER[:PORT]";
    else if (!parse_ops(ops, o.ops, err)) {}
    else if (!parse_sizes(sizes, o.sizes, err)) {}
    if (!err.empty()) {
        std::fprintf(stderr, "rocehealth probe: %s\n", err.c_str());
        return kExitCannotRun;
    }
    if (gid_index >= 0) o.gid_index = static_cast<unsigned>(gid_index);
    if (vm.count("sysfs-root")) o.sysfs_root = vm["sysfs-root"].as<std::string>();

    auto r = rh::run_probe(o);
    if (!r) {
        std::fprintf(stderr, "rocehealth probe: %s\n", r.error().message().c_str());
        if (json) std::cout << nlohmann::json{{"ok", false}, {"error", r.error().message()}}.dump(2) << "\n";
        return kExitCannotRun;
    }
    if (json) std::cout << to_json(*r).dump(2) << "\n";
    else print_text(*r);
    for (const auto& e : r->errors) std::fprintf(stderr, "rocehealth probe: %s\n", e.c_str());
    return r->ok() ? kExitOk : kExitFindings;
}

}  // namespace rh::cli

#include "agent/cli/mesh_options.h"

#include <sstream>

#include "agent/cli/probe_args.h"
#include "core/duration_arg.h"

namespace rh::cli {

const char* const kMeshUsage =
    "rocehealth mesh --peers H1,H2,... [--op write] [--sizes 64] [--iterations 20] "
    "[--interval 1s] [--jitter 0.1] [--duration 60s] [--backoff-max 60s] [--out FILE] [--host "
    "NAME] [--json]";

po::options_description mesh_options(MeshArgs& a) {
    po::options_description desc("options");
    desc.add_options()("help,h", "show this help")(
        "peers", po::value(&a.peers),
        "comma-separated HOST[:PORT] of peers' `rocehealth responder`")(
        "op", po::value(&a.ops)->default_value(a.ops), "operations: write, read, send")(
        "sizes", po::value(&a.sizes)->default_value(a.sizes), "message sizes (k = KiB, m = MiB)")(
        "iterations", po::value(&a.iterations)->default_value(a.iterations),
        "timed messages per op and size per round, 1..100000")(
        "interval", po::value(&a.interval)->default_value(a.interval), "time between rounds")(
        "jitter", po::value(&a.jitter)->default_value(a.jitter),
        "each round starts up to +-jitter x interval off the grid, 0..0.5")(
        "duration", po::value(&a.duration)->default_value(a.duration), "how long to run")(
        "backoff-max", po::value(&a.backoff_max)->default_value(a.backoff_max),
        "after an error a peer is retried in 1 s, doubling up to this")(
        "timeout-ms", po::value(&a.timeout)->default_value(a.timeout), "deadline of each wait")(
        "out", po::value(&a.out_path), "append the samples to this recording (JSON lines)")(
        "host", po::value(&a.host), "host name in the samples (default: this host's name)")(
        "device", po::value(&a.s.device), "RDMA device (default: first with an ACTIVE port)")(
        "json", po::bool_switch(&a.json), "print the summary as JSON");
    return desc;
}

std::optional<std::string> check_mesh_args(MeshArgs& a) {
    MeshSchedule& s = a.s;
    std::stringstream in(a.peers);
    for (std::string p; std::getline(in, p, ',');)
        if (!p.empty()) s.peers.push_back(p);
    if (s.peers.empty()) return "missing --peers";
    if (auto e = parse_ops(a.ops, s.ops)) return e;
    if (auto e = parse_sizes(a.sizes, s.sizes)) return e;
    std::uint64_t v = 0;
    if (auto e = parse_number("iterations", a.iterations, 1, 100000, v)) return e;
    s.iterations = static_cast<unsigned>(v);
    if (auto e = parse_number("timeout-ms", a.timeout, 1, 3'600'000, v)) return e;
    s.timeout_ms = static_cast<int>(v);
    if (auto e = parse_duration_s("--interval", a.interval, 0.1, 3600, s.interval_s)) return e;
    s.jitter = a.jitter;
    if (auto e = parse_duration_s("--backoff-max", a.backoff_max, 1, 3600, s.backoff_max_s))
        return e;
    if (auto e = parse_duration_s("--duration", a.duration, 0.1, 7 * 86400, a.duration_s)) return e;
    if (auto c = check_schedule(s); !c) return c.error().detail;
    return std::nullopt;
}

}  // namespace rh::cli

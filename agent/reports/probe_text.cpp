#include "agent/reports/probe_text.h"

#include <cstdio>
#include <string>

namespace rh {

namespace {

std::string fmt(const char* f, double v) {
    char b[64];
    std::snprintf(b, sizeof b, f, v);
    return b;
}

std::string rate(double v) {
    return fmt(v < 10 ? "%.1f" : "%.0f", v);
}

}  // namespace

void print_probe_text(const ProbeReport& r) {
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

}  // namespace rh

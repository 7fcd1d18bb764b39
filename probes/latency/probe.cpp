#include "probes/latency/probe.h"

#include "probes/latency/probe_session.h"

namespace rh {

const char* to_string(ProbeOp op) {
    switch (op) {
        case ProbeOp::write:
            return "write";
        case ProbeOp::read:
            return "read";
        case ProbeOp::send:
            return "send";
    }
    return "?";
}

std::uint64_t ProbeReport::checksum_errors() const {
    std::uint64_t n = 0;
    for (const auto& r : results) n += r.checksum_errors;
    return n;
}

Result<ProbeReport> run_probe(const ProbeOptions& o) {
    auto session = ProbeSession::open(o);
    if (!session) return session.error();
    ProbeSession& ps = **session;
    ProbeReport out = ps.header();
    std::string failed;  // "write 65536 B" once a phase failed
    for (auto op : o.ops) {
        for (auto size : o.sizes) {
            if (!failed.empty()) {
                // The QP (or the session) is broken; later phases cannot run. Say so per phase.
                LatencyStats st;
                st.op = to_string(op);
                st.latency_kind = latency_kind(op);
                st.size_bytes = size;
                st.queue_depth = op == ProbeOp::read ? o.queue_depth : 1;
                st.skipped = "not run: " + failed + " failed before it";
                out.results.push_back(std::move(st));
                continue;
            }
            out.results.push_back(ps.run_phase(op, size, o.iterations, o.warmup));
            if (!out.results.back().error.empty()) {
                out.errors.push_back(out.results.back().error);
                failed = out.results.back().op + " " + std::to_string(size) + " B";
            }
        }
    }
    ps.close();
    return out;
}

nlohmann::json to_json(const LatencyStats& s) {
    nlohmann::json j{{"op", s.op},
                     {"latency_kind", s.latency_kind},
                     {"size_bytes", s.size_bytes},
                     {"queue_depth", s.queue_depth}};
    if (!s.skipped.empty()) {
        j["skipped"] = s.skipped;
        return j;
    }
    // A failed phase reports no latency figures (null), only how far it got and why.
    const bool m = s.measured();
    auto num = [m](double v) { return m ? nlohmann::json(v) : nlohmann::json(nullptr); };
    j["iterations"] = m ? nlohmann::json(s.iterations) : nlohmann::json(nullptr);
    if (!m) j["iterations_completed"] = s.iterations;
    j["min_us"] = num(s.min_us);
    j["p50_us"] = num(s.p50_us);
    j["p99_us"] = num(s.p99_us);
    j["p999_us"] = m && s.has_p999() ? nlohmann::json(s.p999_us) : nlohmann::json(nullptr);
    if (m && !s.has_p999())
        j["p999_note"] = "needs at least " + std::to_string(LatencyStats::kMinIterationsForP999) +
                         " iterations; with fewer, nearest rank makes p99.9 the maximum";
    j["max_us"] = num(s.max_us);
    j["mean_us"] = num(s.mean_us);
    j["msg_rate_per_s"] = num(s.msg_rate_per_s);
    j["checksum_errors"] = s.checksum_errors;
    if (m) {
        nlohmann::json cdf = nlohmann::json::array();
        for (const auto& [us, f] : s.cdf) cdf.push_back({us, f});
        j["cdf"] = std::move(cdf);
    }
    if (!s.error.empty()) {
        j["error"] = s.error;
        j["error_cause"] = s.error_cause.empty() ? "other" : s.error_cause;
    }
    return j;
}

nlohmann::json to_json(const ProbeReport& r) {
    nlohmann::json res = nlohmann::json::array();
    for (const auto& s : r.results) res.push_back(to_json(s));
    return {
        {"peer", r.peer},
        {"local",
         {{"device", r.device},
          {"port", r.port},
          {"gid_index", r.gid_index},
          {"gid", r.gid},
          {"gid_type", r.gid_type},
          {"active_mtu_bytes", r.local_active_mtu_bytes}}},
        {"remote",
         {{"hostname", r.remote_hostname},
          {"device", r.remote_device},
          {"gid_index", r.remote_gid_index},
          {"gid", r.remote_gid},
          {"active_mtu_bytes", r.remote_active_mtu_bytes},
          {"recv_depth",
           r.remote_recv_depth ? nlohmann::json(*r.remote_recv_depth) : nlohmann::json(nullptr)}}},
        {"path_mtu_bytes", r.path_mtu_bytes},
        {"qp",
         {{"timeout", r.qp_timeout}, {"retry_cnt", r.qp_retry_cnt}, {"rnr_retry", r.qp_rnr_retry}}},
        {"results", res},
        {"checksum_errors", r.checksum_errors()},
        {"errors", r.errors},
        {"ok", r.ok()}};
}

}  // namespace rh

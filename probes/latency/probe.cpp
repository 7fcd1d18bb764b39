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

}  // namespace rh

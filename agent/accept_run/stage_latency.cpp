#include <algorithm>
#include <cstdio>

#include "agent/accept/text_format.h"
#include "agent/accept_run/control_client.h"
#include "agent/accept_run/stage_sampler.h"
#include "agent/accept_run/stages.h"
#include "probes/wire/control_replies.h"

namespace rh::accept {

namespace {

/// One probe phase (probes/wire/probe_report.h) as the report's row: figures only for a measured
/// phase (p99.9 from 1000 iterations), as the probe's JSON has them.
LatencyResult row_of(const std::string& src, const std::string& dst, const LatencyStats& e) {
    LatencyResult r;
    r.src = src;
    r.dst = dst;
    r.op = e.op;
    r.size_bytes = e.size_bytes;
    if (!e.skipped.empty()) {
        r.error = "skipped: " + e.skipped;
        return r;
    }
    r.iterations = e.iterations;
    r.checksum_errors = e.checksum_errors;
    r.error = e.error;
    if (!e.measured()) return r;
    r.min_us = e.min_us;
    r.p50_us = e.p50_us;
    r.p99_us = e.p99_us;
    if (e.has_p999()) r.p999_us = e.p999_us;
    r.max_us = e.max_us;
    r.mean_us = e.mean_us;
    r.cdf = e.cdf;
    return r;
}

std::string op_title(const std::string& op) {
    std::string s = op;
    std::transform(s.begin(), s.end(), s.begin(), ::toupper);
    return s;
}

/// A row with `why` for every op and size of a pair whose probe gave no report.
void add_error_rows(IdleLatencyResults& res, const SpecHost& src, const SpecHost& dst,
                    const LatencySpec& ls, const std::string& why) {
    for (const auto& op : ls.ops)
        for (auto size : ls.sizes) {
            LatencyResult row;
            row.src = src.name;
            row.dst = dst.name;
            row.op = op;
            row.size_bytes = size;
            row.error = why;
            res.latency.push_back(std::move(row));
        }
}

/// `src`'s responder probes `dst` within `reply_ms`: its rows into `res`, its report into `raw`,
/// its recording lines into cx.samples. A pair cut by a stop leaves nothing.
void probe_pair(RunContext& cx, const SpecHost& src, const SpecHost& dst, int reply_ms,
                IdleLatencyResults& res, nlohmann::json& raw) {
    const auto& ls = cx.spec.latency;
    const nlohmann::json req{{"cmd", "probe"},
                             {"peer", dst.address},
                             {"ops", ls.ops},
                             {"sizes", ls.sizes},
                             {"iterations", ls.iterations},
                             {"warmup", ls.warmup},
                             {"timeout_ms", ls.timeout_ms},
                             {"host", src.name},
                             {"peer_name", dst.name}};
    auto r = control_call(src.address, req, "probe_reply", reply_ms, wire::parse_probe_reply,
                          &cx.stop.requested);
    if (!r && cx.stopping()) return;  // cut mid-pair: nothing measured to keep
    const wire::ProbeReply reply =
        r ? std::move(*r)
          : wire::ProbeReply{std::nullopt, r.error().message(), 0, 0, nlohmann::json::array()};
    raw.push_back(
        {{"src", src.name}, {"dst", dst.name}, {"report", wire::to_json(reply)["report"]}});
    for (const auto& line : reply.samples) cx.samples.push_back(line);
    if (!reply.report) return add_error_rows(res, src, dst, ls, reply.error);
    for (const auto& e : reply.report->results)
        res.latency.push_back(row_of(src.name, dst.name, e));
}

/// One criterion per op and size the spec bounds: the worst pair's p99, none when a pair was
/// not measured.
void add_p99_criteria(Stage& st, const RunContext& cx, const IdleLatencyResults& res) {
    const auto& ls = cx.spec.latency;
    for (const auto& op : ls.ops)
        for (auto size : ls.sizes) {
            const auto bound = cx.spec.criteria.p99_latency_us.find(size);
            if (bound == cx.spec.criteria.p99_latency_us.end()) continue;
            std::optional<double> worst;
            std::string ptr;
            bool missing = false;
            for (std::size_t i = 0; i < res.latency.size(); ++i) {
                const auto& row = res.latency[i];
                if (row.op != op || row.size_bytes != size) continue;
                if (!row.p99_us) {
                    missing = true;
                    continue;
                }
                if (!worst || *row.p99_us > *worst) {
                    worst = row.p99_us;
                    ptr = "/results/latency/" + std::to_string(i);
                }
            }
            Scalar measured;  // null unless every pair was measured
            if (worst && !missing) measured.emplace<double>(*worst);
            std::string name =
                "p99 " + op_title(op) + " latency at " + size_text(size) + ", worst pair";
            if (missing) name += " (not every pair measured)";
            st.criteria.push_back(make_criterion(name, "<=", bound->second, "us", measured,
                                                 ptr.empty() ? std::vector<std::string>{"/results"}
                                                             : std::vector<std::string>{ptr}));
        }
}

/// Checksum errors over all pairs and failed probe phases, each pointing at up to 8 rows.
void add_error_criteria(Stage& st, const RunContext& cx, const IdleLatencyResults& res) {
    double failed = 0, checksum = 0;
    std::vector<std::string> failed_ptr, checksum_ptr;
    for (std::size_t i = 0; i < res.latency.size(); ++i) {
        const auto& row = res.latency[i];
        if (!row.error.empty()) {
            ++failed;
            if (failed_ptr.size() < 8)
                failed_ptr.push_back("/results/latency/" + std::to_string(i));
        }
        if (row.checksum_errors && *row.checksum_errors > 0) {
            checksum += static_cast<double>(*row.checksum_errors);
            if (checksum_ptr.size() < 8)
                checksum_ptr.push_back("/results/latency/" + std::to_string(i));
        }
    }
    st.criteria.push_back(make_criterion(
        "checksum errors, all pairs",
        "<=", static_cast<double>(cx.spec.criteria.max_checksum_errors), "count", checksum,
        checksum_ptr.empty() ? std::vector<std::string>{"/results"} : checksum_ptr));
    st.criteria.push_back(
        make_criterion("probe phases that failed", "==", 0.0, "count", failed,
                       failed_ptr.empty() ? std::vector<std::string>{"/results"} : failed_ptr));
}

}  // namespace

Stage run_latency_stage(RunContext& cx) {
    Stage st = begin_stage(StageId::idle_latency, cx);
    const auto& hosts = cx.spec.hosts;
    const auto& ls = cx.spec.latency;
    IdleLatencyResults res;
    res.pairs_total = hosts.size() * (hosts.size() - 1);
    nlohmann::json raw = nlohmann::json::array();
    std::size_t done = 0;
    StageSampler sampler(cx, 3600);
    // Per message: warm-up and timed, each at most timeout_ms; plus setup.
    const int reply_ms = static_cast<int>(std::min<std::uint64_t>(
        3'600'000, 60'000 + std::uint64_t{ls.timeout_ms} * (ls.iterations + ls.warmup) *
                                ls.ops.size() * ls.sizes.size()));
    for (const auto& src : hosts)
        for (const auto& dst : hosts) {
            if (src.name == dst.name || cx.stopping()) continue;
            cx.progress.update("idle_latency", src.name + " -> " + dst.name,
                               100.0 * done++ / res.pairs_total);
            probe_pair(cx, src, dst, reply_ms, res, raw);
        }
    sampler.finish(st);
    if (cx.save("raw/latency.json", raw.dump(2)))
        st.evidence_links.push_back({"probe reports, every pair (JSON)", "raw/latency.json"});
    add_p99_criteria(st, cx, res);
    add_error_criteria(st, cx, res);
    add_error_findings_criterion(st, cx);
    finish_stage(st, cx, std::move(res));
    return st;
}

}  // namespace rh::accept

#include "probes/wire/probe_report.h"

#include "probes/wire/control_fields.h"

namespace rh {

std::uint64_t ProbeReport::checksum_errors() const {
    std::uint64_t n = 0;
    for (const auto& r : results) n += r.checksum_errors;
    return n;
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

LatencyStats read_latency_stats(const JsonReader& in) {
    LatencyStats s;
    if (!in.expect_object()) return s;
    s.op = in.req_enum("op", {"write", "read", "send"});
    s.latency_kind = in.req_string("latency_kind");
    s.size_bytes = in.req_uint("size_bytes");
    s.queue_depth = static_cast<unsigned>(ctl::req_uint_max(in, "queue_depth", 1u << 16));
    if (in.has("skipped")) {
        s.skipped = in.req_string("skipped");
        if (s.skipped.empty()) in.error_at("skipped", "expected why the phase was not run");
        return s;
    }
    s.error = in.opt_string("error");
    if (!s.error.empty()) s.error_cause = in.req_string("error_cause");
    const bool measured = s.error.empty();
    // A measured phase has every figure; a failed one has nulls and how far it got.
    auto figure = [&](const char* key) {
        const auto before = in.errors().size();
        const auto v = ctl::nullable_number(in, key);
        if (measured && !v && in.errors().size() == before)
            in.error_at(key, "expected a number (the phase was measured), got null");
        return v.value_or(0);
    };
    if (measured) {
        s.iterations = in.req_uint("iterations");
    } else {
        if (in.has("iterations")) in.error_at("iterations", "expected null (the phase failed)");
        in.allow("iterations");
        s.iterations = in.req_uint("iterations_completed");
    }
    s.min_us = figure("min_us");
    s.p50_us = figure("p50_us");
    s.p99_us = figure("p99_us");
    s.max_us = figure("max_us");
    s.mean_us = figure("mean_us");
    // A rate over a loop too short for the clock is infinite, which JSON writes as null: allowed.
    s.msg_rate_per_s = ctl::nullable_number(in, "msg_rate_per_s").value_or(0);
    const auto p999 = ctl::nullable_number(in, "p999_us");
    if (measured && s.has_p999() && !p999)
        in.error_at("p999_us", "expected a number (" + std::to_string(s.iterations) +
                                   " iterations), got null");
    s.p999_us = p999.value_or(0);
    in.allow("p999_note");
    s.checksum_errors = in.req_uint("checksum_errors");
    if (measured)
        in.each("cdf", true, [&](const JsonReader& p) {
            const auto& v = p.json();
            if (v.is_array() && v.size() == 2 && v[0].is_number() && v[1].is_number())
                s.cdf.emplace_back(v[0].get<double>(), v[1].get<double>());
            else
                p.error("expected [latency_us, fraction], got " + JsonReader::type_text(v));
        });
    return s;
}

ProbeReport read_probe_report(const JsonReader& in) {
    ProbeReport r;
    if (!in.expect_object()) return r;
    r.peer = in.req_string("peer");
    const JsonReader local = in.member("local");
    if (local.expect_object()) {
        r.device = local.req_string("device");
        r.port = static_cast<unsigned>(ctl::req_uint_max(local, "port", 255));
        r.gid_index = static_cast<unsigned>(ctl::req_uint_max(local, "gid_index", 65535));
        r.gid = local.req_string("gid");
        r.gid_type = local.req_string("gid_type");
        r.local_active_mtu_bytes =
            static_cast<unsigned>(ctl::req_uint_max(local, "active_mtu_bytes", 4096));
    }
    const JsonReader remote = in.member("remote");
    if (remote.expect_object()) {
        r.remote_hostname = remote.req_string("hostname");
        r.remote_device = remote.req_string("device");
        r.remote_gid_index = static_cast<unsigned>(ctl::req_uint_max(remote, "gid_index", 65535));
        r.remote_gid = remote.req_string("gid");
        r.remote_active_mtu_bytes =
            static_cast<unsigned>(ctl::req_uint_max(remote, "active_mtu_bytes", 4096));
        if (const auto d = ctl::nullable_uint(remote, "recv_depth"))
            r.remote_recv_depth = static_cast<unsigned>(*d);
    }
    r.path_mtu_bytes = static_cast<unsigned>(ctl::req_uint_max(in, "path_mtu_bytes", 4096));
    const JsonReader qp = in.member("qp");
    if (qp.expect_object()) {
        r.qp_timeout = static_cast<unsigned>(ctl::req_uint_max(qp, "timeout", 31));
        r.qp_retry_cnt = static_cast<unsigned>(ctl::req_uint_max(qp, "retry_cnt", 7));
        r.qp_rnr_retry = static_cast<unsigned>(ctl::req_uint_max(qp, "rnr_retry", 7));
    }
    in.each("results", true,
            [&](const JsonReader& e) { r.results.push_back(read_latency_stats(e)); });
    r.errors = ctl::req_strings(in, "errors");
    // Derived from the rest (ProbeReport::checksum_errors, ok): read, and checked to agree.
    const std::uint64_t sum = in.req_uint("checksum_errors");
    const bool ok = in.req_bool("ok");
    if (in.errors().empty() && sum != r.checksum_errors())
        in.error_at("checksum_errors", "says " + std::to_string(sum) + ", its results add up to " +
                                           std::to_string(r.checksum_errors()));
    if (in.errors().empty() && ok != r.ok())
        in.error_at("ok", std::string("says ") + (ok ? "true" : "false") +
                              ", its errors and checksum errors say otherwise");
    return r;
}

}  // namespace rh

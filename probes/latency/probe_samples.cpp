#include "probes/latency/probe_samples.h"

#include <map>

#include "probes/verbs/wc_status.h"

namespace rh {

namespace {

Sample base(const std::string& host, double t_s, std::int64_t wall_ms, std::string series,
            Labels labels, SampleKind kind, std::string unit) {
    Sample s;
    s.t_s = t_s;
    s.wall_ms = wall_ms;
    s.host = host;
    s.series = std::move(series);
    s.labels = std::move(labels);
    s.kind = kind;
    s.unit = std::move(unit);
    s.source = "rocehealth probe";
    return s;
}

}  // namespace

std::vector<Sample> samples_from_probe(const ProbeReport& r, const std::string& host,
                                       const std::string& peer, const ProbeRunTimes& when) {
    std::vector<Sample> out;
    std::map<std::pair<std::string, std::string>, std::uint64_t> errors;  // (op, status) -> n
    for (const LatencyStats& st : r.results) {
        if (!st.error.empty()) ++errors[{st.op, st.error_cause.empty() ? "other" : st.error_cause}];
        if (!st.measured()) continue;
        const std::pair<const char*, double> quantiles[] = {
            {"p50", st.p50_us}, {"p99", st.p99_us}, {"p999", st.p999_us}};
        for (const auto& [q, v] : quantiles) {
            if (std::string(q) == "p999" && !st.has_p999()) continue;  // would be the maximum
            Sample s = base(host, when.end_t_s, when.end_wall_ms, "probe_latency_us",
                            {{"peer", peer},
                             {"op", st.op},
                             {"size_bytes", std::to_string(st.size_bytes)},
                             {"quantile", q}},
                            SampleKind::gauge, "us");
            s.value = v;
            out.push_back(std::move(s));
        }
    }
    for (const auto& [key, n] : errors) {
        const Labels l{{"peer", peer}, {"op", key.first}, {"status", key.second}};
        Sample start = base(host, when.start_t_s, when.start_wall_ms, "probe_errors", l,
                            SampleKind::counter, "events");
        start.count = 0;
        Sample end = start;
        end.t_s = when.end_t_s;
        end.wall_ms = when.end_wall_ms;
        end.count = n;
        out.push_back(std::move(start));
        out.push_back(std::move(end));
    }
    return out;
}

}  // namespace rh

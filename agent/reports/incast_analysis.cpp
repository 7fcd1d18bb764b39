#include "agent/reports/incast_analysis.h"

#include "agent/replay/inputs.h"
#include "agent/replay/replay.h"
#include "core/inventory/parse.h"
#include "core/recording/sample_json.h"
#include "rules/engine/engine.h"
#include "store/window.h"

namespace rh {

namespace {

/// Counters shown per second for every host (packets; rxe and mlx5 both have them).
constexpr const char* kActivitySeries[] = {
    "roce_rx_packets",    "roce_tx_packets", "sequence_errors", "out_of_sequence",
    "duplicate_requests", "rnr_nak_sent",    "rnr_nak_received"};

/// Adds one host's samples; returns how many parsed, notes for those that did not.
InputReport load_host(SeriesStore& store, const incast::HostRun& h) {
    InputReport in{"counters of " + h.name + " (" + h.role + ")", 0, {}, {}};
    std::size_t bad = 0;
    std::string first_bad;
    for (const auto& line : h.samples) {
        auto s = sample_from_json(line);
        if (!s) {
            if (bad++ == 0) first_bad = s.error().message();
            continue;
        }
        if (in.hosts.empty() || in.hosts.back() != s->host) in.hosts.push_back(s->host);
        if (s->kind == SampleKind::inventory)
            store.add_inventory(*s);
        else
            store.add(*s);
        ++in.samples;
    }
    if (bad)
        in.notes.push_back(std::to_string(bad) + " sample lines skipped, the first: " + first_bad);
    return in;
}

/// Per pass interval of each host: rate of each activity series (summed over its label sets).
IncastActivity activity_of(const SeriesStore& store) {
    IncastActivity out;
    for (const std::string& host : store.hosts()) {
        const auto& times = store.pass_times(host);
        std::vector<ActivityRow> rows;
        for (std::size_t i = 1; i < times.size(); ++i) {
            ActivityRow row{static_cast<std::int64_t>(times[i] * 1000), {}};
            for (const char* name : kActivitySeries) {
                std::optional<double> sum;
                for (const Series* s : store.find(name)) {
                    if (s->key.host != host) continue;
                    if (auto r = rate_in(*s, times[i - 1], times[i])) sum = sum.value_or(0) + *r;
                }
                if (sum) row.per_s[name] = *sum;
            }
            rows.push_back(std::move(row));
        }
        out[host] = std::move(rows);
    }
    return out;
}

}  // namespace

IncastAnalysis analyse_incast(const incast::Run& run, const RuleSet& rules,
                              const std::string& rules_file) {
    IncastAnalysis a;
    if (const auto& h = run.receiver.hello) {
        if (!h->port_rate.empty()) {
            a.link_gbps = parse_port_rate_gbps(h->port_rate);
            if (!a.link_gbps) a.link_note = "port rate '" + h->port_rate + "' not understood";
        } else {
            a.link_note = "port rate unreadable: " + h->port_rate_error;
        }
    } else {
        a.link_note = "no hello from the receiver";
    }

    SeriesStore store(replay_store_limits());
    std::vector<InputReport> inputs;
    std::vector<const incast::HostRun*> hosts{&run.receiver};
    for (const auto& h : run.sender_hosts) hosts.push_back(&h);
    for (const auto* h : hosts)
        if (!h->samples.empty()) inputs.push_back(load_host(store, *h));
    for (const auto& in : inputs)
        for (const auto& n : in.notes) a.notes.push_back(in.name + ": " + n);
    if (inputs.empty()) return a;
    if (store.dropped_out_of_order() > 0)
        a.notes.push_back(std::to_string(store.dropped_out_of_order()) +
                          " samples older than their series' previous one were ignored");
    a.diagnosis = diagnose_report(run_rules(store, rules), rules_file, inputs);
    a.activity = activity_of(store);
    return a;
}

nlohmann::json activity_json(const IncastActivity& activity) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [host, rows] : activity) {
        nlohmann::json a = nlohmann::json::array();
        for (const ActivityRow& r : rows) {
            nlohmann::json row{{"utc_ms", r.utc_ms}};
            for (const auto& [series, v] : r.per_s) row[series + "_per_s"] = v;
            a.push_back(std::move(row));
        }
        out[host] = std::move(a);
    }
    return out;
}

}  // namespace rh

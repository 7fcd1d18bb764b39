// Configuration drift (rules group rocehealth-fabric-config).

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

#include "core/host_facts.h"
#include "core/series_catalog.h"

#include "agent/fabric/fabric_parts.h"

namespace rh::fabric::detail {

namespace {

/// Exported family -> the fact it carries: the facts drift judges (core/host_facts.h, each read
/// from the family of its series catalog row).
const std::map<std::string, const HostFact*>& drift_facts() {
    static const std::map<std::string, const HostFact*> facts = [] {
        std::map<std::string, const HostFact*> m;
        for (const HostFact& f : host_facts()) {
            if (f.setting.empty()) continue;
            const SeriesSpec* s = find_series(f.series);
            if (!s)
                throw std::logic_error("host_facts: no series catalog row " +
                                       std::string(f.series));
            m.emplace(std::string(s->exported), &f);
        }
        return m;
    }();
    return facts;
}

struct DriftPort {
    std::string instance, device, port, value, netdev;
    TimeKey since = 0;
};
/// (setting, priority) -> (instance, device, port) -> the port's last value.
using DriftValues =
    std::map<std::pair<std::string, std::string>, std::map<std::vector<std::string>, DriftPort>>;

/// Each port's last value of each drift setting in the range, and since when it has been that.
DriftValues last_config_values(const FabricSeries& in) {
    DriftValues by_setting;
    for (const PromSeries& s : in.port_config) {
        const auto name = drift_facts().find(label(s.labels, "__name__"));
        if (name == drift_facts().end()) continue;
        const std::string setting(name->second->setting);
        const bool trust = name->second->id == HostFactId::trust;  // the value is a label
        // The value of the last point, and since when it has been that (its trailing run).
        std::optional<std::string> last;
        TimeKey since = 0;
        for (const PromPoint& p : s.points) {
            if (std::isnan(p.value)) continue;
            const std::string v = trust ? label(s.labels, "trust") : number_text(p.value);
            if (!last || *last != v) since = key_of(p.t_s);
            last = v;
        }
        if (!last) continue;
        const std::vector<std::string> port = {label(s.labels, "instance"),
                                               label(s.labels, "device"), label(s.labels, "port")};
        DriftPort& pv = by_setting[{setting, label(s.labels, "priority")}][port];
        if (!pv.value.empty() && pv.since > since) continue;  // trust: the newest mode wins
        pv = {port[0], port[1], port[2], *last, label(s.labels, "netdev"), since};
    }
    return by_setting;
}

/// The finding of a port whose `setting` (at `priority`, or "") differs from the fabric's
/// `majority`, held by `share` ("N of M ports").
Finding drift_finding(const DriftPort& pv, const std::string& host, const std::string& setting,
                      const std::string& priority, const std::string& majority,
                      const std::string& share) {
    unsigned port_no = 0;
    for (char c : pv.port)
        port_no = c >= '0' && c <= '9' && port_no < 100000 ? port_no * 10 + (c - '0') : port_no;
    Finding f = make_finding("fabric_config_drift", Severity::warning, host, pv.device, port_no);
    f.labels = {{"setting", setting}, {"value", pv.value}, {"fabric_value", majority}};
    if (!priority.empty()) f.labels["priority"] = priority;
    open_finding(f, pv.since, std::nullopt);
    const std::string what = setting + (priority.empty() ? "" : " (priority " + priority + ")");
    f.summary = host + " " + pv.device + " port " + pv.port +
                (pv.netdev.empty() ? "" : " (" + pv.netdev + ")") + ": " + what + " is " +
                pv.value + ", the fabric's is " + majority + " (" + share + ")";
    std::string series;
    for (const auto& [name, fact] : drift_facts())
        if (fact->setting == setting) series = name;
    f.evidence.push_back({setting, pv.value, "", series});
    f.evidence.push_back({"fabric_" + setting, majority, "", share});
    TimelineEvent e = event_at(
        pv.since, host,
        what + " is " + pv.value + ", unlike the fabric (" + majority + " on " + share + ")",
        pv.value, "", f.evidence.front().source);
    e.labels = f.labels;
    f.timeline.push_back(std::move(e));
    f.explanation =
        "A lossless fabric needs the same PFC priorities and trust end to end (a mismatch "
        "drops or mis-queues RoCE), and MTU differences cap the RoCE path MTU (rule "
        "RocehealthConfigDrift). `rocehealth check` on the host shows where it was read.";
    f.confidence = "high";
    f.confidence_reason = "the port's last value in the range against " + share;
    return f;
}

std::string too_few_ports(std::size_t most, std::size_t need) {
    return "too little input: at most " + std::to_string(most) +
           " port(s) reported a setting; a port unlike the fabric needs a majority to differ "
           "from, so at least " +
           std::to_string(need) + " ports must report the same setting";
}

/// The recorded source: rocehealth:config_value:ports at its last step (the range's end), as
/// (setting, priority) -> value -> ports, and that step.
std::map<std::pair<std::string, std::string>, std::map<std::string, std::size_t>> recorded_counts(
    const FabricSeries& in, std::set<TimeKey>& grid) {
    for (const PromSeries& s : in.config_ports)
        for (const auto& [t, n] : values_of(s)) grid.insert(t);
    std::map<std::pair<std::string, std::string>, std::map<std::string, std::size_t>> counts;
    if (grid.empty()) return counts;
    for (const PromSeries& s : in.config_ports)
        if (const auto n = at(values_of(s), *grid.rbegin()); n && *n >= 1)
            counts[{label(s.labels, "setting"), label(s.labels, "priority")}]
                  [label(s.labels, "value")] = static_cast<std::size_t>(std::llround(*n));
    return counts;
}

/// The recorded source's drift: the rows of rocehealth:config_value:port unlike their
/// setting's majority at the range's last step, each since the start of its run of steps
/// (`grid`: the steps of the per-value counts). A port that drifted and came back has no
/// point at the last step: its last value is the fabric's, as in the raw source.
void analyse_config_recorded(const FabricSeries& in, const Topology& topo,
                             const FabricThresholds& th, FabricResult& out) {
    std::set<TimeKey> grid;
    const auto counts = recorded_counts(in, grid);
    for (const PromSeries& s : in.config_drifting) {
        const Values v = values_of(s);
        if (grid.empty() || !at(v, *grid.rbegin())) continue;
        TimeKey since = *grid.rbegin();
        for (auto it = grid.rbegin(); it != grid.rend() && at(v, *it); ++it) since = *it;
        const std::pair<std::string, std::string> sp = {label(s.labels, "setting"),
                                                        label(s.labels, "priority")};
        const auto c = counts.find(sp);
        if (c == counts.end()) continue;
        std::size_t total = 0;
        std::string majority;
        for (const auto& [value, n] : c->second) total += n;
        for (const auto& [value, n] : c->second)
            if (static_cast<double>(n) > th.config_majority * static_cast<double>(total))
                majority = value;
        const DriftPort pv{label(s.labels, "instance"), label(s.labels, "device"),
                           label(s.labels, "port"),     label(s.labels, "value"),
                           label(s.labels, "netdev"),   since};
        if (majority.empty() || pv.value == majority) continue;
        const std::string share =
            std::to_string(c->second.at(majority)) + " of " + std::to_string(total) + " ports";
        out.findings.push_back(
            drift_finding(pv, topo.host(pv.instance), sp.first, sp.second, majority, share));
    }
}

/// Whether a series has a value in the range: NaN points are reads that failed (the agent
/// exports NaN for an unreadable setting), no value to compare.
bool has_value(const PromSeries& s) {
    return std::any_of(s.points.begin(), s.points.end(),
                       [](const PromPoint& p) { return !std::isnan(p.value); });
}

/// A note per drift series (and priority) with ports that reported only NaN in the range: those
/// ports are not judged for drift, and without this a setting every port failed to read would
/// vanish from the answer without a word (a new user's find).
void note_unreadable(const FabricSeries& in, FabricResult& out) {
    // (series name, priority) -> (ports with only NaN, ports)
    std::map<std::pair<std::string, std::string>, std::pair<std::size_t, std::size_t>> n;
    for (const PromSeries& s : in.port_config) {
        const std::string name = label(s.labels, "__name__");
        if (!drift_facts().count(name)) continue;
        auto& [nan_only, all] = n[{name, label(s.labels, "priority")}];
        ++all;
        nan_only += has_value(s) ? 0 : 1;
    }
    for (const auto& [k, c] : n)
        if (c.first > 0)
            out.notes.push_back(
                {k.first + (k.second.empty() ? "" : " (priority " + k.second + ")"),
                 std::to_string(c.first) + " of " + std::to_string(c.second) +
                     " port(s) reported only NaN in the range (the agent could not read the "
                     "setting): " +
                     (c.first == c.second ? "this setting was" : "those ports were") +
                     " not judged for drift"});
}

}  // namespace

void analyse_config(const FabricSeries& in, const Topology& topo, const FabricThresholds& th,
                    FabricResult& out) {
    if (!in.config_ports.empty()) return analyse_config_recorded(in, topo, th, out);
    note_unreadable(in, out);
    for (const auto& [sp, ports] : last_config_values(in)) {
        const auto& [setting, priority] = sp;
        std::map<std::string, std::size_t> counts;
        for (const auto& [k, pv] : ports) ++counts[pv.value];
        std::string majority;
        for (const auto& [v, n] : counts)
            if (static_cast<double>(n) > th.config_majority * static_cast<double>(ports.size()))
                majority = v;
        if (majority.empty()) continue;  // an even split: nothing to drift from
        const std::string share =
            std::to_string(counts[majority]) + " of " + std::to_string(ports.size()) + " ports";
        for (const auto& [k, pv] : ports)
            if (pv.value != majority)
                out.findings.push_back(
                    drift_finding(pv, topo.host(pv.instance), setting, priority, majority, share));
    }
}

/// Why configuration drift had too little input to be judged ("" when it had enough): a value
/// unlike the fabric's needs a majority to differ from, so some setting must be reported by
/// more than 1 / (1 - th.config_majority) ports (3 at a majority of half). No configuration
/// series at all is analyse_fabric's "no port configuration series" instead.
std::string config_too_little(const FabricSeries& in, const FabricThresholds& th) {
    const auto need = static_cast<std::size_t>(std::floor(1 / (1 - th.config_majority))) + 1;
    std::size_t most = 0;
    if (!in.config_ports.empty()) {
        // Recorded: the most ports that reported one setting at one step.
        std::map<std::pair<std::string, std::string>, std::map<TimeKey, double>> per_setting;
        for (const PromSeries& s : in.config_ports)
            for (const auto& [t, n] : values_of(s))
                per_setting[{label(s.labels, "setting"), label(s.labels, "priority")}][t] += n;
        for (const auto& [sp, by_t] : per_setting)
            for (const auto& [t, n] : by_t)
                most = std::max(most, static_cast<std::size_t>(std::llround(std::max(0.0, n))));
        return most >= need ? "" : too_few_ports(most, need);
    }
    if (in.port_config.empty()) return "";
    // (series name, priority) -> its ports (instance, device, port)
    std::map<std::pair<std::string, std::string>, std::set<std::vector<std::string>>> ports;
    for (const PromSeries& s : in.port_config)
        if (has_value(s))  // a port that reported only NaN is no port to count
            ports[{label(s.labels, "__name__"), label(s.labels, "priority")}].insert(
                {label(s.labels, "instance"), label(s.labels, "device"), label(s.labels, "port")});
    for (const auto& [k, p] : ports) most = std::max(most, p.size());
    return most >= need ? "" : too_few_ports(most, need);
}

}  // namespace rh::fabric::detail

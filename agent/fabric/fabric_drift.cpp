// Configuration drift (rules group rocehealth-fabric-config).

#include <algorithm>
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

}  // namespace

void analyse_config(const FabricSeries& in, const Topology& topo, const FabricThresholds& th,
                    FabricResult& out) {
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
    if (in.port_config.empty()) return "";
    const auto need = static_cast<std::size_t>(std::floor(1 / (1 - th.config_majority))) + 1;
    // (series name, priority) -> its ports (instance, device, port)
    std::map<std::pair<std::string, std::string>, std::set<std::vector<std::string>>> ports;
    for (const PromSeries& s : in.port_config)
        ports[{label(s.labels, "__name__"), label(s.labels, "priority")}].insert(
            {label(s.labels, "instance"), label(s.labels, "device"), label(s.labels, "port")});
    std::size_t most = 0;
    for (const auto& [k, p] : ports) most = std::max(most, p.size());
    if (most >= need) return "";
    return "too little input: at most " + std::to_string(most) +
           " port(s) reported a setting; a port unlike the fabric needs a majority to differ "
           "from, so at least " +
           std::to_string(need) + " ports must report the same setting";
}

}  // namespace rh::fabric::detail

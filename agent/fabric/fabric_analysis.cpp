#include "agent/fabric/fabric_analysis.h"

#include <algorithm>
#include <set>

#include "agent/fabric/fabric_parts.h"

namespace rh::fabric {

using namespace detail;

namespace {

/// The first and last point time over every series of `in` into `out` (not host_info: it is
/// read at the range's end only, FabricQuery::at_end_only).
void set_data_span(const FabricSeries& in, FabricResult& out) {
    std::optional<double> first, last;
    for (const auto* v : {&in.pause_fraction, &in.probe_errors, &in.probe_p50_s, &in.port_config,
                          &in.pause_pairs_reporting, &in.tor_into_count, &in.config_ports})
        for (const PromSeries& s : *v)
            for (const PromPoint& p : s.points) {
                if (std::isnan(p.value)) continue;
                first = std::min(first.value_or(p.t_s), p.t_s);
                last = std::max(last.value_or(p.t_s), p.t_s);
            }
    out.data_first_s = first.value_or(0);
    out.data_last_s = last.value_or(0);
}

}  // namespace

FabricResult analyse_fabric(const FabricSeries& in, const FabricThresholds& th) {
    FabricResult out;
    const Topology topo = topology_of(in.host_info);
    std::set<std::string> hosts, without_info;
    for (const auto& [inst, host] : topo.host_of_instance) hosts.insert(topo.host(inst));
    for (const auto* v : {&in.pause_fraction, &in.probe_errors, &in.probe_p50_s, &in.port_config,
                          &in.bad_rows, &in.config_drifting})
        for (const PromSeries& s : *v) {
            const std::string inst = label(s.labels, "instance");
            hosts.insert(topo.host(inst));
            if (!topo.host_of_instance.count(inst)) without_info.insert(inst);
        }
    set_data_span(in, out);
    for (const std::string& inst : without_info)
        out.notes.push_back({"instance " + inst,
                             "no rocehealth_host_info: named by its instance, no ToR (left out "
                             "of the ToR localisation)"});
    out.hosts.assign(hosts.begin(), hosts.end());
    analyse_pause(in, topo, th, out);
    analyse_mesh(in, topo, th, out);
    analyse_config(in, topo, th, out);
    if (in.pause_fraction.empty() && in.pause_pairs_reporting.empty())
        out.not_judged.push_back(
            {"fabric_pause_storm_origin",
             "no host exported rocehealth_pfc_pause_duration_seconds_total in the range: pause "
             "storms were not judged"});
    if (in.probe_errors.empty() && in.probe_p50_s.empty() && in.tor_into_count.empty())
        out.not_judged.push_back({"fabric_tor_probes_failing",
                                  "no probe series (rocehealth_probe_errors_total, "
                                  "rocehealth_probe_latency_seconds) in the range: the mesh "
                                  "between ToRs was not judged"});
    if (in.port_config.empty() && in.config_ports.empty())
        out.not_judged.push_back({"fabric_config_drift",
                                  "no port configuration series (rocehealth_netdev_mtu_bytes, "
                                  "rocehealth_pfc_enabled, ...) in the range: configuration "
                                  "drift was not judged"});
    if (const std::string why = config_too_little(in, th);
        !why.empty() &&
        std::none_of(out.findings.begin(), out.findings.end(),
                     [](const Finding& f) { return f.rule_id == "fabric_config_drift"; }))
        out.not_judged.push_back({"fabric_config_drift", why});
    std::stable_sort(out.findings.begin(), out.findings.end(),
                     [](const Finding& a, const Finding& b) { return a.opened_t < b.opened_t; });
    return out;
}

void add_not_judged(FabricResult& r, const std::vector<Note>& more) {
    for (const Note& n : more) {
        const bool found = std::any_of(r.findings.begin(), r.findings.end(),
                                       [&](const Finding& f) { return f.rule_id == n.subject; });
        if (found) {
            r.notes.push_back({n.subject, "found, but may have missed other faults: " + n.text});
            continue;
        }
        const auto it = std::find_if(r.not_judged.begin(), r.not_judged.end(),
                                     [&](const Note& m) { return m.subject == n.subject; });
        if (it == r.not_judged.end())
            r.not_judged.push_back(n);
        else
            it->text = n.text;  // the cause (e.g. the step) over its effect (no points)
    }
}

}  // namespace rh::fabric

// port_not_active: a port that is not ACTIVE / LinkUp carries no RDMA traffic, whatever the
// netdev says. Source: `ports/<p>/state` ("4: ACTIVE") and `ports/<p>/phys_state` ("5: LinkUp").
// A port that is down and was never in use (rules/port_usage.h: no carrier, no traffic, no GID
// in use) is taken as not cabled: a note, not a finding, unless it is a required port.
#include "rules/evidence_format.h"
#include "rules/port_usage.h"
#include "rules/rule.h"

namespace rh {

namespace {
std::string joined(const std::vector<std::string>& parts, std::size_t max) {
    std::string out;
    for (std::size_t i = 0; i < parts.size() && i < max; ++i)
        out += (out.empty() ? "" : ", ") + parts[i];
    if (parts.size() > max) out += ", ...";
    return out;
}
/// What to check for a port that is not ACTIVE/LinkUp, from its states. Only reaching LinkUp
/// proves a working cable: DOWN/Polling means enabled but not trained (no cable, a bad cable or
/// optic, a disabled peer, a speed/FEC mismatch). On InfiniBand the logical state then goes
/// INIT -> ARMED -> ACTIVE as the subnet manager configures the port: INIT with the link up
/// means no subnet manager has done so.
std::string next_step(const Port& p, const std::string& netdev) {
    const bool linkup = p.phys_state_code && *p.phys_state_code == kPhysLinkUp;
    if (linkup && p.state_code && (*p.state_code == 2 || *p.state_code == 3) &&
        p.link_layer != "Ethernet")
        return std::string("the physical link is up but the port is ") + p.state +
               ": no subnet manager has brought it to ACTIVE (start opensm or check the "
               "fabric's SM with `sminfo`).";
    if (p.phys_state_code && *p.phys_state_code == 2)
        return "the port is enabled and Polling, not trained (only LinkUp proves a working "
               "cable): no cable, a bad cable or optic, a disabled peer port, or a speed/FEC "
               "mismatch; check `ethtool -m " +
               netdev + "`, the switch port and `ethtool " + netdev + "`.";
    return "check the cable, the switch port and `" + netdev + "` link state.";
}

}  // namespace

void rule_port_not_active(const RuleInput& in, RuleOutput& result) {
    for (const std::string& e : unmatched_required_ports(in.local, in.required_ports))
        result.not_judged.push_back(
            {"required port " + e, "names no RDMA port (DEVICE/PORT) or netdev on this host"});
    for (const auto& d : in.local.devices) {
        for (const auto& p : d.ports) {
            // An unreadable state is no evidence either way: say it could not be evaluated.
            if (!p.state_code || !p.phys_state_code) {
                result.unevaluated.push_back(
                    {port_subject(d, p),
                     std::string("cannot tell whether the port is ACTIVE/LinkUp: ") +
                         (!p.state_code ? "state" : "phys_state") + " unreadable"});
                continue;
            }
            const bool state_bad = *p.state_code != kIbPortActive;
            const bool phys_bad = *p.phys_state_code != kPhysLinkUp;
            if (!state_bad && !phys_bad) continue;
            const PortUsage usage = judge_port_usage(d, p, in.required_ports);
            if (usage.never_cabled) {
                result.notes.push_back(usage.note);
                continue;
            }
            const std::string netdev =
                p.netdev_name.empty() ? std::string("the netdev") : p.netdev_name;
            Finding f = check_finding("port_not_active", in.local.host, d.name, p.number);
            f.summary = port_subject(d, p) + " is " + (p.state.empty() ? "?" : p.state) + "/" +
                        (p.phys_state.empty() ? "?" : p.phys_state) + ", not ACTIVE/LinkUp" +
                        (usage.required ? " although it is a required port"
                         : usage.in_use_signs.empty()
                             ? ""
                             : " although it was in use (" + joined(usage.in_use_signs, 2) + ")") +
                        ": no RDMA traffic can pass; " + next_step(p, netdev);
            f.evidence.push_back({"state", format_port_state(*p.state_code), "",
                                  port_source(in.local, d, p, "state", "state")});
            f.evidence.push_back({"phys_state", format_phys_state(*p.phys_state_code), "",
                                  port_source(in.local, d, p, "phys_state", "phys_state")});
            if (p.netdev && !p.netdev->operstate.empty())
                f.evidence.push_back({p.netdev->name + " operstate", p.netdev->operstate, "",
                                      cite_sysfs(in.local.sysfs_root, p.netdev->source)});
            if (usage.required)
                f.evidence.push_back({"required port", "yes (--require-port / required_ports)", "",
                                      "configuration"});
            else if (!usage.in_use_signs.empty())
                f.evidence.push_back({"signs it was in use", joined(usage.in_use_signs, 4), "",
                                      "counters, netdev and GID table of the port"});
            result.findings.push_back(std::move(f));
        }
    }
}

}  // namespace rh

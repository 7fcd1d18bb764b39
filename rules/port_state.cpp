// port_not_active: a port that is not ACTIVE / LinkUp carries no RDMA traffic, whatever the
// netdev says. Source: `ports/<p>/state` ("4: ACTIVE") and `ports/<p>/phys_state` ("5: LinkUp").
#include "rules/rule.h"

namespace rh {

namespace {
constexpr unsigned kIbPortActive = 4;
constexpr unsigned kPhysLinkUp = 5;

std::string port_path(const Snapshot& s, const Device& d, const Port& p, const char* file) {
    return s.sysfs_root + "/class/infiniband/" + d.name + "/ports/" + std::to_string(p.number) +
           "/" + file;
}
}  // namespace

void rule_port_not_active(const RuleInput& in, RuleOutput& result) {
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
            const bool state_bad = p.state_code && *p.state_code != kIbPortActive;
            const bool phys_bad = p.phys_state_code && *p.phys_state_code != kPhysLinkUp;
            if (!state_bad && !phys_bad) continue;
            Finding f = make_finding("port_not_active", Severity::error, in.local.host, d.name, p.number);
            f.summary = d.name + " port " + std::to_string(p.number) + " is " +
                        (p.state.empty() ? "?" : p.state) + "/" +
                        (p.phys_state.empty() ? "?" : p.phys_state) +
                        ", not ACTIVE/LinkUp: no RDMA traffic can pass; check the cable, the "
                        "switch port and `" +
                        (p.netdev_name.empty() ? std::string("the netdev") : p.netdev_name) +
                        "` link state.";
            f.evidence.push_back({"state", p.state, "", port_path(in.local, d, p, "state")});
            f.evidence.push_back(
                {"phys_state", p.phys_state, "", port_path(in.local, d, p, "phys_state")});
            if (p.netdev && !p.netdev->operstate.empty())
                f.evidence.push_back(
                    {p.netdev->name + " operstate", p.netdev->operstate, "", p.netdev->source});
            result.findings.push_back(std::move(f));
        }
    }
}

}  // namespace rh

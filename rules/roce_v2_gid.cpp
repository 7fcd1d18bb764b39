// no_roce_v2_gid: RoCE v2 needs a routable GID — one derived from an IPv4 or a non-link-local
// IPv6 address. With only link-local (fe80::) v2 GIDs, or only RoCE v1 GIDs, connections to
// other hosts fail ("Network is unreachable"): the netdev has no IP address.
// Source: `ports/<p>/gids/<i>`, `gid_attrs/types/<i>`.
#include "rules/evidence_format.h"
#include "rules/port_usage.h"
#include "rules/rule.h"

namespace rh {

void rule_no_roce_v2_gid(const RuleInput& in, RuleOutput& out) {
    for (const auto& d : in.local.devices) {
        for (const auto& p : d.ports) {
            if (p.link_layer.empty()) {
                out.unevaluated.push_back(
                    {port_subject(d, p),
                     "link_layer unreadable: cannot tell whether RoCE GIDs apply"});
                continue;
            }
            if (p.link_layer != "Ethernet") continue;
            // A port taken as not cabled has no address to give a GID (port_not_active notes it).
            if (judge_port_usage(d, p, in.required_ports).never_cabled) continue;
            if (!p.gids_unavailable.empty()) {
                out.unevaluated.push_back(
                    {port_subject(d, p),
                     "cannot tell whether it has a routable RoCE v2 GID: " + p.gids_unavailable});
                continue;
            }
            bool routable_v2 = false;
            for (const auto& g : p.gids)
                routable_v2 = routable_v2 || (g.type == "RoCE v2" && !is_link_local_gid(g.gid));
            if (routable_v2) continue;
            const std::string netdev =
                p.netdev_name.empty() ? std::string("its netdev") : p.netdev_name;
            Finding f = check_finding("no_roce_v2_gid", in.local.host, d.name, p.number);
            f.summary = port_subject(d, p) +
                        " has no routable RoCE v2 GID (only link-local or RoCE v1 ones): RoCE "
                        "connections to other hosts fail; give " +
                        netdev +
                        " an IPv4 or global IPv6 address (GIDs follow the netdev's addresses).";
            std::string types;
            for (const auto& g : p.gids)
                types += (types.empty() ? "" : ", ") + std::to_string(g.index) + "=" + g.type +
                         " " + g.gid;
            const std::size_t n = p.gids.size();
            f.evidence.push_back({"populated GID table entries",
                                  std::to_string(n) + (n == 1 ? " entry" : " entries"), "entries",
                                  port_source(in.local, d, p, "gids", "gids")});
            f.evidence.push_back({"GIDs (index=type address)", types.empty() ? "none" : types, "",
                                  port_source(in.local, d, p, "gids", "gid_attrs/types")});
            out.findings.push_back(std::move(f));
        }
    }
}

}  // namespace rh

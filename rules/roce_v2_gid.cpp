// no_roce_v2_gid: on an Ethernet port without a RoCE v2 GID only RoCE v1 (layer 2, not routable)
// works; routed fabrics and most RoCE applications need v2. Source: `gid_attrs/types/<i>`.
#include "rules/rule.h"

namespace rh {

void rule_no_roce_v2_gid(const RuleInput& in, std::vector<Finding>& out) {
    for (const auto& d : in.local.devices) {
        for (const auto& p : d.ports) {
            if (p.link_layer != "Ethernet") continue;
            bool has_v2 = false;
            for (const auto& g : p.gids) has_v2 = has_v2 || g.type == "RoCE v2";
            if (has_v2) continue;
            const std::string base = in.local.sysfs_root + "/class/infiniband/" + d.name +
                                     "/ports/" + std::to_string(p.number);
            Finding f{"no_roce_v2_gid", Severity::error, in.local.host, d.name, p.number, {}, {}};
            f.summary = d.name + " port " + std::to_string(p.number) +
                        " has no RoCE v2 GID: routed RoCE cannot connect; give " +
                        (p.netdev_name.empty() ? std::string("its netdev") : p.netdev_name) +
                        " an IP address (GIDs follow the netdev's addresses).";
            std::string types;
            for (const auto& g : p.gids)
                types += (types.empty() ? "" : ", ") + std::to_string(g.index) + "=" + g.type;
            f.evidence.push_back({"populated GIDs", std::to_string(p.gids.size()), "entries",
                                  base + "/gids"});
            f.evidence.push_back({"GID types", types.empty() ? "none" : types, "",
                                  base + "/gid_attrs/types"});
            out.push_back(std::move(f));
        }
    }
}

}  // namespace rh

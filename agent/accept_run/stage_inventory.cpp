#include <algorithm>
#include <cstdio>

#include "agent/accept_run/consistency.h"
#include "agent/accept_run/control_client.h"
#include "agent/accept_run/stages.h"
#include "core/inventory/inventory_from_json.h"
#include "probes/wire/control_replies.h"
#include "rules/fabric_consistency.h"
#include "rules/pcie_math.h"

namespace rh::accept {

namespace {

constexpr std::uint64_t kMinMemlockBytes = 64ull << 20;  // the probe's largest buffer

std::string pcie_text(const std::optional<double>& gts, const std::optional<unsigned>& width) {
    if (!gts || !width) return "";
    char b[48];
    std::snprintf(b, sizeof b, "%g GT/s x%u", *gts, *width);
    return b;
}

/// The link of the chain with the lowest current bandwidth, when it runs below its maximum.
std::string limiting_link(const std::vector<PcieLink>& chain) {
    const PcieLink* worst = nullptr;
    double worst_gbps = 0;
    for (const auto& l : chain) {
        if (!l.current_speed_gts || !l.current_width) continue;
        const double g = pcie_link_gbps(*l.current_speed_gts, *l.current_width);
        if (!worst || g < worst_gbps) worst = &l, worst_gbps = g;
    }
    if (!worst || !worst->max_speed_gts || !worst->max_width) return "";
    const bool below = *worst->current_speed_gts < *worst->max_speed_gts ||
                       *worst->current_width < *worst->max_width;
    return below ? worst->bdf : "";
}

/// The inventory_reply (probes/responder/control_inventory.h) as the report's host entry.
Result<InventoryHost> host_from_reply(const std::string& name, const wire::InventoryReply& r) {
    auto snap = snapshot_from_json(r.snapshot);
    if (!snap) return snap.error();
    InventoryHost h;
    h.host = name;
    h.kernel = r.kernel;
    h.memlock_unlimited = r.memlock_unlimited;
    h.memlock_limit_bytes = r.memlock_limit_bytes;
    for (const Device& d : snap->devices) {
        if (d.name != r.device) continue;
        for (const Port& p : d.ports) {
            if (p.number != r.port) continue;
            InventoryNic n;
            n.device = d.name;
            n.port = p.number;
            n.netdev = p.netdev_name;
            n.firmware = d.fw_ver;
            if (!d.pcie.empty()) {
                const PcieLink& f = d.pcie.front();
                n.pcie_current = pcie_text(f.current_speed_gts, f.current_width);
                n.pcie_max = pcie_text(f.max_speed_gts, f.max_width);
                if (f.numa_node) n.numa_node = *f.numa_node;
                n.pcie_limited_by = limiting_link(d.pcie);
            }
            if (p.netdev) {
                if (p.netdev->mtu_bytes) n.netdev_mtu_bytes = *p.netdev->mtu_bytes;
                n.pfc_priorities = pfc_priorities(p.netdev->dcb);  // rules/fabric_consistency.h
                n.ecn_priorities = ecn_priorities(p.netdev->qos);
                n.trust = p.netdev->qos.trust;
            }
            if (p.verbs.active_mtu_bytes) n.active_mtu_bytes = *p.verbs.active_mtu_bytes;
            n.link_gbps = parse_port_rate_gbps(p.rate);
            n.gid_index = r.gid_index;
            for (const Gid& g : p.gids)
                if (g.index == *n.gid_index)
                    n.roce_version = g.type == "RoCE v2"                      ? "v2"
                                     : g.type.find("v1") != std::string::npos ? "v1"
                                                                              : "";
            h.nics.push_back(std::move(n));
        }
    }
    return h;
}

}  // namespace

Stage run_inventory_stage(RunContext& cx) {
    Stage st = begin_stage(StageId::inventory, cx);
    InventoryResults res;
    std::vector<std::string> unreachable;
    nlohmann::json raw = nlohmann::json::object();
    const auto& hosts = cx.spec.hosts;
    for (std::size_t i = 0; i < hosts.size() && !cx.stopping(); ++i) {
        cx.progress.update("inventory", hosts[i].name, 100.0 * i / hosts.size());
        auto r =
            control_call(hosts[i].address, {{"cmd", "inventory"}, {"host", hosts[i].name}},
                         "inventory_reply", 30000, wire::parse_inventory_reply, &cx.stop.requested);
        if (!r && cx.stopping()) break;  // not the host's fault: the run was stopped
        if (!r) {
            unreachable.push_back(hosts[i].name);
            st.reason +=
                (st.reason.empty() ? "" : "; ") + hosts[i].name + ": " + r.error().message();
            continue;
        }
        for (auto& line : r->samples) cx.samples.push_back(std::move(line));
        r->samples = nlohmann::json::array();
        raw[hosts[i].name] = wire::to_json(*r);
        raw[hosts[i].name].erase("samples");
        cx.name_of_hostname[r->hostname] = hosts[i].name;
        cx.version[hosts[i].name] = r->version;
        auto h = host_from_reply(hosts[i].name, *r);
        if (!h) {
            unreachable.push_back(hosts[i].name);
            st.reason += (st.reason.empty() ? "" : "; ") + hosts[i].name +
                         ": inventory unreadable: " + h.error().message();
            continue;
        }
        if (!h->nics.empty() && h->nics.front().link_gbps)
            cx.link_gbps[hosts[i].name] = *h->nics.front().link_gbps;
        res.hosts.push_back(std::move(*h));
    }
    if (cx.save("raw/inventory.json", raw.dump(2)))
        st.evidence_links.push_back({"inventory replies (JSON)", "raw/inventory.json"});
    for (const auto& f : inventory_facts(res.hosts)) res.consistency.push_back(consistency_row(f));
    for (std::size_t i = 0; i < res.consistency.size(); ++i) {
        const auto& row = res.consistency[i];
        if (!row.must_match) continue;
        std::string name = "hosts differing on " + row.fact;
        if (!row.differing_hosts.empty()) {
            name += " (";
            for (std::size_t k = 0; k < row.differing_hosts.size(); ++k)
                name += (k ? ", " : "") + row.differing_hosts[k];
            name += ")";
        }
        st.criteria.push_back(make_criterion(name, "==", 0.0, "hosts",
                                             static_cast<double>(row.differing_hosts.size()),
                                             {"/results/consistency/" + std::to_string(i)}));
    }
    double downtrained = 0, low_memlock = 0;
    for (const auto& h : res.hosts) {
        for (const auto& n : h.nics) downtrained += !n.pcie_limited_by.empty();
        low_memlock += !h.memlock_unlimited &&
                       (!h.memlock_limit_bytes || *h.memlock_limit_bytes < kMinMemlockBytes);
    }
    st.criteria.push_back(make_criterion("NICs whose PCIe link runs below its maximum", "==", 0.0,
                                         "count", downtrained, {"/results/hosts"}));
    st.criteria.push_back(make_criterion("hosts with a memlock limit below 64 MiB", "==", 0.0,
                                         "hosts", low_memlock, {"/results/hosts"}));
    finish_stage(st, cx, std::move(res));
    // A host whose responder did not answer was not checked: the stage is incomplete (error),
    // unless what was read already fails.
    if (!unreachable.empty() && st.verdict == StageVerdict::pass) {
        st.verdict = StageVerdict::error;
        st.reason = "not every host's inventory could be read: " + st.reason;
    }
    return st;
}

}  // namespace rh::accept

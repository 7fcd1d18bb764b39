#include "rules/joblog/log_qos.h"

#include <map>
#include <set>

#include "core/gid_addr.h"
#include "core/inventory/inventory.h"
#include "rules/joblog/log_rule_ids.h"

namespace rh {

namespace joblog_rules {

std::optional<unsigned> roce_priority(const std::string& trust, const std::vector<DcbApp>& apps,
                                      std::optional<unsigned> tc, std::optional<unsigned> sl) {
    if (trust == "dscp") {
        if (!tc) return std::nullopt;
        const unsigned dscp = (*tc >> 2) & 63;
        constexpr std::uint8_t kSelectorDscp = 5;  // IEEE 802.1Qcd DSCP selector
        for (const DcbApp& a : apps)
            if (a.selector == kSelectorDscp && a.protocol == dscp) return a.priority;
        return dscp >> 3;
    }
    return sl.value_or(0);
}

}  // namespace joblog_rules

namespace {

std::optional<unsigned> setting(const LogEvent& e, const char* name) {
    const auto it = e.settings.find(name);
    if (it == e.settings.end()) return std::nullopt;
    try {
        return static_cast<unsigned>(std::stoul(it->second));
    } catch (...) {
        return std::nullopt;
    }
}

/// The tx bytes of priority `prio` on `host`'s `netdev` rose within the data.
bool prio_tx_rises(const SeriesStore& store, const std::string& host, const std::string& netdev,
                   unsigned prio, std::string& source) {
    for (const Series* s : store.find("priority_bytes")) {
        const Labels& l = s->key.labels;
        if (s->key.host != host) continue;
        const auto p = l.find("priority"), d = l.find("direction"), n = l.find("netdev");
        if (p == l.end() || p->second != std::to_string(prio)) continue;
        if (d == l.end() || d->second != "tx") continue;
        if (n != l.end() && !netdev.empty() && n->second != netdev) continue;
        if (s->points.size() < 2) continue;
        const auto a = s->points[0].count(), b = s->points.back().count();
        if (a && b && *b > *a) {
            source = s->meta(s->points.back()).source;
            return true;
        }
    }
    return false;
}

/// Per host: the traffic class, SL and GID index the job used, and the line that says so.
struct Used {
    std::optional<unsigned> tc, sl, gid_index;
    std::string device, source, text;
    unsigned port = 0;
    std::string local_gid, gid_source, gid_text;  ///< the GID an error line says it used
};

/// What each host's job used, from its log events (the first line that says each).
std::map<std::string, Used> used_by_host(const std::vector<SeriesStore::PlacedLogEvent>& events) {
    std::map<std::string, Used> used;
    for (const auto& e : events) {
        if (e.host.empty()) continue;
        Used& u = used[e.host];
        const auto take = [&](std::optional<unsigned>& dst, std::optional<unsigned> v) {
            if (v && !dst) {
                dst = v;
                u.source = e.event.source;
                u.text = e.event.text;
            }
        };
        take(u.tc, e.event.traffic_class ? e.event.traffic_class : setting(e.event, "NCCL_IB_TC"));
        take(u.sl, e.event.sl ? e.event.sl : setting(e.event, "NCCL_IB_SL"));
        take(u.gid_index,
             e.event.gid_index ? e.event.gid_index : setting(e.event, "NCCL_IB_GID_INDEX"));
        if (u.local_gid.empty() && !e.event.local_gid.empty()) {
            u.local_gid = e.event.local_gid;
            u.gid_source = e.event.source;
            u.gid_text = e.event.text;
        }
        if (u.device.empty() && !e.event.device.empty() &&
            (e.event.kind == "using_device" || e.event.kind == "completion_error")) {
            u.device = e.event.device;
            u.port = e.event.port;
        }
    }
    return used;
}

/// job_traffic_class on port `p` of `d`: the job's traffic class or SL maps to a priority
/// without PFC while PFC protects another; nullopt otherwise.
std::optional<Finding> traffic_class_finding(const SeriesStore& store, const std::string& host,
                                             const Used& u, const Device& d, const Port& p) {
    const Netdev& nd = *p.netdev;
    // Traffic class against PFC: only where PFC protects some priority.
    if ((u.tc || u.sl) && nd.dcb && nd.dcb->pfc_enabled && *nd.dcb->pfc_enabled) {
        const auto prio = joblog_rules::roce_priority(nd.qos.trust, nd.dcb->apps, u.tc, u.sl);
        if (prio && !((*nd.dcb->pfc_enabled >> *prio) & 1)) {
            std::string enabled;
            for (unsigned q = 0; q < 8; ++q)
                if ((*nd.dcb->pfc_enabled >> q) & 1)
                    enabled += (enabled.empty() ? "" : ",") + std::to_string(q);
            std::string tx_source;
            const bool seen = prio_tx_rises(store, host, nd.name, *prio, tx_source);
            Finding f = make_finding("job_traffic_class", log_rule("job_traffic_class").severity,
                                     host, d.name, p.number);
            const std::string trust = nd.qos.trust.empty() ? "pcp" : nd.qos.trust;
            f.summary = host + " " + d.name + " port " + std::to_string(p.number) + " (" + nd.name +
                        "): the job's RoCE traffic runs on priority " + std::to_string(*prio) +
                        ", which has no PFC (PFC is on priority " + enabled + "): " +
                        (trust == "dscp"
                             ? "traffic class " + std::to_string(u.tc.value_or(0)) + " is DSCP " +
                                   std::to_string(u.tc.value_or(0) >> 2) + " under DSCP trust"
                             : "under PCP trust the QP's service level " +
                                   std::to_string(u.sl.value_or(0)) +
                                   " gives the priority (and reaches the wire only with a "
                                   "VLAN tag)") +
                        "; set the traffic class to DSCP x 4 of the lossless priority "
                        "(priority 3 with the default dscp2prio: NCCL_IB_TC=104 or 106)" +
                        (seen ? "" : " (not confirmed: no per-priority tx bytes in the data)");
            f.evidence.push_back({"job setting", u.text, "", u.source});
            f.evidence.push_back({"trust", trust, "", nd.qos.trust_source});
            f.evidence.push_back({"pfc_enabled priorities", enabled, "", nd.dcb->source});
            if (seen)
                f.evidence.push_back({"tx bytes on priority " + std::to_string(*prio), "rising",
                                      "bytes", tx_source});
            f.confidence = seen ? "high" : "medium";
            return f;
        }
    }
    return std::nullopt;
}

/// job_gid_index on port `p` of `d`: the GID the job used (its index, or the local GID an
/// error line prints) is RoCE v1 or link-local, or not in the table; nullopt otherwise.
std::optional<Finding> gid_finding(const std::string& host, const Used& u, const Device& d,
                                   const Port& p) {
    // The GID the job used (its index, or the local GID an error line prints)
    // against the GID table: a RoCE v1 or link-local GID is not routed.
    if ((u.gid_index || !u.local_gid.empty()) && !p.gids.empty()) {
        const Gid* g = nullptr;
        const auto used_bytes = gid_bytes(u.local_gid);
        for (const Gid& x : p.gids) {
            if (u.gid_index && x.index == *u.gid_index) g = &x;
            if (!u.gid_index && used_bytes && gid_bytes(x.gid) == used_bytes) g = &x;
        }
        if (!u.gid_index && !g) return std::nullopt;  // another port's GID
        if (!g && !p.gids_unavailable.empty()) return std::nullopt;
        const bool v1 = g && g->type.find("v2") == std::string::npos;
        const auto gb = g ? gid_bytes(g->gid) : std::nullopt;
        if (g && !v1 && !(gb && is_link_local(*gb))) return std::nullopt;
        Finding f = make_finding("job_gid_index", log_rule("job_gid_index").severity, host, d.name,
                                 p.number);
        const std::string which =
            u.gid_index
                ? "GID index " + std::to_string(*u.gid_index)
                : "GID " + u.local_gid + (g ? " (index " + std::to_string(g->index) + ")" : "");
        f.summary = host + " " + d.name + " port " + std::to_string(p.number) + ": the job uses " +
                    which +
                    (g ? ", a " + (g->type.empty() ? std::string("link-local") : g->type) +
                             " GID (" + g->gid +
                             "): RoCE v1 and link-local GIDs are not routed and carry no "
                             "DSCP; set NCCL_IB_GID_INDEX (UCX_IB_GID_INDEX) to the index "
                             "of the RoCE v2 GID of the port's IP (NCCL up to 2.20 uses "
                             "index 0 when it is unset)"
                       : ", which the port's GID table does not hold");
        f.evidence.push_back({"job's GID", u.gid_index ? u.text : u.gid_text, "",
                              u.gid_index ? u.source : u.gid_source});
        if (g)
            f.evidence.push_back({"GID " + std::to_string(g->index), g->gid + " " + g->type, "",
                                  p.sources.count("gids") ? p.sources.at("gids") : std::string{}});
        f.confidence = "high";
        return f;
    }
    return std::nullopt;
}

}  // namespace

void qos_findings(const SeriesStore& store, EngineResult& result,
                  const std::vector<SeriesStore::PlacedLogEvent>& events) {
    for (const auto& [host, u] : used_by_host(events)) {
        if (!u.tc && !u.sl && !u.gid_index && u.local_gid.empty()) continue;
        const auto inv = store.inventories().find(host);
        if (inv == store.inventories().end()) continue;
        const Snapshot* snap = inv->second.snapshot.get();
        if (!snap) continue;
        for (const Device& d : snap->devices)
            for (const Port& p : d.ports) {
                if (!u.device.empty() && (d.name != u.device || (u.port && p.number != u.port)))
                    continue;
                if (!p.netdev) continue;
                if (auto f = traffic_class_finding(store, host, u, d, p))
                    result.findings.push_back(std::move(*f));
                if (auto f = gid_finding(host, u, d, p)) result.findings.push_back(std::move(*f));
            }
    }
}

}  // namespace rh

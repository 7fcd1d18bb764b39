// roce_mtu: the RoCE MTU a port can use is the largest IB MTU that fits in its netdev MTU minus
// 96 bytes of headers, capped by the port's max_mtu. Two findings:
//  - local: active_mtu (or, without verbs, what the netdev MTU allows) is below the port's best
//    (4096 or max_mtu): every message is cut in more, smaller packets — raise the netdev MTU;
//  - peer (`check --peer`): local and remote active_mtu differ, so QPs between them run at the
//    smaller one (path_mtu = min), and a path sized for the larger one drops frames.
// Source: `class/net/<if>/mtu` or rtnetlink, `ibv_query_port` (active_mtu, max_mtu), the peer's
// handshake.
#include "rules/evidence_format.h"
#include "rules/mtu_math.h"
#include "rules/port_usage.h"
#include "rules/rule.h"

namespace rh {

namespace {

std::string bytes(unsigned v) {
    return std::to_string(v);
}

/// active_mtu / max_mtu: the bundle line that gave it, else the verbs query.
std::string verbs_source(const Device& d, const Port& p, const char* attr) {
    if (const auto it = p.sources.find(attr); it != p.sources.end() && !it->second.empty())
        return it->second;
    return "ibv_query_port(" + d.name + ", " + std::to_string(p.number) + ")";
}

/// The netdev MTU's source: rtnetlink, `<netdev dir>/mtu` under the sysfs root, or the bundle
/// file and line the netdev was read from.
std::string mtu_source(const Snapshot& s, const Netdev& n) {
    if (n.source == "rtnetlink") return n.source;
    const std::string cited = cite_sysfs(s.sysfs_root, n.source);
    const bool sysfs_dir = s.sysfs_root.rfind("bundle:", 0) != 0 &&
                           (cited != n.source || n.source.rfind(s.sysfs_root + "/", 0) == 0);
    return sysfs_dir ? cited + "/mtu" : n.source;
}

void local_finding(const RuleInput& in, const Device& d, const Port& p, RuleOutput& out) {
    if (p.link_layer != "Ethernet") return;
    if (!p.netdev || !p.netdev->mtu_bytes) {
        out.unevaluated.push_back(
            {port_subject(d, p), "netdev MTU unknown: cannot tell which RoCE MTU it allows"});
        return;
    }
    const unsigned netdev_mtu = *p.netdev->mtu_bytes;
    const auto allowed = ib_mtu_for_netdev_mtu(netdev_mtu);
    unsigned best = kMaxIbMtuBytes;
    if (p.verbs.max_mtu_bytes && *p.verbs.max_mtu_bytes < best) best = *p.verbs.max_mtu_bytes;
    const auto active = p.verbs.active_mtu_bytes;

    // The port already uses its best MTU: nothing to gain, whatever the arithmetic says (rxe
    // subtracts 80 header bytes, not 96, so 4180 still gives it 4096).
    if (active && *active >= best) return;
    const bool netdev_limits = !allowed || *allowed < best;
    if (!active && !netdev_limits) return;

    const std::string where = port_subject(d, p);
    const std::string& ifname = p.netdev->name;
    Finding f = check_finding("roce_mtu", in.local.host, d.name, p.number);
    if (!allowed) {
        f.outcome = "netdev_mtu_too_small";
        f.summary = where + ": " + ifname + " MTU " + bytes(netdev_mtu) +
                    " is too small for any RoCE packet (the smallest, 256 bytes, needs " +
                    bytes(256 + kRoceHeaderBytes) + "); set " + ifname + " MTU to at least " +
                    bytes(best + kRoceHeaderBytes) + " (commonly 9000).";
    } else if (netdev_limits) {
        f.summary = where + " RoCE MTU is " + (active ? "" : "at most ") +
                    bytes(active ? *active : *allowed) + " bytes because " + ifname + " MTU is " +
                    bytes(netdev_mtu) + ": set " + ifname + " MTU to at least " +
                    bytes(best + kRoceHeaderBytes) +
                    " (commonly 9000) here and along the path "
                    "to use " +
                    bytes(best) + "-byte RoCE packets.";
    } else {
        f.summary = where + " active_mtu is " + bytes(*active) + " bytes although " + ifname +
                    " MTU " + bytes(netdev_mtu) + " allows " + bytes(best) +
                    ": the port did not follow the netdev MTU change; toggle the link or reload "
                    "the RDMA driver.";
    }
    f.evidence.push_back(
        {ifname + " MTU", format_bytes(netdev_mtu), "bytes", mtu_source(in.local, *p.netdev)});
    if (active)
        f.evidence.push_back(
            {"active_mtu", format_bytes(*active), "bytes", verbs_source(d, p, "active_mtu")});
    else
        f.evidence.push_back({"RoCE MTU allowed by the netdev MTU (largest IB MTU <= MTU - 96)",
                              allowed ? format_bytes(*allowed) : "none (MTU below 352 bytes)",
                              allowed ? "bytes" : "",
                              "derived; active_mtu unavailable: " + p.verbs.unavailable});
    if (p.verbs.max_mtu_bytes)
        f.evidence.push_back({"max_mtu", format_bytes(*p.verbs.max_mtu_bytes), "bytes",
                              verbs_source(d, p, "max_mtu")});
    out.findings.push_back(std::move(f));
}

void peer_finding(const RuleInput& in, const Device& d, const Port& p, RuleOutput& out) {
    const PeerView& peer = *in.peer;
    if (p.link_layer != "Ethernet" || !p.verbs.active_mtu_bytes || !peer.active_mtu_bytes) return;
    const unsigned local = *p.verbs.active_mtu_bytes, remote = *peer.active_mtu_bytes;
    if (local == remote) return;
    const std::string peer_name = peer.hostname.empty() ? peer.peer : peer.hostname;
    Finding f = check_finding("roce_mtu", in.local.host, d.name, p.number);
    f.summary = "RoCE active_mtu differs: " + in.local.host + " " + d.name + " port " +
                std::to_string(p.number) + " has " + bytes(local) + " bytes, peer " + peer_name +
                " " + peer.device + " port " + std::to_string(peer.port) + " has " + bytes(remote) +
                " bytes: QPs between them run at path_mtu " + bytes(std::min(local, remote)) +
                "; set the same netdev MTU on both hosts "
                "(and the switch ports between them).";
    f.evidence.push_back(
        {"local active_mtu", format_bytes(local), "bytes", verbs_source(d, p, "active_mtu")});
    f.evidence.push_back({"peer active_mtu", format_bytes(remote), "bytes",
                          "handshake with responder at " + peer.peer});
    if (p.netdev && p.netdev->mtu_bytes)
        f.evidence.push_back({"local " + p.netdev->name + " MTU",
                              format_bytes(*p.netdev->mtu_bytes), "bytes",
                              mtu_source(in.local, *p.netdev)});
    out.findings.push_back(std::move(f));
}

}  // namespace

void rule_roce_mtu(const RuleInput& in, RuleOutput& out) {
    for (const auto& d : in.local.devices)
        for (const auto& p : d.ports) {
            // A port taken as not cabled carries nothing: its MTU limits no one
            // (port_not_active notes it).
            if (judge_port_usage(d, p, in.required_ports).never_cabled) continue;
            local_finding(in, d, p, out);
            if (in.peer) peer_finding(in, d, p, out);
        }
}

}  // namespace rh

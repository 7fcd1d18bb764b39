#include "agent/replay/latest_facts.h"

#include <algorithm>

namespace rh {

namespace {

void fill_port(const Port& e, Port& l) {
    const auto take_source = [&](const char* attr) {
        if (const auto it = e.sources.find(attr); it != e.sources.end())
            l.sources.try_emplace(attr, it->second);
    };
    if (!l.state_code && e.state_code) {
        l.state_code = e.state_code;
        l.state = e.state;
        take_source("state");
    }
    if (!l.phys_state_code && e.phys_state_code) {
        l.phys_state_code = e.phys_state_code;
        l.phys_state = e.phys_state;
        take_source("phys_state");
    }
    if (l.rate.empty() && !e.rate.empty()) {
        l.rate = e.rate;
        take_source("rate");
    }
    if (l.link_layer.empty() && !e.link_layer.empty()) {
        l.link_layer = e.link_layer;
        take_source("link_layer");
    }
    // A GID table is only taken when the later capture has none at all.
    if (l.gids.empty() && !l.gids_unavailable.empty() && e.gids_unavailable.empty()) {
        l.gids = e.gids;
        l.gids_unavailable.clear();
        take_source("gids");
    }
    if (l.netdev_name.empty()) l.netdev_name = e.netdev_name;
    if (!l.netdev && e.netdev) {
        l.netdev = e.netdev;
        l.netdev->ethtool_stats.clear();  // counters are the store's, at their own times
    } else if (l.netdev && e.netdev && l.netdev->name == e.netdev->name) {
        if (!l.netdev->mtu_bytes) l.netdev->mtu_bytes = e.netdev->mtu_bytes;
        if (l.netdev->operstate.empty()) l.netdev->operstate = e.netdev->operstate;
        if (!l.netdev->dcb) l.netdev->dcb = e.netdev->dcb;
    }
    if (!l.verbs.active_mtu_bytes && e.verbs.active_mtu_bytes) {
        l.verbs = e.verbs;
        take_source("active_mtu");
    }
}

}  // namespace

void fill_from_earlier(const Snapshot& earlier, Snapshot& later) {
    for (const Device& e : earlier.devices) {
        auto it = std::find_if(later.devices.begin(), later.devices.end(),
                               [&](const Device& d) { return d.name == e.name; });
        if (it == later.devices.end()) {
            later.devices.push_back(e);
            continue;
        }
        Device& l = *it;
        if (l.pcie.empty()) l.pcie = e.pcie;
        if (l.node_guid.empty()) l.node_guid = e.node_guid;
        if (l.fw_ver.empty()) l.fw_ver = e.fw_ver;
        for (const Port& ep : e.ports) {
            auto pt = std::find_if(l.ports.begin(), l.ports.end(),
                                   [&](const Port& p) { return p.number == ep.number; });
            if (pt == l.ports.end())
                l.ports.push_back(ep);
            else
                fill_port(ep, *pt);
        }
    }
}

}  // namespace rh

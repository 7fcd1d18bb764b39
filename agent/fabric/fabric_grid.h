// The time grid the fabric analyses share (agent/fabric/fabric_analysis.h): points of different
// queries meet on UTC milliseconds, a missing or NaN point is "no value" (never 0), hosts and
// ToRs come from rocehealth_host_info, and a condition "holds" as a rule's `for:` does.
// Internal to rh_fabric.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "agent/fabric/fabric_analysis.h"

namespace rh::fabric::detail {

using TimeKey = std::int64_t;  ///< UTC milliseconds: points of different queries meet on it

inline TimeKey key_of(double t_s) {
    return std::llround(t_s * 1000);
}

inline double seconds_of(TimeKey k) {
    return static_cast<double>(k) / 1000;
}

/// A series' values by time, NaN points left out (no value is never 0).
using Values = std::map<TimeKey, double>;

inline Values values_of(const PromSeries& s) {
    Values v;
    for (const PromPoint& p : s.points)
        if (!std::isnan(p.value)) v[key_of(p.t_s)] = p.value;
    return v;
}

inline std::optional<double> at(const Values& v, TimeKey t) {
    const auto it = v.find(t);
    if (it == v.end()) return std::nullopt;
    return it->second;
}

inline std::string label(const Labels& l, const std::string& k) {
    const auto it = l.find(k);
    return it == l.end() ? "" : it->second;
}

inline std::string number_text(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

inline std::string percent_text(double share) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.1f", share * 100);
    return buf;
}

/// Host name and ToR of each instance, from rocehealth_host_info (its last labels win).
/// tor_of_host maps a peer's host name to its ToR; a name that agents under more than one ToR
/// claim (a cloned image's) is in cloned_hosts instead, with those ToRs: its ToR is unknown, as
/// in the fabric rules' peer map.
struct Topology {
    std::map<std::string, std::string> host_of_instance, tor_of_instance, tor_of_host;
    std::map<std::string, std::set<std::string>> cloned_hosts;

    std::string host(const std::string& instance) const {
        const auto it = host_of_instance.find(instance);
        return it == host_of_instance.end() || it->second.empty() ? instance : it->second;
    }
    std::string tor(const std::string& instance) const {
        const auto it = tor_of_instance.find(instance);
        return it == tor_of_instance.end() ? "" : it->second;
    }
};

inline Topology topology_of(const std::vector<PromSeries>& host_info) {
    Topology topo;
    std::map<std::string, std::set<std::string>> tors_of_host;
    for (const PromSeries& s : host_info) {
        const std::string inst = label(s.labels, "instance");
        if (inst.empty()) continue;
        topo.host_of_instance[inst] = label(s.labels, "host");
        topo.tor_of_instance[inst] = label(s.labels, "tor");
        if (!label(s.labels, "host").empty())
            tors_of_host[label(s.labels, "host")].insert(label(s.labels, "tor"));
    }
    for (auto& [host, tors] : tors_of_host)
        if (tors.size() == 1)
            topo.tor_of_host[host] = *tors.begin();
        else
            topo.cloned_hosts[host] = std::move(tors);
    return topo;
}

inline TimelineEvent event_at(TimeKey t, std::string host, std::string what, std::string value,
                              std::string unit, std::string source) {
    TimelineEvent e;
    e.t = seconds_of(t);
    e.wall_ms = t;
    e.host = std::move(host);
    e.what = std::move(what);
    e.value = std::move(value);
    e.unit = std::move(unit);
    e.source = std::move(source);
    return e;
}

inline void open_finding(Finding& f, TimeKey opened, std::optional<TimeKey> closed) {
    f.opened_t = seconds_of(opened);
    f.opened_wall_ms = opened;
    f.closed_t = closed ? seconds_of(*closed) : 0;
    f.closed_wall_ms = closed ? *closed : 0;
    f.episodes = 1;
}

/// Tracks one condition over the time grid: when it started holding, whether it has held for
/// `hold_s` (the rules' `for:`), and when it stopped after that.
struct HeldCondition {
    std::optional<TimeKey> run_start, fired_at, stopped;
    void step(TimeKey t, bool holds, double hold_s) {
        if (!holds) {
            if (fired_at && !stopped) stopped = t;
            if (!fired_at) run_start.reset();
            return;
        }
        if (!run_start) run_start = t;
        if (!fired_at && seconds_of(t - *run_start) >= hold_s) fired_at = t;
    }
};

}  // namespace rh::fabric::detail

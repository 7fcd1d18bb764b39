// Pause storm: origin and victims (rules group rocehealth-fabric-pause).

#include <algorithm>
#include <set>

#include "agent/fabric/fabric_parts.h"

namespace rh::fabric::detail {

namespace {

struct PauseHost {
    Values rx, tx;
    HeldCondition origin;
    double max_tx = 0, max_rx_at_origin = 0;
    std::optional<TimeKey> victim_since;  ///< first time paused while an origin existed
    double victim_rx = 0;
};

/// (priority, instance) -> its rx/tx shares and state.
using PauseHosts = std::map<std::pair<std::string, std::string>, PauseHost>;

/// The pause shares by (priority, instance), and every time any of them has a value.
PauseHosts collect_pause(const FabricSeries& in, std::set<TimeKey>& times) {
    PauseHosts hosts;
    for (const PromSeries& s : in.pause_fraction) {
        const std::string dir = label(s.labels, "direction");
        if (dir != "rx" && dir != "tx") continue;
        auto& h = hosts[{label(s.labels, "priority"), label(s.labels, "instance")}];
        (dir == "rx" ? h.rx : h.tx) = values_of(s);
        for (const auto& [t, v] : dir == "rx" ? h.rx : h.tx) times.insert(t);
    }
    return hosts;
}

/// One step of the grid: each host's origin condition, then the victims of this step's origins.
void step_pause(PauseHosts& hosts, TimeKey t, const FabricThresholds& th) {
    std::set<std::string> priorities_with_origin;
    for (auto& [key, h] : hosts) {
        const auto tx = at(h.tx, t), rx = at(h.rx, t);
        const bool origin =
            tx && *tx > th.origin_tx_fraction && !(rx && *rx > th.origin_rx_fraction_max);
        h.origin.step(t, origin, th.hold_s);
        if (origin) {
            priorities_with_origin.insert(key.first);
            h.max_tx = std::max(h.max_tx, *tx);
            h.max_rx_at_origin = std::max(h.max_rx_at_origin, rx.value_or(0));
        }
    }
    for (auto& [key, h] : hosts) {
        const auto rx = at(h.rx, t);
        if (!h.victim_since && rx && *rx > th.victim_rx_fraction &&
            priorities_with_origin.count(key.first)) {
            h.victim_since = t;
            h.victim_rx = *rx;
        }
    }
}

/// The victims of the origin `instance` on `priority` into its finding's timeline, in time
/// order; returns their host names ("a, b") and sets `tor_list` to "T: n, ..." per ToR.
std::string add_pause_victims(Finding& f, const PauseHosts& hosts, const Topology& topo,
                              const std::string& priority, const std::string& instance,
                              std::size_t& count, std::string& tor_list) {
    const std::string host = topo.host(instance);
    std::vector<std::pair<TimeKey, std::string>> victims;
    std::map<std::string, int> per_tor;
    for (const auto& [vkey, v] : hosts) {
        if (vkey.first != priority || !v.victim_since || vkey.second == instance) continue;
        const std::string vtor = topo.tor(vkey.second);
        victims.emplace_back(*v.victim_since, vkey.second);
        ++per_tor[vtor.empty() ? "(no tor)" : vtor];
    }
    std::sort(victims.begin(), victims.end());
    std::string victim_list;
    for (const auto& [t, vinst] : victims) {
        const std::string vtor = topo.tor(vinst);
        const PauseHost& v = hosts.at({priority, vinst});
        TimelineEvent e =
            event_at(t, topo.host(vinst),
                     "paused on priority " + priority + " by the storm from " + host +
                         (vtor.empty() ? "" : " (victim under ToR " + vtor + ")"),
                     percent_text(v.victim_rx), "%", "rocehealth_pfc_pause_duration_seconds_total");
        e.labels = {{"priority", priority}};
        if (!vtor.empty()) e.labels["tor"] = vtor;
        f.timeline.push_back(std::move(e));
        victim_list += (victim_list.empty() ? "" : ", ") + topo.host(vinst);
    }
    for (const auto& [t2, n] : per_tor)
        tor_list += (tor_list.empty() ? "" : ", ") + t2 + ": " + std::to_string(n);
    count = victims.size();
    return victim_list;
}

/// The finding of the origin `key` (priority, instance) whose condition held: the origin, then
/// its victims.
Finding pause_finding(const std::pair<std::string, std::string>& key, const PauseHost& h,
                      const PauseHosts& hosts, const Topology& topo, const FabricThresholds& th) {
    const auto& [priority, instance] = key;
    const std::string host = topo.host(instance), tor = topo.tor(instance);
    Finding f = make_finding("fabric_pause_storm_origin", Severity::error, host, "", 0);
    f.labels = {{"priority", priority}};
    if (!tor.empty()) f.labels["tor"] = tor;
    open_finding(f, *h.origin.run_start, h.origin.stopped);
    f.timeline.push_back(event_at(*h.origin.run_start, host,
                                  "started sending PFC pause on priority " + priority +
                                      " while not paused itself: origin of the storm",
                                  percent_text(h.max_tx), "%",
                                  "rocehealth_pfc_pause_duration_seconds_total"));
    f.timeline.back().labels = f.labels;
    std::size_t victims = 0;
    std::string tor_list;
    const std::string victim_list =
        add_pause_victims(f, hosts, topo, priority, instance, victims, tor_list);
    f.summary = host + (tor.empty() ? "" : " (ToR " + tor + ")") +
                " started a PFC pause storm on priority " + priority + ": it sent pause " +
                percent_text(h.max_tx) + " % of the time while paused under " +
                percent_text(th.origin_rx_fraction_max) + " % itself, and " +
                std::to_string(victims) + " host(s) were paused after it";
    f.evidence.push_back({"pause_tx_share_max", percent_text(h.max_tx), "%",
                          "rate(rocehealth_pfc_pause_duration_seconds_total{direction=\"tx\"})"});
    f.evidence.push_back({"pause_rx_share_max_while_origin", percent_text(h.max_rx_at_origin), "%",
                          "rate(rocehealth_pfc_pause_duration_seconds_total{direction=\"rx\"})"});
    f.evidence.push_back(
        {"victims_in_time_order", victim_list.empty() ? "none" : victim_list, "",
         "hosts paused > " + percent_text(th.victim_rx_fraction) + " % while the origin held"});
    if (!tor_list.empty())
        f.evidence.push_back({"victims_per_tor", tor_list, "", "rocehealth_host_info{tor}"});
    f.explanation =
        "A host is an endpoint: it pauses its switch because its own receive buffers are full "
        "(slow receiver, PCIe, a NIC in trouble), so the storm starts there and spreads to "
        "the hosts whose traffic shares the paused links. Fix the origin; the others are "
        "victims (rules: RocehealthPauseStormOrigin, RocehealthPauseStormBlastRadius).";
    f.confidence = "high";
    f.confidence_reason =
        "the origin condition held for " + number_text(th.hold_s) + " s, the rule's `for`";
    return f;
}

/// Why the pause rule had too little input to be judged ("" when it had enough): it needs a
/// host's rx and tx shares (the origin sends pause while not paused itself) over at least the
/// rule's hold. From the raw source, the pairs with both come from the shares themselves; from
/// the recorded source (which sends only nonzero shares) from its count of pairs with both
/// recorded. No input at all is analyse_fabric's "no host exported" instead.
std::string pause_too_little(const FabricSeries& in, const PauseHosts& hosts,
                             std::set<TimeKey> times, const FabricThresholds& th) {
    std::size_t both = 0, pairs = hosts.size();
    if (!in.pause_pairs_reporting.empty()) {
        times.clear();
        pairs = 0;
        for (const PromSeries& s : in.pause_pairs_reporting)
            for (const auto& [t, n] : values_of(s)) {
                times.insert(t);
                pairs = std::max(pairs, static_cast<std::size_t>(std::max(0.0, n)));
            }
        both = pairs;
    } else if (in.pause_fraction.empty()) {
        return "";
    } else {
        for (const auto& [key, h] : hosts) both += !h.rx.empty() && !h.tx.empty();
    }
    const double span_s = times.empty() ? 0 : seconds_of(*times.rbegin() - *times.begin());
    if (both > 0 && span_s >= th.hold_s) return "";
    return "too little input: pause shares of " + std::to_string(pairs) +
           " host/priority pair(s), " + std::to_string(both) + " with both rx and tx, over " +
           number_text(span_s) +
           " s of points; the rule needs a host's rx and tx (it sends "
           "pause while not paused itself) over at least " +
           number_text(th.hold_s) + " s (its hold)";
}

}  // namespace

void analyse_pause(const FabricSeries& in, const Topology& topo, const FabricThresholds& th,
                   FabricResult& out) {
    std::set<TimeKey> times;
    PauseHosts hosts = collect_pause(in, times);
    for (const TimeKey t : times) step_pause(hosts, t, th);
    bool found = false;
    for (const auto& [key, h] : hosts)
        if (h.origin.fired_at) {
            out.findings.push_back(pause_finding(key, h, hosts, topo, th));
            found = true;
        }
    // A finding is a judgement (one rule, one state), even from a tx share alone.
    if (const std::string why = pause_too_little(in, hosts, times, th); !why.empty() && !found)
        out.not_judged.push_back({"fabric_pause_storm_origin", why});
}

}  // namespace rh::fabric::detail

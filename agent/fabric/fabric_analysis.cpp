#include "agent/fabric/fabric_analysis.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "core/host_facts.h"
#include "core/series_catalog.h"

namespace rh::fabric {

namespace {

using TimeKey = std::int64_t;  ///< UTC milliseconds: points of different queries meet on it

TimeKey key_of(double t_s) {
    return std::llround(t_s * 1000);
}

double seconds_of(TimeKey k) {
    return static_cast<double>(k) / 1000;
}

/// A series' values by time, NaN points left out (no value is never 0).
using Values = std::map<TimeKey, double>;

Values values_of(const PromSeries& s) {
    Values v;
    for (const PromPoint& p : s.points)
        if (!std::isnan(p.value)) v[key_of(p.t_s)] = p.value;
    return v;
}

std::optional<double> at(const Values& v, TimeKey t) {
    const auto it = v.find(t);
    if (it == v.end()) return std::nullopt;
    return it->second;
}

std::string label(const Labels& l, const std::string& k) {
    const auto it = l.find(k);
    return it == l.end() ? "" : it->second;
}

std::string number_text(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

std::string percent_text(double share) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.1f", share * 100);
    return buf;
}

/// Host name and ToR of each instance, from rocehealth_host_info (its last labels win).
struct Topology {
    std::map<std::string, std::string> host_of_instance, tor_of_instance, tor_of_host;

    std::string host(const std::string& instance) const {
        const auto it = host_of_instance.find(instance);
        return it == host_of_instance.end() || it->second.empty() ? instance : it->second;
    }
    std::string tor(const std::string& instance) const {
        const auto it = tor_of_instance.find(instance);
        return it == tor_of_instance.end() ? "" : it->second;
    }
};

Topology topology_of(const std::vector<PromSeries>& host_info) {
    Topology topo;
    for (const PromSeries& s : host_info) {
        const std::string inst = label(s.labels, "instance");
        if (inst.empty()) continue;
        topo.host_of_instance[inst] = label(s.labels, "host");
        topo.tor_of_instance[inst] = label(s.labels, "tor");
        if (!label(s.labels, "host").empty())
            topo.tor_of_host[label(s.labels, "host")] = label(s.labels, "tor");
    }
    return topo;
}

TimelineEvent event_at(TimeKey t, std::string host, std::string what, std::string value,
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

void open_finding(Finding& f, TimeKey opened, std::optional<TimeKey> closed) {
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

// ------------------------------------------------------------------------------------------
// Pause storm: origin and victims (rules group rocehealth-fabric-pause).

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
/// rule's hold. No input at all is analyse_fabric's "no host exported" instead.
std::string pause_too_little(const FabricSeries& in, const PauseHosts& hosts,
                             const std::set<TimeKey>& times, const FabricThresholds& th) {
    if (in.pause_fraction.empty()) return "";
    std::size_t both = 0;
    for (const auto& [key, h] : hosts) both += !h.rx.empty() && !h.tx.empty();
    const double span_s = times.empty() ? 0 : seconds_of(*times.rbegin() - *times.begin());
    if (both > 0 && span_s >= th.hold_s) return "";
    return "too little input: pause shares of " + std::to_string(hosts.size()) +
           " host/priority pair(s), " + std::to_string(both) + " with both rx and tx, over " +
           number_text(span_s) +
           " s of points; the rule needs a host's rx and tx (it sends "
           "pause while not paused itself) over at least " +
           number_text(th.hold_s) + " s (its hold)";
}

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

// ------------------------------------------------------------------------------------------
// ToR localisation from the mesh (rules group rocehealth-fabric-mesh).

struct PairRows {
    std::string src_instance, dst_label, dst_tor;  ///< dst_label: the peer or "ToR T"
    std::vector<Values> errors;
    std::vector<std::pair<std::string, Values>> p50;  ///< (median group, values)
    std::optional<TimeKey> bad_since;
    std::string why;  ///< "failed" or "slow"
    double value = 0;
};

/// The mesh's rows as pairs between ToRs, and what the medians are taken over.
struct MeshInput {
    std::map<std::pair<std::string, std::string>, PairRows> pairs;  // (instance, dst) -> rows
    std::set<std::string> unknown_peers;
    std::map<std::string, std::vector<const Values*>> groups;  // median group -> series
    std::vector<Values> p50_store;                             // what `groups` points into
    std::set<TimeKey> times;                                   // every time a pair has a value
};

/// Fills `m` (in place: `groups` points into `p50_store`).
void collect_mesh(const FabricSeries& in, const Topology& topo, MeshInput& m) {
    // Instances with per-destination-ToR rows run the topology-aware mesh (mesh.peers_file):
    // their per-peer rows are their own ToR's peers, named by address (agent/daemon/README.md),
    // never between ToRs, so an address there is no unknown peer worth a note.
    std::set<std::string> tor_mesh_instances;
    for (const auto* rows : {&in.probe_errors, &in.probe_p50_s})
        for (const PromSeries& s : *rows)
            if (s.labels.count("dst_tor")) tor_mesh_instances.insert(label(s.labels, "instance"));
    // Returns the pair of a row, or nullptr when its ends' ToRs are unknown or the same.
    auto pair_of = [&](const Labels& l) -> PairRows* {
        const std::string inst = label(l, "instance"), src_tor = topo.tor(inst);
        std::string dst_tor = label(l, "dst_tor"), dst = "ToR " + dst_tor;
        if (dst_tor.empty()) {
            std::string peer = label(l, "peer");
            dst = peer.substr(0,
                              peer.rfind(':') == std::string::npos ? peer.size() : peer.rfind(':'));
            const auto it = topo.tor_of_host.find(dst);
            if (it == topo.tor_of_host.end()) {
                if (!peer.empty() && !tor_mesh_instances.count(inst)) m.unknown_peers.insert(peer);
                return nullptr;
            }
            dst_tor = it->second;
        }
        if (src_tor.empty() || dst_tor.empty() || src_tor == dst_tor) return nullptr;
        PairRows& p = m.pairs[{inst, dst}];
        p.src_instance = inst;
        p.dst_label = dst;
        p.dst_tor = dst_tor;
        return &p;
    };
    for (const PromSeries& s : in.probe_errors)
        if (PairRows* p = pair_of(s.labels)) p->errors.push_back(values_of(s));
    const auto group_of = [](const Labels& l) {
        return (l.count("dst_tor") ? "tor/" : "peer/") + label(l, "op") + "/" +
               label(l, "size_bytes");
    };
    for (const PromSeries& s : in.probe_p50_s) {
        Values v = values_of(s);
        for (auto it = v.begin(); it != v.end();) it = it->second < 0 ? v.erase(it) : ++it;
        m.p50_store.push_back(v);
        if (PairRows* p = pair_of(s.labels)) p->p50.emplace_back(group_of(s.labels), std::move(v));
    }
    // The fabric's median per group counts every pair, inside ToRs too (as the rule does).
    for (std::size_t i = 0; i < in.probe_p50_s.size(); ++i)
        m.groups[group_of(in.probe_p50_s[i].labels)].push_back(&m.p50_store[i]);
    for (const auto& [k, p] : m.pairs) {
        for (const Values& v : p.errors)
            for (const auto& [t, x] : v) m.times.insert(t);
        for (const auto& [g, v] : p.p50)
            for (const auto& [t, x] : v) m.times.insert(t);
    }
}

/// The fabric's median p50 per group at `t` (Prometheus' quantile(0.5)).
std::map<std::string, double> medians_at(const MeshInput& m, TimeKey t) {
    std::map<std::string, double> median;
    for (const auto& [g, series] : m.groups) {
        std::vector<double> xs;
        for (const Values* v : series)
            if (auto x = at(*v, t)) xs.push_back(*x);
        if (xs.empty()) continue;
        std::sort(xs.begin(), xs.end());
        // Prometheus' quantile(0.5): linear interpolation between the middle ranks.
        const double rank = 0.5 * static_cast<double>(xs.size() - 1);
        const auto lo = static_cast<std::size_t>(std::floor(rank));
        const std::size_t hi = std::min(lo + 1, xs.size() - 1);
        median[g] = xs[lo] + (xs[hi] - xs[lo]) * (rank - static_cast<double>(lo));
    }
    return median;
}

/// The pairs at one step: (bad, count) into each ToR, of the per-destination-ToR rows out of
/// each ToR, and over all ToRs.
struct MeshCounts {
    std::map<std::string, std::pair<std::size_t, std::size_t>> into;  // tor -> bad, count
    // Per-destination-ToR rows (mesh.peers_file) by their source's ToR: bad, count.
    std::map<std::string, std::pair<std::size_t, std::size_t>> tor_rows_out;
    std::size_t bad_all = 0, count_all = 0;
};

/// Judges each pair at `t` (failed, or slow against its group's median), updating when it went
/// bad, and counts them.
MeshCounts count_pairs_at(MeshInput& m, TimeKey t, const Topology& topo,
                          const FabricThresholds& th) {
    const std::map<std::string, double> median = medians_at(m, t);
    MeshCounts c;
    for (auto& [k, p] : m.pairs) {
        bool present = false, bad = false;
        for (const Values& v : p.errors)
            if (auto x = at(v, t)) {
                present = true;
                if (*x > 0) {
                    bad = true;
                    if (!p.bad_since) p.why = "failed", p.value = *x;
                }
            }
        for (const auto& [g, v] : p.p50)
            if (auto x = at(v, t)) {
                present = true;
                const auto it = median.find(g);
                if (it != median.end() && *x > th.slow_vs_median * it->second) {
                    if (!bad && !p.bad_since) p.why = "slow", p.value = *x;
                    bad = true;
                }
            }
        if (!present) continue;
        if (bad && !p.bad_since) p.bad_since = t;
        if (!bad) p.bad_since.reset();
        auto& [b, n] = c.into[p.dst_tor];
        b += bad;
        ++n;
        if (p.dst_label == "ToR " + p.dst_tor) {
            auto& [ob, on] = c.tor_rows_out[topo.tor(p.src_instance)];
            ob += bad;
            ++on;
        }
        c.bad_all += bad;
        ++c.count_all;
    }
    return c;
}

/// RocehealthTorProbesFailing's condition for `tor` at one step.
bool tor_condition(const std::string& tor, const MeshCounts& c, const FabricThresholds& th) {
    const auto& bc = c.into.at(tor);
    const double ratio = static_cast<double>(bc.first) / static_cast<double>(bc.second);
    const std::size_t other = c.count_all - bc.second;
    const auto rows_out = c.tor_rows_out.find(tor);
    const bool one_host =
        rows_out != c.tor_rows_out.end() && static_cast<double>(rows_out->second.first) /
                                                    static_cast<double>(rows_out->second.second) <=
                                                th.tor_rows_out_bad_ratio;
    return other > 0 && ratio > th.tor_bad_ratio && bc.second >= th.tor_min_pairs &&
           static_cast<double>(c.bad_all - bc.first) / static_cast<double>(other) <=
               th.elsewhere_vs_tor * ratio &&
           !one_host;
}

/// The finding for `tor` when its condition has held since `since`: the pairs bad now, each
/// with the time it went bad, are its timeline.
Finding tor_finding(const std::string& tor, const MeshCounts& c, TimeKey since, const MeshInput& m,
                    const Topology& topo, const FabricThresholds& th) {
    const auto& bc = c.into.at(tor);
    const double ratio = static_cast<double>(bc.first) / static_cast<double>(bc.second);
    const double elsewhere =
        static_cast<double>(c.bad_all - bc.first) / static_cast<double>(c.count_all - bc.second);
    Finding f = make_finding("fabric_tor_probes_failing", Severity::error, "ToR " + tor, "", 0);
    f.labels = {{"tor", tor}};
    open_finding(f, since, std::nullopt);
    std::vector<const PairRows*> bad_pairs;
    for (const auto& [k2, p] : m.pairs)
        if (p.dst_tor == tor && p.bad_since) bad_pairs.push_back(&p);
    std::sort(bad_pairs.begin(), bad_pairs.end(),
              [](const PairRows* a, const PairRows* b) { return *a->bad_since < *b->bad_since; });
    for (const PairRows* p : bad_pairs) {
        const bool failed = p->why == "failed";
        TimelineEvent e =
            event_at(*p->bad_since, topo.host(p->src_instance),
                     "probes to " + p->dst_label + " (ToR " + tor + ") " +
                         (failed ? "failed"
                                 : "slow: p50 over " + number_text(th.slow_vs_median) +
                                       "x the fabric's median"),
                     failed ? number_text(p->value) : number_text(p->value * 1e6),
                     failed ? "errors in 2 m" : "us",
                     failed ? "rocehealth_probe_errors_total"
                            : "rocehealth_probe_latency_seconds{quantile=\"0.5\"}");
        e.labels = {{"tor", tor}, {"peer", p->dst_label}};
        f.timeline.push_back(std::move(e));
    }
    f.summary = "ToR " + tor + " (or its uplinks): " + std::to_string(bc.first) + " of " +
                std::to_string(bc.second) +
                " mesh probe pairs into it from other ToRs failed or were slow (" +
                percent_text(ratio) + " %), pairs into other ToRs " + percent_text(elsewhere) +
                " %: suspect the ToR, not its hosts";
    f.evidence.push_back({"bad_pairs_into_tor", std::to_string(bc.first), "",
                          "rocehealth_probe_errors_total, rocehealth_probe_latency_seconds"});
    f.evidence.push_back(
        {"pairs_into_tor", std::to_string(bc.second), "", "pairs from hosts of other ToRs"});
    f.evidence.push_back({"bad_share_into_tor", percent_text(ratio), "%", ""});
    f.evidence.push_back({"bad_share_into_other_tors", percent_text(elsewhere), "%", ""});
    f.explanation =
        "Most pairs into one ToR fail or are slow while pairs elsewhere are fine: a "
        "dead host makes at most its own share bad, a ToR or its uplinks all of them "
        "(rule RocehealthTorProbesFailing).";
    f.confidence = "high";
    f.confidence_reason = "the condition held for " + number_text(th.hold_s) + " s over " +
                          std::to_string(bc.second) + " pairs";
    return f;
}

/// Why the ToR rule had too little input to be judged ("" when it had enough): it needs at
/// least th.tor_min_pairs pairs into one ToR from hosts under other ToRs, pairs into another
/// ToR to compare with, over at least the rule's hold. No probe series at all is
/// analyse_fabric's "no probe series" instead.
std::string mesh_too_little(const FabricSeries& in, const MeshInput& m,
                            const FabricThresholds& th) {
    if (in.probe_errors.empty() && in.probe_p50_s.empty()) return "";
    std::map<std::string, std::size_t> per_tor;
    for (const auto& [k, p] : m.pairs) ++per_tor[p.dst_tor];
    std::string most_tor;
    std::size_t most = 0;
    for (const auto& [tor, n] : per_tor)
        if (n > most) most = n, most_tor = tor;
    const double span_s = m.times.empty() ? 0 : seconds_of(*m.times.rbegin() - *m.times.begin());
    if (most >= th.tor_min_pairs && per_tor.size() >= 2 && span_s >= th.hold_s) return "";
    return "too little input: " + std::to_string(in.probe_errors.size() + in.probe_p50_s.size()) +
           " probe series gave " + std::to_string(m.pairs.size()) + " pair(s) between ToRs into " +
           std::to_string(per_tor.size()) + " ToR(s), at most " + std::to_string(most) +
           " into one" + (most_tor.empty() ? "" : " (" + most_tor + ")") + ", over " +
           number_text(span_s) + " s of points; the rule needs at least " +
           std::to_string(th.tor_min_pairs) +
           " pairs into a ToR from hosts under other ToRs, pairs into another ToR to compare "
           "with, over at least " +
           number_text(th.hold_s) +
           " s (its hold). A pair counts when rocehealth_host_info names the ToRs of both ends "
           "(peers outside --match have none)";
}

void analyse_mesh(const FabricSeries& in, const Topology& topo, const FabricThresholds& th,
                  FabricResult& out) {
    MeshInput m;
    collect_mesh(in, topo, m);
    std::map<std::string, HeldCondition> tor_state;
    bool found = false;
    for (const TimeKey t : m.times) {
        const MeshCounts c = count_pairs_at(m, t, topo, th);
        for (const auto& [tor, bc] : c.into) {
            HeldCondition& st = tor_state[tor];
            const bool fired_before = st.fired_at.has_value();
            st.step(t, tor_condition(tor, c, th), th.hold_s);
            if (st.fired_at && !fired_before) {
                out.findings.push_back(tor_finding(tor, c, *st.run_start, m, topo, th));
                found = true;
            }
            if (st.stopped)
                for (Finding& f : out.findings)
                    if (f.rule_id == "fabric_tor_probes_failing" && f.labels["tor"] == tor &&
                        f.closed_wall_ms == 0) {
                        f.closed_wall_ms = *st.stopped;
                        f.closed_t = seconds_of(*st.stopped);
                    }
        }
    }
    for (const std::string& p : m.unknown_peers)
        out.notes.push_back({"mesh peer " + p,
                             "no rocehealth_host_info names it as its host: its pairs are left "
                             "out of the ToR localisation"});
    if (const std::string why = mesh_too_little(in, m, th); !why.empty() && !found)
        out.not_judged.push_back({"fabric_tor_probes_failing", why});
}

// ------------------------------------------------------------------------------------------
// Configuration drift (rules group rocehealth-fabric-config).

/// Exported family -> the fact it carries: the facts drift judges (core/host_facts.h, each read
/// from the family of its series catalog row).
const std::map<std::string, const HostFact*>& drift_facts() {
    static const std::map<std::string, const HostFact*> facts = [] {
        std::map<std::string, const HostFact*> m;
        for (const HostFact& f : host_facts()) {
            if (f.setting.empty()) continue;
            const SeriesSpec* s = find_series(f.series);
            if (!s)
                throw std::logic_error("host_facts: no series catalog row " +
                                       std::string(f.series));
            m.emplace(std::string(s->exported), &f);
        }
        return m;
    }();
    return facts;
}

struct DriftPort {
    std::string instance, device, port, value, netdev;
    TimeKey since = 0;
};
/// (setting, priority) -> (instance, device, port) -> the port's last value.
using DriftValues =
    std::map<std::pair<std::string, std::string>, std::map<std::vector<std::string>, DriftPort>>;

/// Each port's last value of each drift setting in the range, and since when it has been that.
DriftValues last_config_values(const FabricSeries& in) {
    DriftValues by_setting;
    for (const PromSeries& s : in.port_config) {
        const auto name = drift_facts().find(label(s.labels, "__name__"));
        if (name == drift_facts().end()) continue;
        const std::string setting(name->second->setting);
        const bool trust = name->second->id == HostFactId::trust;  // the value is a label
        // The value of the last point, and since when it has been that (its trailing run).
        std::optional<std::string> last;
        TimeKey since = 0;
        for (const PromPoint& p : s.points) {
            if (std::isnan(p.value)) continue;
            const std::string v = trust ? label(s.labels, "trust") : number_text(p.value);
            if (!last || *last != v) since = key_of(p.t_s);
            last = v;
        }
        if (!last) continue;
        const std::vector<std::string> port = {label(s.labels, "instance"),
                                               label(s.labels, "device"), label(s.labels, "port")};
        DriftPort& pv = by_setting[{setting, label(s.labels, "priority")}][port];
        if (!pv.value.empty() && pv.since > since) continue;  // trust: the newest mode wins
        pv = {port[0], port[1], port[2], *last, label(s.labels, "netdev"), since};
    }
    return by_setting;
}

/// The finding of a port whose `setting` (at `priority`, or "") differs from the fabric's
/// `majority`, held by `share` ("N of M ports").
Finding drift_finding(const DriftPort& pv, const std::string& host, const std::string& setting,
                      const std::string& priority, const std::string& majority,
                      const std::string& share) {
    unsigned port_no = 0;
    for (char c : pv.port)
        port_no = c >= '0' && c <= '9' && port_no < 100000 ? port_no * 10 + (c - '0') : port_no;
    Finding f = make_finding("fabric_config_drift", Severity::warning, host, pv.device, port_no);
    f.labels = {{"setting", setting}, {"value", pv.value}, {"fabric_value", majority}};
    if (!priority.empty()) f.labels["priority"] = priority;
    open_finding(f, pv.since, std::nullopt);
    const std::string what = setting + (priority.empty() ? "" : " (priority " + priority + ")");
    f.summary = host + " " + pv.device + " port " + pv.port +
                (pv.netdev.empty() ? "" : " (" + pv.netdev + ")") + ": " + what + " is " +
                pv.value + ", the fabric's is " + majority + " (" + share + ")";
    std::string series;
    for (const auto& [name, fact] : drift_facts())
        if (fact->setting == setting) series = name;
    f.evidence.push_back({setting, pv.value, "", series});
    f.evidence.push_back({"fabric_" + setting, majority, "", share});
    TimelineEvent e = event_at(
        pv.since, host,
        what + " is " + pv.value + ", unlike the fabric (" + majority + " on " + share + ")",
        pv.value, "", f.evidence.front().source);
    e.labels = f.labels;
    f.timeline.push_back(std::move(e));
    f.explanation =
        "A lossless fabric needs the same PFC priorities and trust end to end (a mismatch "
        "drops or mis-queues RoCE), and MTU differences cap the RoCE path MTU (rule "
        "RocehealthConfigDrift). `rocehealth check` on the host shows where it was read.";
    f.confidence = "high";
    f.confidence_reason = "the port's last value in the range against " + share;
    return f;
}

void analyse_config(const FabricSeries& in, const Topology& topo, const FabricThresholds& th,
                    FabricResult& out) {
    for (const auto& [sp, ports] : last_config_values(in)) {
        const auto& [setting, priority] = sp;
        std::map<std::string, std::size_t> counts;
        for (const auto& [k, pv] : ports) ++counts[pv.value];
        std::string majority;
        for (const auto& [v, n] : counts)
            if (static_cast<double>(n) > th.config_majority * static_cast<double>(ports.size()))
                majority = v;
        if (majority.empty()) continue;  // an even split: nothing to drift from
        const std::string share =
            std::to_string(counts[majority]) + " of " + std::to_string(ports.size()) + " ports";
        for (const auto& [k, pv] : ports)
            if (pv.value != majority)
                out.findings.push_back(
                    drift_finding(pv, topo.host(pv.instance), setting, priority, majority, share));
    }
}

/// The first and last point time over every series of `in` into `out`.
void set_data_span(const FabricSeries& in, FabricResult& out) {
    std::optional<double> first, last;
    for (const auto* v :
         {&in.host_info, &in.pause_fraction, &in.probe_errors, &in.probe_p50_s, &in.port_config})
        for (const PromSeries& s : *v)
            for (const PromPoint& p : s.points) {
                if (std::isnan(p.value)) continue;
                first = std::min(first.value_or(p.t_s), p.t_s);
                last = std::max(last.value_or(p.t_s), p.t_s);
            }
    out.data_first_s = first.value_or(0);
    out.data_last_s = last.value_or(0);
}

/// Why configuration drift had too little input to be judged ("" when it had enough): a value
/// unlike the fabric's needs a majority to differ from, so some setting must be reported by
/// more than 1 / (1 - th.config_majority) ports (3 at a majority of half). No configuration
/// series at all is analyse_fabric's "no port configuration series" instead.
std::string config_too_little(const FabricSeries& in, const FabricThresholds& th) {
    if (in.port_config.empty()) return "";
    const auto need = static_cast<std::size_t>(std::floor(1 / (1 - th.config_majority))) + 1;
    // (series name, priority) -> its ports (instance, device, port)
    std::map<std::pair<std::string, std::string>, std::set<std::vector<std::string>>> ports;
    for (const PromSeries& s : in.port_config)
        ports[{label(s.labels, "__name__"), label(s.labels, "priority")}].insert(
            {label(s.labels, "instance"), label(s.labels, "device"), label(s.labels, "port")});
    std::size_t most = 0;
    for (const auto& [k, p] : ports) most = std::max(most, p.size());
    if (most >= need) return "";
    return "too little input: at most " + std::to_string(most) +
           " port(s) reported a setting; a port unlike the fabric needs a majority to differ "
           "from, so at least " +
           std::to_string(need) + " ports must report the same setting";
}

}  // namespace

FabricResult analyse_fabric(const FabricSeries& in, const FabricThresholds& th) {
    FabricResult out;
    const Topology topo = topology_of(in.host_info);
    std::set<std::string> hosts, without_info;
    for (const auto& [inst, host] : topo.host_of_instance) hosts.insert(topo.host(inst));
    for (const auto* v : {&in.pause_fraction, &in.probe_errors, &in.probe_p50_s, &in.port_config})
        for (const PromSeries& s : *v) {
            const std::string inst = label(s.labels, "instance");
            hosts.insert(topo.host(inst));
            if (!topo.host_of_instance.count(inst)) without_info.insert(inst);
        }
    set_data_span(in, out);
    for (const std::string& inst : without_info)
        out.notes.push_back({"instance " + inst,
                             "no rocehealth_host_info: named by its instance, no ToR (left out "
                             "of the ToR localisation)"});
    out.hosts.assign(hosts.begin(), hosts.end());
    analyse_pause(in, topo, th, out);
    analyse_mesh(in, topo, th, out);
    analyse_config(in, topo, th, out);
    if (in.pause_fraction.empty())
        out.not_judged.push_back(
            {"fabric_pause_storm_origin",
             "no host exported rocehealth_pfc_pause_duration_seconds_total in the range: pause "
             "storms were not judged"});
    if (in.probe_errors.empty() && in.probe_p50_s.empty())
        out.not_judged.push_back({"fabric_tor_probes_failing",
                                  "no probe series (rocehealth_probe_errors_total, "
                                  "rocehealth_probe_latency_seconds) in the range: the mesh "
                                  "between ToRs was not judged"});
    if (in.port_config.empty())
        out.not_judged.push_back({"fabric_config_drift",
                                  "no port configuration series (rocehealth_netdev_mtu_bytes, "
                                  "rocehealth_pfc_enabled, ...) in the range: configuration "
                                  "drift was not judged"});
    if (const std::string why = config_too_little(in, th);
        !why.empty() &&
        std::none_of(out.findings.begin(), out.findings.end(),
                     [](const Finding& f) { return f.rule_id == "fabric_config_drift"; }))
        out.not_judged.push_back({"fabric_config_drift", why});
    std::stable_sort(out.findings.begin(), out.findings.end(),
                     [](const Finding& a, const Finding& b) { return a.opened_t < b.opened_t; });
    return out;
}

void add_not_judged(FabricResult& r, const std::vector<Note>& more) {
    for (const Note& n : more) {
        const bool found = std::any_of(r.findings.begin(), r.findings.end(),
                                       [&](const Finding& f) { return f.rule_id == n.subject; });
        if (found) {
            r.notes.push_back({n.subject, "found, but may have missed other faults: " + n.text});
            continue;
        }
        const auto it = std::find_if(r.not_judged.begin(), r.not_judged.end(),
                                     [&](const Note& m) { return m.subject == n.subject; });
        if (it == r.not_judged.end())
            r.not_judged.push_back(n);
        else
            it->text = n.text;  // the cause (e.g. the step) over its effect (no points)
    }
}

}  // namespace rh::fabric

// ToR localisation from the mesh (rules group rocehealth-fabric-mesh).

#include <algorithm>
#include <set>

#include "agent/fabric/fabric_parts.h"
#include "agent/fabric/time_arg.h"

namespace rh::fabric::detail {

namespace {

/// Bad pairs a ToR finding's timeline lists, the first to go bad: a dead ToR of a 10,000-host
/// fleet fails a row from nearly every host (9,952 in bench/fabric_scale.sh), which would bury
/// the other findings; the count and the query for all of them are in its evidence.
constexpr std::size_t kMaxPairsListed = 20;

/// The recorded rows' series: a pair the recording rules judged bad (failed or slow).
constexpr const char* kRecordedBad = "rocehealth:probe_pair_bad_between_tors:2m";

struct PairRows {
    std::string src_instance, dst_label, dst_tor;  ///< dst_label: the peer or "ToR T"
    std::vector<Values> errors;
    std::vector<std::pair<std::string, Values>> p50;  ///< (median group, values)
    std::optional<TimeKey> bad_since;
    std::string why;  ///< "failed", "slow" or kRecordedBad (the rules judged it)
    double value = 0;
};

/// The mesh's rows as pairs between ToRs, and what the medians are taken over.
struct MeshInput {
    std::map<std::pair<std::string, std::string>, PairRows> pairs;  // (instance, dst) -> rows
    std::set<std::string> unknown_peers;
    std::map<std::string, std::string> cloned_peers;  ///< peer -> its host name, claimed twice
    std::map<std::string, std::vector<const Values*>> groups;  // median group -> series
    std::vector<Values> p50_store;                             // what `groups` points into
    std::set<TimeKey> times;                                   // every time a pair has a value
    bool recorded = false;  ///< from the recording rules' per-ToR series (collect_recorded)
    /// The recorded source's per-ToR values: pairs into, their bad share, rows out bad share.
    std::map<std::string, Values> into_count, into_bad_ratio, rows_out_bad_ratio;
    /// The recorded source's steps at which a ToR had its count without its bad share or the
    /// other way round (collect_recorded): the rules' writes there are incomplete.
    std::map<std::string, std::vector<TimeKey>> incomplete;
};

/// Fills `m` (in place: `groups` points into `p50_store`).
void collect_mesh(const FabricSeries& in, const Topology& topo, MeshInput& m) {
    // Instances with per-destination-ToR rows run the topology-aware mesh (mesh.peers_file):
    // their per-peer rows are their own ToR's peers, named by address (agent/daemon/README.md),
    // never between ToRs, so they make no pair (as in rocehealth:probe_pair_by_tor:group, which
    // leaves them out before its join) and an address there is no unknown peer worth a note.
    // They still count in the per-peer median.
    std::set<std::string> tor_mesh_instances;
    for (const auto* rows : {&in.probe_errors, &in.probe_p50_s})
        for (const PromSeries& s : *rows)
            if (s.labels.count("dst_tor")) tor_mesh_instances.insert(label(s.labels, "instance"));
    // Returns the pair of a row, or nullptr when its ends' ToRs are unknown or the same.
    auto pair_of = [&](const Labels& l) -> PairRows* {
        const std::string inst = label(l, "instance"), src_tor = topo.tor(inst);
        std::string dst_tor = label(l, "dst_tor"), dst = "ToR " + dst_tor;
        if (dst_tor.empty()) {
            if (tor_mesh_instances.count(inst)) return nullptr;
            std::string peer = label(l, "peer");
            dst = peer.substr(0,
                              peer.rfind(':') == std::string::npos ? peer.size() : peer.rfind(':'));
            const auto it = topo.tor_of_host.find(dst);
            if (it == topo.tor_of_host.end()) {
                if (topo.cloned_hosts.count(dst))
                    m.cloned_peers[peer] = dst;
                else if (!peer.empty())
                    m.unknown_peers.insert(peer);
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
    std::map<std::string, double> tor_rows_out_ratio;
    std::size_t bad_all = 0, count_all = 0;
};

/// Judges each pair at `t` (failed, or slow against its group's median), updating when it went
/// bad, and counts them. As the rules do (rocehealth:probe_pair_bad:2m), a pair is there through
/// its failure series (every row has one: a counter per op or the window gauge), or when it is
/// slow; a p50 alone that is not slow makes no pair.
MeshCounts count_pairs_at(MeshInput& m, TimeKey t, const Topology& topo,
                          const FabricThresholds& th) {
    const std::map<std::string, double> median = medians_at(m, t);
    MeshCounts c;
    std::map<std::string, std::pair<std::size_t, std::size_t>> rows_out;  // bad, count
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
                const auto it = median.find(g);
                if (it != median.end() && *x > th.slow_vs_median * it->second) {
                    if (!bad && !p.bad_since) p.why = "slow", p.value = *x;
                    bad = present = true;
                }
            }
        if (!present) continue;
        if (bad && !p.bad_since) p.bad_since = t;
        if (!bad) p.bad_since.reset();
        auto& [b, n] = c.into[p.dst_tor];
        b += bad;
        ++n;
        if (p.dst_label == "ToR " + p.dst_tor) {
            auto& [ob, on] = rows_out[topo.tor(p.src_instance)];
            ob += bad;
            ++on;
        }
        c.bad_all += bad;
        ++c.count_all;
    }
    for (const auto& [tor, bc] : rows_out)
        c.tor_rows_out_ratio[tor] = static_cast<double>(bc.first) / static_cast<double>(bc.second);
    return c;
}

/// RocehealthTorProbesFailing's condition for `tor` at one step.
bool tor_condition(const std::string& tor, const MeshCounts& c, const FabricThresholds& th) {
    const auto& bc = c.into.at(tor);
    const double ratio = static_cast<double>(bc.first) / static_cast<double>(bc.second);
    const std::size_t other = c.count_all - bc.second;
    const auto rows_out = c.tor_rows_out_ratio.find(tor);
    const bool one_host =
        rows_out != c.tor_rows_out_ratio.end() && rows_out->second <= th.tor_rows_out_bad_ratio;
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
    const std::size_t bad_now = bad_pairs.size();
    if (bad_pairs.size() > kMaxPairsListed) bad_pairs.resize(kMaxPairsListed);
    for (const PairRows* p : bad_pairs) {
        const bool failed = p->why == "failed", recorded = p->why == kRecordedBad;
        TimelineEvent e =
            recorded ? event_at(*p->bad_since, topo.host(p->src_instance),
                                "probes to " + p->dst_label + " (ToR " + tor +
                                    ") failed or were slow (over " +
                                    number_text(th.slow_vs_median) + "x the fabric's median p50)",
                                "1", "bad in 2 m", kRecordedBad)
                     : event_at(*p->bad_since, topo.host(p->src_instance),
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
                          m.recorded ? "rocehealth:probe_pairs_into_tor:bad_ratio x :count"
                                     : "rocehealth_probe_errors_total, "
                                       "rocehealth_probe_latency_seconds"});
    f.evidence.push_back(
        {"pairs_into_tor", std::to_string(bc.second), "", "pairs from hosts of other ToRs"});
    f.evidence.push_back({"bad_share_into_tor", percent_text(ratio), "%", ""});
    f.evidence.push_back({"bad_share_into_other_tors", percent_text(elsewhere), "%", ""});
    if (bad_now > bad_pairs.size())
        f.evidence.push_back(
            {"pairs_in_timeline",
             std::to_string(bad_pairs.size()) + " of " + std::to_string(bad_now), "",
             "the first to go bad; all: rocehealth:probe_pair_bad_between_tors:2m{peer_tor=\"" +
                 tor + "\"} == 1"});
    f.explanation =
        "Most pairs into one ToR fail or are slow while pairs elsewhere are fine: a "
        "dead host makes at most its own share bad, a ToR or its uplinks all of them "
        "(rule RocehealthTorProbesFailing).";
    f.confidence = "high";
    f.confidence_reason = "the condition held for " + number_text(th.hold_s) + " s over " +
                          std::to_string(bc.second) + " pairs";
    return f;
}

/// The "too little input" text, or "" when `per_tor` (pairs into each ToR from hosts under
/// other ToRs) and `span_s` meet the rule's minimum: at least th.tor_min_pairs pairs into one
/// ToR, pairs into another ToR to compare with, over at least the rule's hold.
std::string mesh_minimum(const std::map<std::string, std::size_t>& per_tor, double span_s,
                         const std::string& seen, const FabricThresholds& th) {
    std::string most_tor;
    std::size_t most = 0;
    for (const auto& [tor, n] : per_tor)
        if (n > most) most = n, most_tor = tor;
    if (most >= th.tor_min_pairs && per_tor.size() >= 2 && span_s >= th.hold_s) return "";
    return "too little input: " + seen + " into " + std::to_string(per_tor.size()) +
           " ToR(s), at most " + std::to_string(most) + " into one" +
           (most_tor.empty() ? "" : " (" + most_tor + ")") + ", over " + number_text(span_s) +
           " s of points; the rule needs at least " + std::to_string(th.tor_min_pairs) +
           " pairs into a ToR from hosts under other ToRs, pairs into another ToR to compare "
           "with, over at least " +
           number_text(th.hold_s) + " s (its hold)";
}

/// Why the ToR rule had too little input to be judged ("" when it had enough). No probe series
/// at all is analyse_fabric's "no probe series" instead.
std::string mesh_too_little(const FabricSeries& in, const MeshInput& m,
                            const FabricThresholds& th) {
    const double span_s = m.times.empty() ? 0 : seconds_of(*m.times.rbegin() - *m.times.begin());
    std::map<std::string, std::size_t> per_tor;
    if (m.recorded) {
        // The most pairs the rules counted into each ToR at one step.
        for (const auto& [tor, counts] : m.into_count)
            for (const auto& [t, n] : counts)
                per_tor[tor] = std::max(per_tor[tor], static_cast<std::size_t>(std::max(0.0, n)));
        return mesh_minimum(per_tor, span_s,
                            "rocehealth:probe_pairs_into_tor:count counted pairs between ToRs", th);
    }
    if (in.probe_errors.empty() && in.probe_p50_s.empty()) return "";
    for (const auto& [k, p] : m.pairs) ++per_tor[p.dst_tor];
    const std::string why = mesh_minimum(
        per_tor, span_s,
        std::to_string(in.probe_errors.size() + in.probe_p50_s.size()) + " probe series gave " +
            std::to_string(m.pairs.size()) + " pair(s) between ToRs",
        th);
    return why.empty() ? why
                       : why +
                             ". A pair counts when rocehealth_host_info names the ToRs of both "
                             "ends (peers outside --match have none)";
}

/// The recorded source (FabricSeries::tor_into_*): the steps are those of the per-ToR counts,
/// and the pairs are the bad rows a second pass fetched (FabricSeries::bad_rows), if any.
void collect_recorded(const FabricSeries& in, MeshInput& m) {
    m.recorded = true;
    const auto by_tor = [](const std::vector<PromSeries>& series, const char* tor_label,
                           std::map<std::string, Values>& into) {
        for (const PromSeries& s : series) {
            Values& v = into[label(s.labels, tor_label)];
            for (const auto& [t, x] : values_of(s)) v[t] = x;  // one fabric: one series a ToR
        }
    };
    by_tor(in.tor_into_count, "peer_tor", m.into_count);
    by_tor(in.tor_into_bad_ratio, "peer_tor", m.into_bad_ratio);
    by_tor(in.tor_rows_out_bad_ratio, "tor", m.rows_out_bad_ratio);
    for (const auto* per_tor : {&m.into_count, &m.into_bad_ratio})
        for (const auto& [tor, v] : *per_tor)
            for (const auto& [t, n] : v) m.times.insert(t);
    // Count and bad share are written by one rule group at one evaluation: one without the other
    // at a step is a write that did not complete (a remote write dropped under load), not a
    // healthy ToR.
    const auto value_at = [](const std::map<std::string, Values>& per_tor, const std::string& tor,
                             TimeKey t) {
        const auto it = per_tor.find(tor);
        return it != per_tor.end() && at(it->second, t).has_value();
    };
    for (const auto* per_tor : {&m.into_count, &m.into_bad_ratio})
        for (const auto& [tor, v] : *per_tor)
            if (per_tor == &m.into_count || !m.into_count.count(tor))  // each ToR once
                for (const TimeKey t : m.times)
                    if (value_at(m.into_count, tor, t) != value_at(m.into_bad_ratio, tor, t))
                        m.incomplete[tor].push_back(t);
    for (const PromSeries& s : in.bad_rows) {
        const std::string inst = label(s.labels, "instance"), dst_tor = label(s.labels, "dst_tor");
        std::string dst = dst_tor.empty() ? label(s.labels, "peer") : "ToR " + dst_tor;
        if (dst_tor.empty() && dst.rfind(':') != std::string::npos) dst.resize(dst.rfind(':'));
        PairRows& p = m.pairs[{inst, dst}];
        p.src_instance = inst;
        p.dst_label = dst;
        p.dst_tor = label(s.labels, "peer_tor");
        p.why = kRecordedBad;
        p.errors.push_back(values_of(s));
    }
}

/// The per-ToR counts the rules recorded at `t` (bad = ratio x count, as the rules' avg is
/// bad / count), and each recorded row's bad run: a row is bad at the steps it has a point.
MeshCounts recorded_counts_at(MeshInput& m, TimeKey t) {
    MeshCounts c;
    for (const auto& [tor, counts] : m.into_count) {
        const auto n = at(counts, t);
        const auto r = m.into_bad_ratio.count(tor) ? at(m.into_bad_ratio.at(tor), t) : std::nullopt;
        if (!n || *n < 1 || !r) continue;
        const auto count = static_cast<std::size_t>(std::llround(*n));
        const auto bad = static_cast<std::size_t>(std::llround(*r * *n));
        c.into[tor] = {bad, count};
        c.bad_all += bad;
        c.count_all += count;
    }
    for (const auto& [tor, ratios] : m.rows_out_bad_ratio)
        if (const auto r = at(ratios, t)) c.tor_rows_out_ratio[tor] = *r;
    for (auto& [k, p] : m.pairs) {
        const bool bad = std::any_of(p.errors.begin(), p.errors.end(),
                                     [&](const Values& v) { return at(v, t).has_value(); });
        if (bad && !p.bad_since) p.bad_since = t;
        if (!bad) p.bad_since.reset();
    }
    return c;
}

/// What the recorded source could not judge (m.incomplete), "" when its series were whole:
/// each ToR with its steps of a count and no bad share (or the reverse), the first of them.
std::string incomplete_text(const MeshInput& m) {
    if (m.incomplete.empty()) return "";
    std::string tors;
    std::size_t listed = 0;
    for (const auto& [tor, steps] : m.incomplete) {
        if (listed++ == 5) {
            tors += ", and " + std::to_string(m.incomplete.size() - 5) + " more ToR(s)";
            break;
        }
        tors += (tors.empty() ? "" : ", ") + tor + " at " + std::to_string(steps.size()) + " of " +
                std::to_string(m.times.size()) + " steps (first " +
                rfc3339(seconds_of(steps.front())) + ")";
    }
    return "the recorded per-ToR series are incomplete: rocehealth:probe_pairs_into_tor:count "
           "and :bad_ratio, written together by the mesh rule group, are not both there for " +
           tors +
           "; those steps of those ToRs were not judged (a rule write that was dropped, e.g. "
           "vmalert's remote write under load). --source raw reads the agents' own rows";
}

}  // namespace

void analyse_mesh(const FabricSeries& in, const Topology& topo, const FabricThresholds& th,
                  FabricResult& out) {
    MeshInput m;
    if (in.tor_into_count.empty())
        collect_mesh(in, topo, m);
    else
        collect_recorded(in, m);
    std::map<std::string, HeldCondition> tor_state;
    bool found = false;
    for (const TimeKey t : m.times) {
        const MeshCounts c = m.recorded ? recorded_counts_at(m, t) : count_pairs_at(m, t, topo, th);
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
    for (const auto& [peer, host] : m.cloned_peers) {
        std::string tors;
        for (const std::string& t : topo.cloned_hosts.at(host))
            tors += (tors.empty() ? "" : ", ") + (t.empty() ? std::string("(none)") : t);
        out.notes.push_back({"mesh peer " + peer,
                             "agents under ToRs " + tors + " all name themselves " + host +
                                 " (a cloned host name?): which ToR this peer is under is "
                                 "unknown, so its pairs are left out of the ToR localisation"});
    }
    if (const std::string why = mesh_too_little(in, m, th); !why.empty() && !found)
        out.not_judged.push_back({"fabric_tor_probes_failing", why});
    else if (const std::string gaps = incomplete_text(m); !gaps.empty()) {
        // Never healthy on a hole: not judged, or, beside a finding, a note that it may not be
        // the only one.
        if (found)
            out.notes.push_back(
                {"fabric_tor_probes_failing", "found, but may have missed other faults: " + gaps});
        else
            out.not_judged.push_back({"fabric_tor_probes_failing", gaps});
    }
}

}  // namespace rh::fabric::detail

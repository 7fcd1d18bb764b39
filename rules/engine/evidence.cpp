#include "rules/engine/evidence.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "core/inventory/inventory.h"
#include "rules/evidence_format.h"
#include "store/window.h"

namespace rh {

namespace {

bool in_episodes(const std::vector<Episode>& eps, double t) {
    return std::any_of(eps.begin(), eps.end(),
                       [&](const Episode& e) { return t > e.start && t <= e.end + kWindowSlackS; });
}

const char* host_word(const Condition& c) {
    return c.host == HostScope::other ? " (another host)" : "";
}

std::string where(const Series& s) {
    std::string w = s.key.host;
    for (const auto& [k, v] : s.key.labels) w += " " + k + "=" + v;
    return w;
}

/// Peak of a condition's measure while the finding held, and the series behind it.
struct Peak {
    std::optional<double> value;
    const Series* series = nullptr;
    bool bounded = false;  ///< only a lower bound is known (Measurement::high)
    std::string name;      ///< evidence name of a sum over several series (summed_name)
    double fastest_gbps = kMaxPlausiblePortGbps;  ///< the rate it was bounded at (Measurement)
};

/// The evidence name of a value summed over `summed` (Measurement::summed): one series' own
/// name when there is one; else the names joined by " + " and, per label, its values joined by
/// "+" where they differ ("priority_bytes (rx+tx, priority 0)", "roce_rx_bytes + roce_tx_bytes"),
/// so the label says what was added up. Empty for fewer than two series.
std::string summed_name(const std::vector<const Series*>& summed) {
    if (summed.size() < 2) return {};
    std::vector<std::string> names;
    std::map<std::string, std::vector<std::string>> values;
    for (const Series* s : summed) {
        if (std::find(names.begin(), names.end(), s->key.series) == names.end())
            names.push_back(s->key.series);
        for (const auto& [k, v] : s->key.labels) {
            auto& vs = values[k];
            if (std::find(vs.begin(), vs.end(), v) == vs.end()) vs.push_back(v);
        }
    }
    Labels merged;
    for (auto& [k, vs] : values) {
        std::sort(vs.begin(), vs.end());
        std::string j;
        for (const auto& v : vs) j += (j.empty() ? "" : "+") + v;
        merged[k] = j;
    }
    std::string joined;
    for (const auto& n : names) joined += (joined.empty() ? "" : " + ") + n;
    return series_display_name(joined, merged);
}

/// A measured value as a person reads it: a gauge's value by its unit ("off", "4 (ACTIVE)",
/// "100 Gb/s", rules/evidence_format.h), a rate, increase or pause fraction by format_measure.
std::string measured_text(const Condition& c, double v, const std::string& unit,
                          bool bounded = false, double fastest_gbps = kMaxPlausiblePortGbps) {
    if (bounded) return format_bounded_measure(c, v, unit, fastest_gbps);
    return c.measure == Measure::value ? format_value(v, unit) : format_measure(c, v, unit);
}

/// The unit of measured_text's value alone, for machines: "" for on/off, states and fractions.
std::string measured_unit(const Condition& c, const std::string& unit) {
    if (unit == "bool" || unit == "state" || c.measure == Measure::pause_fraction ||
        c.measure == Measure::lifetime_share_of_uptime)
        return "";
    return c.measure == Measure::rate_per_s && !unit.empty() ? unit + "/s" : unit;
}

/// One evidence line for a condition's peak: named after the series it read ("PFC on priority
/// 3", "ack_timeouts"), not the rule's signal name, so a person can find it in the capture.
Evidence evidence_of(const Condition& c, double v, const Series* s, bool bounded = false,
                     const std::string& name = {}, double fastest_gbps = kMaxPlausiblePortGbps) {
    const std::string unit = s ? s->unit() : "";
    return {!name.empty() ? name
            : s           ? series_display_name(s->key.series, s->key.labels)
                          : c.signal,
            measured_text(c, v, unit, bounded, fastest_gbps), measured_unit(c, unit),
            s && !s->metas.empty() ? s->metas.back().source : ""};
}

/// First pass index evaluated: 1 (the first interval's end), or 0 on a single pass.
std::size_t first_evaluated(const FindingContext& ctx) {
    return ctx.passes.size() == 1 ? 0 : 1;
}

/// The pass interval ending at pass k (0 for a single pass).
double step_at(const FindingContext& ctx, std::size_t k) {
    return k == 0 ? 0 : ctx.passes[k] - ctx.passes[k - 1];
}

/// Whether t is inside an episode; on a single pass, whether it is that pass.
bool evaluated_in_episodes(const FindingContext& ctx, double t) {
    return ctx.passes.size() == 1 ? true : in_episodes(ctx.episodes, t);
}

/// Evidence and timeline sources as the report cites them: paths under the host's sysfs root
/// (a fixture or copied tree given as --sysfs-root) relative to it (cite_sysfs), so no path of
/// the machine that ran the tool is cited.
void cite_sources(const FindingContext& ctx, Finding& f) {
    const auto inv = ctx.store.inventories().find(ctx.group.host);
    if (inv == ctx.store.inventories().end()) return;
    if (!inv->second.snapshot) return;
    const std::string& r = inv->second.snapshot->sysfs_root;
    for (Evidence& e : f.evidence) e.source = cite_sysfs(r, e.source);
    for (TimelineEvent& e : f.timeline) e.source = cite_sysfs(r, e.source);
}

Peak peak_of(const FindingContext& ctx, const Condition& c) {
    Peak p;
    for (std::size_t k = first_evaluated(ctx); k < ctx.passes.size(); ++k) {
        const double t = ctx.passes[k];
        if (!evaluated_in_episodes(ctx, t)) continue;
        const Measurement m = measure(ctx.store, c, ctx.group, t, step_at(ctx, k));
        if (!m.value) continue;
        // For "stays below" conditions the telling value is the largest seen, too.
        if (!p.value || *m.value > *p.value) {
            p.value = m.value;
            p.bounded = m.high.has_value();
            p.fastest_gbps = m.fastest_gbps;
            p.name = summed_name(m.summed);
            p.series = m.strongest ? m.strongest : (m.series.empty() ? nullptr : m.series.front());
        }
    }
    return p;
}

/// Whether the condition is about a signal staying low ("no ECN marks", "traffic < 1 MB/s"):
/// such conditions are evidence of an absence, with no moment of rising to put on a timeline.
bool is_absence(const Condition& c) {
    return c.op == Compare::lt || c.op == Compare::le || c.op == Compare::eq;
}

/// Sample times, per host, of the series `c` reads, from `from` to `to`: the intervals each
/// host's own counters moved over. Hosts are sampled on their own clocks, and probe results add
/// passes between counter samples, so the group's passes can split another host's (or its own)
/// sample interval in two, each half holding one point and no delta.
std::map<std::string, std::vector<double>> sample_times(const FindingContext& ctx,
                                                        const Condition& c, double from,
                                                        double to) {
    std::map<std::string, std::set<double>> by_host;
    for (const Series* s : select_series(ctx.store, c, ctx.group, to))
        for (const Point& p : s->points)
            if (p.t >= from - kWindowSlackS && p.t <= to + kWindowSlackS)
                by_host[s->key.host].insert(p.t);
    std::map<std::string, std::vector<double>> out;
    for (auto& [host, times] : by_host) out[host].assign(times.begin(), times.end());
    return out;
}

/// First sample (from lookback before the finding to its end) where the condition's signal
/// moved as the condition means it, measured over that host's sample interval alone: a gauge or
/// pause fraction meeting the threshold, a counter growing at a rate that would meet the
/// threshold over the condition's window (any growth for "> 0"). The earliest over the hosts
/// the condition reads, stamped at the sample that showed it. Only a gauge meeting the
/// condition at the data's first sample was "already present when the data begins"; a counter
/// that rose between the first two samples "started" in that interval.
void first_rise(const FindingContext& ctx, const Condition& c, Finding& f) {
    if (is_absence(c)) return;
    const double from = f.opened_t - ctx.lookback_s;
    const double to = ctx.episodes.back().end + kWindowSlackS;
    Condition step = c;
    step.window_s = 0;
    std::optional<TimelineEvent> first;
    for (const auto& [host, times] : sample_times(ctx, c, from, to)) {
        // A gauge (a state) is read at each sample, the first one included; a counter's rise
        // needs an interval, so it is first seen at the second sample.
        const bool one_sample = c.measure == Measure::value || is_lifetime(c.measure);
        for (std::size_t k = one_sample ? 0 : 1; k < times.size(); ++k) {
            const double t = times[k];
            if (first && t >= first->t) break;
            const double dt = k == 0 ? 0 : t - times[k - 1];
            const Measurement m = measure(ctx.store, step, ctx.group, t, dt);
            if (!m.value || !m.strongest || m.strongest->key.host != host) continue;
            bool moved = false;
            if (c.measure == Measure::increase && c.window_s > 0 && dt > 0) {
                Measurement scaled = m;
                scaled.value = *m.value * c.window_s / dt;
                moved = *m.value > 0 && holds(c, scaled).value_or(false);
            } else {
                moved = holds(c, m).value_or(false);
            }
            if (!moved) continue;
            const Series& s = *m.strongest;
            TimelineEvent e;
            e.t = t;
            e.wall_ms = wall_ms_of(ctx.store, t);
            e.host = s.key.host;
            e.series = s.key.series;
            e.labels = s.key.labels;
            e.value = measured_text(step, *m.value, s.unit(), m.high.has_value(), m.fastest_gbps);
            e.unit = measured_unit(step, s.unit());
            e.source = s.metas.empty() ? "" : s.metas.back().source;
            // Only a state read at the data's first sample was there before the data began; a
            // rise seen between the first two samples began in that interval.
            const bool at_start = k == 0 && s.points.front().t >= times.front() - kWindowSlackS;
            e.what =
                c.signal +
                (at_start ? " already present when the data begins: "
                          : (c.measure == Measure::value ? " condition met: " : " started: ")) +
                s.key.series + " on " + where(s) + host_word(c);
            first = std::move(e);
            break;
        }
    }
    if (first) f.timeline.push_back(std::move(*first));
}

/// Whether an expression held at any pass inside the episodes: true / false / unknown.
std::optional<bool> held_during(const FindingContext& ctx, const Expr& e, double* at) {
    bool known = false;
    for (std::size_t k = first_evaluated(ctx); k < ctx.passes.size(); ++k) {
        const double t = ctx.passes[k];
        if (!evaluated_in_episodes(ctx, t)) continue;
        const auto r = holds(ctx.store, e, ctx.group, t, step_at(ctx, k));
        if (!r) continue;
        known = true;
        if (*r) {
            if (at) *at = t;
            return true;
        }
    }
    if (!known) return std::nullopt;
    return false;
}

void replace_all(std::string& s, const std::string& from, const std::string& to) {
    for (std::size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size())
        s.replace(pos, from.size(), to);
}

std::string render_summary(const FindingContext& ctx, const Finding& f,
                           const std::vector<std::pair<const Condition*, Peak>>& peaks) {
    std::string s = ctx.rule.summary;
    replace_all(s, "{host}", ctx.group.host);
    for (const auto& [k, v] : ctx.group.labels) {
        replace_all(s, "{" + k + "}", v);
        if (const auto t = ctx.rule.label_text.find(k); t != ctx.rule.label_text.end())
            if (const auto text = t->second.find(v); text != t->second.end())
                replace_all(s, "{" + k + "_text}", text->second);
    }
    for (const auto& [c, p] : peaks)
        replace_all(s, "{" + c->signal + "}",
                    p.value ? measured_text(*c, *p.value, p.series ? p.series->unit() : "",
                                            p.bounded, p.fastest_gbps)
                    : c->measure == Measure::lifetime_per_million
                        ? "no packet count in the capture to weigh it against"
                        : "unknown");
    char held[64];
    const double dur = ctx.episodes.back().end - ctx.episodes.front().start;
    std::snprintf(held, sizeof held, "%.0f s", dur);
    replace_all(s, "{held}", held);
    // Any placeholder left (e.g. {netdev} on a series without one) reads as "?", not as a brace.
    for (std::size_t a = s.find('{'); a != std::string::npos; a = s.find('{', a)) {
        const auto b = s.find('}', a);
        if (b == std::string::npos) break;
        s.replace(a, b - a + 1, "?");
    }
    (void)f;
    return s;
}

}  // namespace

std::int64_t wall_ms_of(const SeriesStore& store, double t) {
    return store.has_wall_clock() ? static_cast<std::int64_t>(std::llround(t * 1000.0)) : 0;
}

std::vector<const Condition*> leaf_conditions(const Expr& e) {
    if (e.kind == Expr::Kind::cond) return {&e.cond};
    std::vector<const Condition*> out;
    for (const Expr& c : e.children) {
        auto sub = leaf_conditions(c);
        out.insert(out.end(), sub.begin(), sub.end());
    }
    return out;
}

namespace {

/// The rule's supporting signals during the finding: how many were seen, and their names.
struct SupportsSeen {
    std::size_t seen = 0;
    std::string seen_names, unseen_names;
};

/// Supporting signals: seen or not, each one said (a seen one's first rise joins the timeline).
SupportsSeen check_supports(const FindingContext& ctx, Finding& f) {
    SupportsSeen out;
    for (const Condition& c : ctx.rule.supports) {
        Expr e;
        e.cond = c;
        double at = 0;
        const auto r = held_during(ctx, e, &at);
        if (r && *r) {
            ++out.seen;
            out.seen_names += (out.seen_names.empty() ? "" : ", ") + c.signal;
            first_rise(ctx, c, f);
        } else {
            out.unseen_names +=
                (out.unseen_names.empty() ? "" : ", ") + c.signal + (r ? "" : " (no data)");
        }
    }
    return out;
}

/// Alternatives: ruled out when their signal stayed quiet while the finding held. Adds each
/// to f.alternatives; returns {ruled out, still possible}.
std::pair<std::size_t, std::size_t> check_alternatives(const FindingContext& ctx, Finding& f) {
    std::size_t ruled_out = 0, open = 0;
    for (const Alternative& a : ctx.rule.alternatives) {
        double at = 0;
        const auto r = held_during(ctx, a.indicated_by, &at);
        AlternativeCheck chk{a.name, "", ""};
        std::string signals;
        for (const Condition* c : leaf_conditions(a.indicated_by))
            signals += (signals.empty() ? "" : ", ") + c->signal;
        if (!r) {
            chk.status = "not checked";
            chk.reason = "no data for " + signals;
        } else if (*r) {
            chk.status = "not ruled out";
            chk.reason = signals + " also present while the finding held";
            ++open;
        } else {
            chk.status = "ruled out";
            chk.reason = signals + " stayed quiet while the finding held";
            ++ruled_out;
        }
        f.alternatives.push_back(std::move(chk));
    }
    return {ruled_out, open};
}

/// f.confidence and its reason from how long the condition held, the supporting signals seen
/// and the alternatives ruled out.
void set_confidence(const FindingContext& ctx, const SupportsSeen& sup, std::size_t ruled_out,
                    std::size_t open, Finding& f) {
    const std::size_t n_alt = ctx.rule.alternatives.size();
    const std::size_t n_sup = ctx.rule.supports.size();
    if (open > 0) {
        f.confidence = "low";
    } else if ((n_sup == 0 || sup.seen > 0) && ruled_out == n_alt) {
        f.confidence = "high";
    } else {
        f.confidence = "medium";
    }
    std::string reason =
        "the condition held for " +
        std::to_string(static_cast<long>(ctx.episodes.back().end - ctx.episodes.front().start)) +
        " s";
    if (n_sup > 0)
        reason += "; " + std::to_string(sup.seen) + " of " + std::to_string(n_sup) +
                  " supporting signals seen" + (sup.seen ? " (" + sup.seen_names + ")" : "") +
                  (sup.seen < n_sup ? ", not seen: " + sup.unseen_names : "");
    if (n_alt > 0)
        reason += "; " + std::to_string(ruled_out) + " of " + std::to_string(n_alt) +
                  " alternatives ruled out" +
                  (open ? ", " + std::to_string(open) + " still possible" : "");
    f.confidence_reason = reason;
}

/// The finding's open (and close) events on its timeline, then the timeline in time order.
void add_open_close(const FindingContext& ctx, Finding& f) {
    TimelineEvent opened;
    opened.t = f.opened_t;
    opened.wall_ms = f.opened_wall_ms;
    opened.host = f.host;
    opened.labels = ctx.group.labels;
    opened.what = ctx.rule.title + ": condition started holding" +
                  (ctx.rule.hold_s > 0
                       ? " (held >= " + std::to_string(static_cast<long>(ctx.rule.hold_s)) + " s)"
                       : "");
    f.timeline.push_back(opened);
    if (f.closed_t != 0) {
        TimelineEvent closed = opened;
        closed.t = f.closed_t;
        closed.wall_ms = f.closed_wall_ms;
        closed.what = ctx.rule.title + ": condition stopped holding";
        f.timeline.push_back(closed);
    }
    std::stable_sort(f.timeline.begin(), f.timeline.end(),
                     [](const TimelineEvent& a, const TimelineEvent& b) { return a.t < b.t; });
}

}  // namespace

void attach_evidence(const FindingContext& ctx, Finding& f) {
    std::vector<std::pair<const Condition*, Peak>> peaks;
    for (const Condition* c : leaf_conditions(ctx.rule.when)) {
        Peak p = peak_of(ctx, *c);
        peaks.emplace_back(c, p);
        if (p.value)
            f.evidence.push_back(
                evidence_of(*c, *p.value, p.series, p.bounded, p.name, p.fastest_gbps));
        first_rise(ctx, *c, f);
    }
    const SupportsSeen sup = check_supports(ctx, f);
    const auto [ruled_out, open] = check_alternatives(ctx, f);
    set_confidence(ctx, sup, ruled_out, open, f);
    add_open_close(ctx, f);
    f.summary = render_summary(ctx, f, peaks);
    cite_sources(ctx, f);
}

void attach_lifetime_evidence(const FindingContext& ctx, const std::string& rates_reason,
                              Finding& f) {
    const double t = ctx.passes.back();
    std::vector<std::pair<const Condition*, Peak>> peaks;
    for (const Condition* c : leaf_conditions(ctx.rule.when)) {
        const Measurement m = measure(ctx.store, *c, ctx.group, t, 0);
        Peak p{m.value, m.strongest ? m.strongest : (m.series.empty() ? nullptr : m.series.front()),
               m.high.has_value(), summed_name(m.summed), m.fastest_gbps};
        peaks.emplace_back(c, p);
        if (!p.value) continue;
        // Each counter read on its own line (a person finds it in the capture), then the
        // ratio and the counter it is weighed against.
        const auto add = [&](const Evidence& e) {
            if (std::none_of(f.evidence.begin(), f.evidence.end(), [&](const Evidence& o) {
                    return o.name == e.name && o.value == e.value;
                }))
                f.evidence.push_back(e);
        };
        std::set<std::string> names;
        for (const Series* s : m.series) names.insert(s->key.series);
        for (const std::string& name : names) {
            Condition one = *c;
            one.measure = Measure::lifetime_value;
            one.per.clear();
            one.series = {name};
            const Measurement v = measure(ctx.store, one, ctx.group, t, 0);
            if (v.value && v.strongest) add(evidence_of(one, *v.value, v.strongest));
        }
        if (c->measure == Measure::lifetime_share_of_uptime) {
            Evidence share = evidence_of(*c, *p.value, p.series);
            share.name = c->signal;
            add(share);
            for (const Series* s : ctx.store.find("uptime_s")) {
                if (s->key.host != ctx.group.host) continue;
                if (const auto up = value_at(*s, t))
                    add({"uptime", format_value(*up, "s"), "s",
                         s->metas.empty() ? "" : s->metas.back().source});
                break;
            }
            continue;
        }
        if (c->measure != Measure::lifetime_per_million) continue;
        Evidence ratio = evidence_of(*c, *p.value, p.series);
        ratio.name = c->signal;
        add(ratio);
        for (const std::string& name : c->per) {
            Condition d = *c;
            d.measure = Measure::lifetime_value;
            d.per.clear();
            d.series = {name};
            d.match.clear();
            const Measurement v = measure(ctx.store, d, ctx.group, t, 0);
            if (!v.value || !v.strongest) continue;
            add(evidence_of(d, *v.value, v.strongest));
            break;
        }
    }
    f.confidence = "low";
    f.confidence_reason =
        "lifetime evidence: counts since the counters were last reset, read from one capture, so "
        "when they happened is unknown (they may be old); " +
        rates_reason +
        ". A second capture 30 s or more later shows whether they still grow, and rates "
        "outrank this";
    f.summary = render_summary(ctx, f, peaks);
    cite_sources(ctx, f);
}

}  // namespace rh

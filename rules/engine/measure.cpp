#include "rules/engine/measure.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <span>

#include "store/window.h"

namespace rh {

namespace {

bool contains_labels(const Labels& have, const Labels& want) {
    for (const auto& [k, v] : want) {
        const auto it = have.find(k);
        if (it == have.end() || it->second != v) return false;
    }
    return true;
}

/// Labels of `g` a series must agree with. Across hosts only the priority carries meaning
/// (device and port names belong to the host being diagnosed).
bool agrees_with_group(const Labels& series, const Group& g, HostScope scope, bool skip_priority) {
    for (const auto& [k, v] : g.labels) {
        if (scope == HostScope::other && k != "priority") continue;
        if (skip_priority && k == "priority") continue;
        const auto it = series.find(k);
        if (it != series.end() && it->second != v) return false;
    }
    return true;
}

/// The pfc_enabled series of priority `prio` on the group's port, in store order.
std::vector<const Series*> pfc_decided_by(const SeriesStore& store, const Group& g,
                                          const std::string& prio) {
    std::vector<const Series*> out;
    for (const Series* s : store.find("pfc_enabled")) {
        if (s->key.host != g.host) continue;
        const auto p = s->key.labels.find("priority");
        if (p == s->key.labels.end() || p->second != prio) continue;
        if (!agrees_with_group(s->key.labels, g, HostScope::same, true)) continue;
        out.push_back(s);
    }
    return out;
}

/// Whether the first of `pfc` with a value at t has pfc_enabled == want (none: false).
bool pfc_state_is(const std::vector<const Series*>& pfc, int want, double t) {
    for (const Series* p : pfc)
        if (const auto v = value_at(*p, t)) return static_cast<int>(*v) == want;
    return false;
}

/// A port gauge (`gauge`: port_rate_gbps, port_max_rate_gbps) of the series' device/port on its
/// host at t, Gb/s.
std::optional<double> port_gauge_for(const SeriesStore& store, const Series& s, double t,
                                     const char* gauge) {
    for (const Series* r : store.find(gauge)) {
        if (r->key.host != s.key.host) continue;
        const Labels& l = r->key.labels;
        if (l.count("device") && s.key.labels.count("device") &&
            l.at("device") != s.key.labels.at("device"))
            continue;
        if (l.count("port") && s.key.labels.count("port") &&
            l.at("port") != s.key.labels.at("port"))
            continue;
        if (const auto v = value_at(*r, t)) return v;
    }
    return std::nullopt;
}

/// The port rate of the series' device/port on its host, Gb/s.
std::optional<double> port_rate_for(const SeriesStore& store, const Series& s, double t) {
    return port_gauge_for(store, s, t, "port_rate_gbps");
}

/// The fastest rate the series' port can run when its rate is unknown: the NIC model's
/// (port_max_rate_gbps), else kMaxPlausiblePortGbps.
double fastest_port_gbps(const SeriesStore& store, const Series& s, double t) {
    return port_gauge_for(store, s, t, "port_max_rate_gbps").value_or(kMaxPlausiblePortGbps);
}

/// Whether the driver also gives pause duration for the same port/priority/direction (then
/// the frame-count estimate is not used).
bool has_duration_series(const std::vector<const Series*>& chosen, const Series& frames) {
    const char* duration = frames.key.series == "link_pause_frames" ? "link_pause_duration_us"
                                                                    : "pfc_pause_duration_us";
    return std::any_of(chosen.begin(), chosen.end(), [&](const Series* d) {
        return d->key.series == duration && d->key.host == frames.key.host &&
               d->key.labels == frames.key.labels;
    });
}

bool same_label(const Labels& a, const Labels& b, const char* key) {
    const auto i = a.find(key), j = b.find(key);
    return (i == a.end()) == (j == b.end()) && (i == a.end() || i->second == j->second);
}

/// Increase of `s` over [t0, t] divided by the increase summed over the series of the same
/// name, host, device and port (its siblings, `s` included); nullopt when that sum is 0 or
/// no sibling has a value.
std::optional<double> share_of_siblings(const SeriesStore& store, const Series& s, double t0,
                                        double t) {
    const auto own = increase_in(s, t0, t).increase;
    if (!own) return std::nullopt;
    double total = 0;
    for (const Series* o : store.find(s.key.series)) {
        if (o->key.host != s.key.host || !same_label(o->key.labels, s.key.labels, "device") ||
            !same_label(o->key.labels, s.key.labels, "port"))
            continue;
        if (const auto w = increase_in(*o, t0, t).increase) total += static_cast<double>(*w);
    }
    if (total <= 0) return std::nullopt;
    return static_cast<double>(*own) / total;
}

/// A counter's reading at or before t (its count since the last reset), as a double.
std::optional<double> lifetime_count(const Series& s, double t) {
    for (auto it = s.points.rbegin(); it != s.points.rend(); ++it) {
        if (it->t > t + kWindowSlackS) continue;
        if (const auto c = it->count()) return static_cast<double>(*c);
    }
    return std::nullopt;
}

/// The lifetime reading of the first of `c.per`'s names that has one for the group (its series
/// summed), or nullopt.
std::optional<double> per_denominator(const SeriesStore& store, const Condition& c, const Group& g,
                                      double t) {
    for (const std::string& name : c.per) {
        Condition d;
        d.series = {name};
        d.host = c.host;
        std::optional<double> sum;
        for (const Series* s : select_series(store, d, g, t))
            if (const auto v = lifetime_count(*s, t)) sum = sum.value_or(0) + *v;
        if (sum) return sum;
    }
    return std::nullopt;
}

}  // namespace

std::optional<double> uptime_s(const SeriesStore& store, const std::string& host, double t) {
    for (const Series* s : store.find("uptime_s"))
        if (s->key.host == host)
            if (const auto v = value_at(*s, t)) return v;
    return std::nullopt;
}

double pause_quanta_s(double port_gbps) {
    return 65535.0 * 512.0 / (port_gbps * 1e9);
}

double read_time_for(const SeriesStore& store, const Series& s, const Group& g, double t,
                     double step_s) {
    if (s.key.host == g.host) return t;
    const double reach = std::max(step_s / 2, kWindowSlackS);
    double best = t, best_d = INFINITY;
    // Only passes near t can be within reach: binary search for them (a 1 s margin keeps the
    // choice, ties to the earlier pass included, exactly the full scan's).
    const auto& passes = store.pass_times(s.key.host);
    const auto from = std::lower_bound(passes.begin(), passes.end(), t - reach - 1);
    const auto to = std::upper_bound(from, passes.end(), t + reach + 1);
    for (const double p : std::span(from, to)) {
        const double d = std::abs(p - t);
        if (d <= reach && d < best_d) {
            best = p;
            best_d = d;
        }
    }
    return best;
}

namespace {

thread_local SelectionMemo* active_memo = nullptr;

/// The series `c` may read for `g` whatever the time: all of select_series's tests but the
/// pfc_enabled state, which pfc_decided_by lists the series for.
std::vector<const Series*> static_candidates(const SeriesStore& store, const Condition& c,
                                             const Group& g) {
    std::vector<const Series*> out;
    const auto gp = g.labels.find("priority");
    for (const std::string& name : c.series) {
        for (const Series* s : store.find(name)) {
            const bool same = s->key.host == g.host;
            if ((c.host == HostScope::same) != same) continue;
            if (!contains_labels(s->key.labels, c.match)) continue;
            if (c.on_pfc_priorities) {
                const auto sp = s->key.labels.find("priority");
                if (sp == s->key.labels.end()) continue;
                if (gp != g.labels.end() && sp->second == gp->second) continue;
                if (!agrees_with_group(s->key.labels, g, c.host, true)) continue;
            } else if (!agrees_with_group(s->key.labels, g, c.host, false)) {
                continue;
            }
            out.push_back(s);
        }
    }
    return out;
}

}  // namespace

SelectionMemo::Selections SelectionMemo::select(const SeriesStore& store, const Group& group,
                                                const std::vector<const Condition*>& conditions) {
    Selections out;
    for (const Condition* c : conditions) {
        std::vector<Candidate> cands;
        for (const Series* s : static_candidates(store, *c, group)) {
            Candidate cand{s, {}};
            if (c->on_pfc_priorities)
                cand.pfc = pfc_decided_by(store, group, s->key.labels.at("priority"));
            cands.push_back(std::move(cand));
        }
        out.emplace_back(c, std::move(cands));
    }
    return out;
}

SelectionMemo::SelectionMemo(const SeriesStore& store, const Group& group,
                             const std::vector<const Condition*>& conditions)
    : store_(store),
      group_(group),
      own_(select(store, group, conditions)),
      entries_(&own_),
      outer_(active_memo) {
    active_memo = this;
}

SelectionMemo::SelectionMemo(const SeriesStore& store, const Group& group, const Selections& kept)
    : store_(store), group_(group), entries_(&kept), outer_(active_memo) {
    active_memo = this;
}

SelectionMemo::~SelectionMemo() {
    active_memo = outer_;
}

const std::vector<SelectionMemo::Candidate>* SelectionMemo::lookup(const SeriesStore& store,
                                                                   const Condition& c,
                                                                   const Group& g) {
    const SelectionMemo* m = active_memo;
    if (!m || &m->store_ != &store || &m->group_ != &g) return nullptr;
    for (const auto& [cond, cands] : *m->entries_)
        if (cond == &c) return &cands;
    return nullptr;
}

namespace {

/// select_series into `out` (cleared first): the evaluation hot path reuses one vector.
void select_series_into(const SeriesStore& store, const Condition& c, const Group& g, double t,
                        std::vector<const Series*>& out) {
    out.clear();
    if (const auto* cands = SelectionMemo::lookup(store, c, g)) {
        out.reserve(cands->size());
        for (const SelectionMemo::Candidate& cand : *cands) {
            if (!c.on_pfc_priorities || pfc_state_is(cand.pfc, *c.on_pfc_priorities, t))
                out.push_back(cand.series);
        }
        return;
    }
    for (const Series* s : static_candidates(store, c, g)) {
        if (c.on_pfc_priorities &&
            !pfc_state_is(pfc_decided_by(store, g, s->key.labels.at("priority")),
                          *c.on_pfc_priorities, t))
            continue;
        out.push_back(s);
    }
}

}  // namespace

std::vector<const Series*> select_series(const SeriesStore& store, const Condition& c,
                                         const Group& g, double t) {
    std::vector<const Series*> out;
    select_series_into(store, c, g, t, out);
    return out;
}

bool any_selected_valued(const SeriesStore& store, const Condition& c, const Group& g, double t) {
    if (const auto* cands = SelectionMemo::lookup(store, c, g))
        return std::any_of(cands->begin(), cands->end(), [&](const SelectionMemo::Candidate& x) {
            return x.series->ever_valued &&
                   (!c.on_pfc_priorities || pfc_state_is(x.pfc, *c.on_pfc_priorities, t));
        });
    const auto chosen = select_series(store, c, g, t);
    return std::any_of(chosen.begin(), chosen.end(),
                       [](const Series* s) { return s->ever_valued; });
}

namespace {

bool compare(Compare op, double v, double x) {
    switch (op) {
        case Compare::gt:
            return v > x;
        case Compare::ge:
            return v >= x;
        case Compare::lt:
            return v < x;
        case Compare::le:
            return v <= x;
        case Compare::eq:
            return v == x;
        case Compare::ne:
            return v != x;
    }
    return false;
}

/// A `changed_in_data` gauge condition's reading of `s` at t (Condition::changed_in_data):
/// `value` is what makes the comparison hold — the gauge's value at t when it entered the
/// condition's side within the data (an earlier point was on the other side: up -> down), or
/// the value it left at t when it had been on that side since the data began (down -> up) —
/// else the value at t, which does not hold; `unchanged` when it has been on the condition's
/// side at every point up to t (a port down throughout). Reads only points up to t, so a
/// settled verdict stays settled (VerdictCache); O(points from the series' first change of value
/// to the first on the other side), searched from the store's Series::first_value_change().
struct ChangedReading {
    std::optional<double> value;
    bool unchanged = false;
};

ChangedReading changed_value_at(const Series& s, const Condition& c, double t) {
    ChangedReading r;
    const auto current = value_at(s, t);
    if (!current) return r;
    // Indexes into s.points (the store's points are read by value, not kept by address):
    // `previous` the last valued point before the first on the other side, `other_side` that.
    std::optional<std::size_t> previous;
    std::optional<std::size_t> other_side;
    const double until = t + kWindowSlackS;
    auto it = s.points.begin();
    while (it != s.points.end() && it->t <= until && !it->value()) ++it;
    if (it != s.points.end() && it->t <= until && compare(c.op, *it->value(), c.threshold)) {
        // Every valued point before the series' first change of value reads as the oldest, on
        // the condition's side: the search goes on from that change (a port down throughout
        // costs O(1) per pass, not O(points): replays of long recordings stay linear).
        const auto beyond = std::upper_bound(it, s.points.end(), until,
                                             [](double x, const Point& p) { return x < p.t; });
        const auto stop = std::min(s.first_value_change(), beyond);
        for (auto back = stop; back != it && !previous;)
            if ((--back)->value()) previous = back.index();
        if (!previous) previous = it.index();
        it = stop;
    }
    for (; it != s.points.end(); ++it) {
        const Point p = *it;
        if (p.t > until) break;
        const auto v = p.value();
        if (!v) continue;
        if (!compare(c.op, *v, c.threshold)) {
            other_side = it.index();
            break;
        }
        previous = it.index();
    }
    if (compare(c.op, *current, c.threshold)) {
        if (other_side)
            r.value = current;  // entered within the data
        else
            r.unchanged = true;  // on this side since the data began
        return r;
    }
    // On the other side now: it changed at t if every earlier point was on the condition's
    // side (the first on the other side is the one at t), reported as the state it left.
    std::optional<std::size_t> last;  // the point value_at(s, t) read
    auto at = std::upper_bound(s.points.begin(), s.points.end(), until,
                               [](double x, const Point& p) { return x < p.t; });
    while (previous && !last && at != s.points.begin())
        if ((--at)->value()) last = at.index();
    const bool left_at_t = previous && other_side == last;
    r.value = left_at_t ? s.points[*previous].value() : current;
    return r;
}

/// One series' reading in measure_over: its value (nullopt: none at t), the upper bound of
/// a value bounded by the slowest plausible port rate (no port rate known), and whether a
/// changed_in_data reading found the value unchanged.
struct SeriesReading {
    std::optional<double> v, high;
    bool bounded = false;
    bool unchanged = false;
};

/// Measure::per_bit of `s` in (t0_s, t_s]: its rate per bit at the port's rate; without a port
/// rate, bounded by the fastest and slowest rates a port can have (no error at all is 0 at any
/// rate). Sets m.fastest_gbps when bounded.
SeriesReading per_bit_reading(const SeriesStore& store, const Series& s, double t0_s, double t_s,
                              Measurement& m) {
    SeriesReading r;
    const auto rate = rate_in(s, t0_s, t_s);
    const auto gbps = port_rate_for(store, s, t_s);
    if (rate && gbps && *gbps > 0) {
        r.v = *rate / (*gbps * 1e9);
    } else if (rate && !gbps) {
        m.fastest_gbps = fastest_port_gbps(store, s, t_s);
        r.v = *rate / (m.fastest_gbps * 1e9);
        r.high = *rate / (kMinPlausiblePortGbps * 1e9);
        r.bounded = true;
    }
    return r;
}

/// Measure::pause_fraction of `s` in (t0_s, t_s]: the share of time paused, from a duration
/// series, else (when `chosen` has no duration series for the port) from the pause frames at
/// the port's rate. Without a port rate the frames still bound the time paused, from below at
/// the fastest rate a port can have, from above at the slowest (sets m.fastest_gbps).
SeriesReading pause_fraction_reading(const SeriesStore& store, const Series& s,
                                     const std::vector<const Series*>& chosen, double t0_s,
                                     double t_s, Measurement& m) {
    SeriesReading r;
    if (s.key.series == "pfc_pause_duration_us" || s.key.series == "link_pause_duration_us") {
        if (auto rate = rate_in(s, t0_s, t_s)) r.v = std::min(1.0, *rate / 1e6);
        return r;
    }
    if (has_duration_series(chosen, s)) return r;
    const auto rate = rate_in(s, t0_s, t_s);
    const auto gbps = port_rate_for(store, s, t_s);
    if (rate && gbps && *gbps > 0) {
        r.v = std::min(1.0, *rate * pause_quanta_s(*gbps));
    } else if (rate && !gbps) {
        m.fastest_gbps = fastest_port_gbps(store, s, t_s);
        r.v = std::min(1.0, *rate * pause_quanta_s(m.fastest_gbps));
        r.high = std::min(1.0, *rate * pause_quanta_s(kMinPlausiblePortGbps));
        r.bounded = true;
    }
    return r;
}

/// What `c` reads of one series `s` of `chosen` over the window (t0_s, t_s].
SeriesReading read_series(const SeriesStore& store, const Condition& c, const Series& s,
                          const std::vector<const Series*>& chosen, double t0_s, double t_s,
                          Measurement& m) {
    SeriesReading r;
    switch (c.measure) {
        case Measure::increase:
            if (auto w = increase_in(s, t0_s, t_s); w.increase) {
                r.v = static_cast<double>(*w.increase);
                if (c.window_s > 0 && w.covered_s > c.window_s + kWindowSlackS)
                    *r.v *= c.window_s / w.covered_s;
            }
            break;
        case Measure::rate_per_s:
            r.v = rate_in(s, t0_s, t_s);
            break;
        case Measure::value:
            if (c.changed_in_data) {
                const ChangedReading changed = changed_value_at(s, c, t_s);
                r.v = changed.value;
                r.unchanged = changed.unchanged;
            } else {
                r.v = value_at(s, t_s);
            }
            break;
        case Measure::per_bit:
            return per_bit_reading(store, s, t0_s, t_s, m);
        case Measure::share:
            r.v = share_of_siblings(store, s, t0_s, t_s);
            break;
        case Measure::lifetime_value:
        case Measure::lifetime_per_million:
        case Measure::lifetime_share_of_uptime:
            r.v = lifetime_count(s, t_s);
            break;
        case Measure::pause_fraction:
            return pause_fraction_reading(store, s, chosen, t0_s, t_s, m);
    }
    return r;
}

/// A lifetime count as the measure `c` weighs it: per second of uptime (share of uptime) or per
/// million of the `per` series; nullopt when the reference is unknown or 0.
void weigh_lifetime(const SeriesStore& store, const Condition& c, const Group& g, double t,
                    Measurement& m) {
    if (c.measure == Measure::lifetime_share_of_uptime && m.value) {
        const auto up = uptime_s(store, g.host, t);
        m.value = up && *up > 0 ? std::optional<double>(*m.value / 1e6 / *up) : std::nullopt;
    }
    if (c.measure == Measure::lifetime_per_million && m.value) {
        const auto per = per_denominator(store, c, g, t);
        m.value = per && *per > 0 ? std::optional<double>(*m.value * 1e6 / *per) : std::nullopt;
    }
}

/// measure() over the series `chosen` (select_series's): sets m.value, m.high, m.strongest and,
/// with `keep_summed`, m.summed. The verdict alone (holds() per pass) needs no lists.
void measure_over(const SeriesStore& store, const Condition& c, const Group& g, double t,
                  double step_s, const std::vector<const Series*>& chosen, bool keep_summed,
                  Measurement& m) {
    // A window shorter than the pass interval (bundles captured minutes apart) is widened to
    // the interval; an increase is then scaled back to "per window_s", so thresholds keep
    // their meaning as rates.
    const double window = std::max(c.window_s, step_s);
    const bool sums = c.measure == Measure::increase || c.measure == Measure::rate_per_s ||
                      is_lifetime(c.measure);
    double best = -INFINITY;
    bool bounded = false;
    std::optional<double> high;
    bool unchanged = false;
    for (const Series* s : chosen) {
        const double t_s = read_time_for(store, *s, g, t, step_s);
        const SeriesReading r = read_series(store, c, *s, chosen, t_s - window, t_s, m);
        unchanged = unchanged || r.unchanged;
        bounded = bounded || r.bounded;
        if (!r.v) continue;
        high = std::max(high.value_or(-INFINITY), r.high.value_or(*r.v));
        m.value = sums ? m.value.value_or(0) + *r.v : std::max(m.value.value_or(-INFINITY), *r.v);
        if (sums && keep_summed) m.summed.push_back(s);
        if (*r.v > best) {
            best = *r.v;
            m.strongest = s;
        }
    }
    if (bounded && m.value && high) m.high = std::max(*high, *m.value);
    m.unchanged = unchanged && !m.value;
    weigh_lifetime(store, c, g, t, m);
}

}  // namespace

Measurement measure(const SeriesStore& store, const Condition& c, const Group& g, double t,
                    double step_s) {
    Measurement m;
    m.series = select_series(store, c, g, t);
    measure_over(store, c, g, t, step_s, m.series, true, m);
    return m;
}

std::optional<bool> holds(const Condition& c, const Measurement& m) {
    if (m.unchanged) return false;
    if (!m.value) return std::nullopt;
    const bool low = compare(c.op, *m.value, c.threshold);
    if (m.high && compare(c.op, *m.high, c.threshold) != low) return std::nullopt;
    return low;
}

std::optional<bool> holds(const SeriesStore& store, const Expr& e, const Group& g, double t,
                          double step_s) {
    if (e.kind == Expr::Kind::cond) {
        // Called per group, condition and pass: no allocation (one scratch list per thread;
        // measure_over does not come back here).
        thread_local std::vector<const Series*> chosen;
        select_series_into(store, e.cond, g, t, chosen);
        Measurement m;
        measure_over(store, e.cond, g, t, step_s, chosen, false, m);
        return holds(e.cond, m);
    }
    bool unknown = false, any_present = false;
    for (const Expr& child : e.children) {
        // In "any", a condition on series this host does not have (the driver lacks the
        // counter) or never could read (`ip link` without -s has no carrier changes) is not a
        // way for the rule to hold here: skipped, not unknown. A series that has values but
        // none in this window (a read error for a while) is unknown.
        if (e.kind == Expr::Kind::any && child.kind == Expr::Kind::cond) {
            if (!any_selected_valued(store, child.cond, g, t)) continue;
        }
        any_present = true;
        const auto r = holds(store, child, g, t, step_s);
        if (!r) {
            unknown = true;
        } else if (e.kind == Expr::Kind::all && !*r) {
            return false;
        } else if (e.kind == Expr::Kind::any && *r) {
            return true;
        }
    }
    if (unknown || !any_present) return std::nullopt;
    return e.kind == Expr::Kind::all;
}

std::string format_measure(const Condition& c, double v, const std::string& unit) {
    char buf[64];
    switch (c.measure) {
        case Measure::pause_fraction:
            std::snprintf(buf, sizeof buf, "%.0f%% of the time", v * 100);
            break;
        case Measure::per_bit:
            std::snprintf(buf, sizeof buf, "%.2g %s per bit on the line", v,
                          unit.empty() ? "errors" : unit.c_str());
            break;
        case Measure::share:
            std::snprintf(buf, sizeof buf, "%.0f%% of the port's %s", v * 100, unit.c_str());
            break;
        case Measure::rate_per_s:
            std::snprintf(buf, sizeof buf, "%.3g %s/s", v, unit.empty() ? "" : unit.c_str());
            break;
        case Measure::lifetime_value:
            std::snprintf(buf, sizeof buf, "%.0f %s", v, unit.c_str());
            break;
        case Measure::lifetime_share_of_uptime:
            std::snprintf(buf, sizeof buf, "%.2g%% of the uptime", v * 100);
            break;
        case Measure::lifetime_per_million:
            std::snprintf(buf, sizeof buf, "%.3g %s per million %s", v, unit.c_str(),
                          c.per.empty() ? "" : c.per.front().c_str());
            break;
        case Measure::increase:
            std::snprintf(buf, sizeof buf, "%.0f %s", v, unit.c_str());
            if (c.window_s > 0)
                std::snprintf(buf + std::strlen(buf), sizeof buf - std::strlen(buf), " in %.0f s",
                              c.window_s);
            break;
        case Measure::value:
            std::snprintf(buf, sizeof buf, "%g%s%s", v, unit.empty() ? "" : " ", unit.c_str());
            break;
    }
    return buf;
}

std::string format_bounded_measure(const Condition& c, double low, const std::string& unit,
                                   double fastest_gbps) {
    char rate[32];
    std::snprintf(rate, sizeof rate, "%.0f Gb/s", fastest_gbps);
    const std::string which = fastest_gbps < kMaxPlausiblePortGbps
                                  ? std::string(rate) + ", the fastest its NIC model runs"
                                  : std::string(rate) + ", the fastest port rate it can be";
    if (c.measure == Measure::per_bit)
        return "at least " + format_measure(c, low, unit) + " (taking " + which +
               ": the data has no port rate)";
    if (c.measure != Measure::pause_fraction) return "at least " + format_measure(c, low, unit);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s%.0f%% of the time", low >= 1.0 ? "" : "at least ",
                  std::min(low, 1.0) * 100);
    return buf + std::string(" (pause frames x 65535 quanta even at ") + which +
           ": the data has no port rate)";
}

}  // namespace rh

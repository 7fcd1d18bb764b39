#include "rules/engine/measure.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

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

/// Whether priority `prio` of the group's port has pfc_enabled == want at t.
bool pfc_state_is(const SeriesStore& store, const Group& g, const std::string& prio, int want,
                  double t) {
    for (const Series* s : store.find("pfc_enabled")) {
        if (s->key.host != g.host) continue;
        const auto p = s->key.labels.find("priority");
        if (p == s->key.labels.end() || p->second != prio) continue;
        if (!agrees_with_group(s->key.labels, g, HostScope::same, true)) continue;
        if (const auto v = value_at(*s, t)) return static_cast<int>(*v) == want;
    }
    return false;
}

/// The port rate of the series' device/port on its host, Gb/s.
std::optional<double> port_rate_for(const SeriesStore& store, const Series& s, double t) {
    for (const Series* r : store.find("port_rate_gbps")) {
        if (r->key.host != s.key.host) continue;
        const Labels& l = r->key.labels;
        if (l.count("device") && s.key.labels.count("device") &&
            l.at("device") != s.key.labels.at("device"))
            continue;
        if (l.count("port") && s.key.labels.count("port") && l.at("port") != s.key.labels.at("port"))
            continue;
        if (const auto v = value_at(*r, t)) return v;
    }
    return std::nullopt;
}

/// Whether the driver also gives pause duration for the same port/priority/direction (then
/// the frame-count estimate is not used).
bool has_duration_series(const std::vector<const Series*>& chosen, const Series& frames) {
    return std::any_of(chosen.begin(), chosen.end(), [&](const Series* d) {
        return d->key.series == "pfc_pause_duration_us" && d->key.host == frames.key.host &&
               d->key.labels == frames.key.labels;
    });
}

}  // namespace

double pause_quanta_s(double port_gbps) {
    return 65535.0 * 512.0 / (port_gbps * 1e9);
}

std::vector<const Series*> select_series(const SeriesStore& store, const Condition& c,
                                         const Group& g, double t) {
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
                if (!pfc_state_is(store, g, sp->second, *c.on_pfc_priorities, t)) continue;
                if (!agrees_with_group(s->key.labels, g, c.host, true)) continue;
            } else if (!agrees_with_group(s->key.labels, g, c.host, false)) {
                continue;
            }
            out.push_back(s);
        }
    }
    return out;
}

Measurement measure(const SeriesStore& store, const Condition& c, const Group& g, double t,
                    double step_s) {
    Measurement m;
    m.series = select_series(store, c, g, t);
    // A window shorter than the pass interval (bundles captured minutes apart) is widened to
    // the interval; an increase is then scaled back to "per window_s", so thresholds keep
    // their meaning as rates.
    const double window = std::max(c.window_s, step_s);
    const double t0 = t - window;
    double best = -INFINITY;
    for (const Series* s : m.series) {
        std::optional<double> v;
        switch (c.measure) {
            case Measure::increase:
                if (auto w = increase_in(*s, t0, t); w.increase) {
                    v = static_cast<double>(*w.increase);
                    if (c.window_s > 0 && w.covered_s > c.window_s + kWindowSlackS)
                        *v *= c.window_s / w.covered_s;
                }
                break;
            case Measure::rate_per_s:
                v = rate_in(*s, t0, t);
                break;
            case Measure::value:
                v = value_at(*s, t);
                break;
            case Measure::pause_fraction:
                if (s->key.series == "pfc_pause_duration_us") {
                    if (auto r = rate_in(*s, t0, t)) v = std::min(1.0, *r / 1e6);
                } else if (!has_duration_series(m.series, *s)) {
                    const auto r = rate_in(*s, t0, t);
                    const auto gbps = port_rate_for(store, *s, t);
                    if (r && gbps && *gbps > 0) v = std::min(1.0, *r * pause_quanta_s(*gbps));
                }
                break;
        }
        if (!v) continue;
        const bool sums = c.measure == Measure::increase || c.measure == Measure::rate_per_s;
        m.value = sums ? m.value.value_or(0) + *v : std::max(m.value.value_or(-INFINITY), *v);
        if (*v > best) {
            best = *v;
            m.strongest = s;
        }
    }
    return m;
}

std::optional<bool> holds(const Condition& c, const Measurement& m) {
    if (!m.value) return std::nullopt;
    const double v = *m.value, x = c.threshold;
    switch (c.op) {
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
    return std::nullopt;
}

std::optional<bool> holds(const SeriesStore& store, const Expr& e, const Group& g, double t,
                          double step_s) {
    if (e.kind == Expr::Kind::cond) return holds(e.cond, measure(store, e.cond, g, t, step_s));
    bool unknown = false, any_present = false;
    for (const Expr& child : e.children) {
        // In "any", a condition on series this host does not have (the driver lacks the
        // counter) or never could read (`ip link` without -s has no carrier changes) is not a
        // way for the rule to hold here: skipped, not unknown. A series that has values but
        // none in this window (a read error for a while) is unknown.
        if (e.kind == Expr::Kind::any && child.kind == Expr::Kind::cond) {
            const auto chosen = select_series(store, child.cond, g, t);
            if (std::none_of(chosen.begin(), chosen.end(),
                             [](const Series* s) { return s->ever_valued; }))
                continue;
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
        case Measure::rate_per_s:
            std::snprintf(buf, sizeof buf, "%.3g %s/s", v, unit.empty() ? "" : unit.c_str());
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

}  // namespace rh

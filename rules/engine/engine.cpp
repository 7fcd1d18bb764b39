#include "rules/engine/engine.h"

#include <algorithm>
#include <charconv>
#include <set>

#include "collectors/inventory_from_json.h"
#include "rules/engine/evidence.h"
#include "rules/engine/measure.h"
#include "rules/port_usage.h"
#include "store/window.h"

namespace rh {

namespace {

/// Labels that name where a finding is (the rest — priority, direction — say what).
bool is_location_label(const std::string& k) {
    return k == "device" || k == "port" || k == "netdev";
}

/// The groups a rule is evaluated per on `host`: the distinct projections of its same-host
/// series' labels onto group_by, dropping projections contained in a larger one (a probe
/// series without device/port applies to every port of the host).
std::vector<Group> groups_for(const SeriesStore& store, const RuleSpec& rule,
                              const std::string& host) {
    std::set<Labels> seen;
    for (const Condition* c : leaf_conditions(rule.when)) {
        if (c->host != HostScope::same || c->on_pfc_priorities) continue;
        for (const std::string& name : c->series)
            for (const Series* s : store.find(name)) {
                if (s->key.host != host) continue;
                bool match = true;
                for (const auto& [k, v] : c->match) {
                    const auto it = s->key.labels.find(k);
                    if (it == s->key.labels.end() || it->second != v) match = false;
                }
                if (!match) continue;
                Labels proj;
                for (const std::string& k : rule.group_by)
                    if (const auto it = s->key.labels.find(k); it != s->key.labels.end())
                        proj[k] = it->second;
                seen.insert(std::move(proj));
            }
    }
    std::vector<Group> out;
    for (const Labels& l : seen) {
        const bool contained = std::any_of(seen.begin(), seen.end(), [&](const Labels& o) {
            return o.size() > l.size() &&
                   std::all_of(l.begin(), l.end(), [&](const auto& kv) {
                       const auto it = o.find(kv.first);
                       return it != o.end() && it->second == kv.second;
                   });
        });
        if (!contained) out.push_back(Group{host, l});
    }
    return out;
}

std::string series_list(const RuleSpec& rule) {
    std::set<std::string> names;
    for (const Condition* c : leaf_conditions(rule.when))
        for (const auto& s : c->series) names.insert(s);
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
}

/// Whether `e` can hold at all for group `g` given which series exist (and, with
/// `need_values`, ever had a value): a condition without them (the driver lacks the counter for
/// this priority, no other host was recorded, the kernel has no ECN state) is unknown at every
/// pass, so an "all" needing it, or an "any" of only such children, can never be true, whatever
/// the values of the other series.
bool can_hold(const SeriesStore& store, const Expr& e, const Group& g, double t, bool need_values) {
    const auto child = [&](const Expr& c) { return can_hold(store, c, g, t, need_values); };
    switch (e.kind) {
        case Expr::Kind::cond: {
            const auto chosen = select_series(store, e.cond, g, t);
            return need_values ? std::any_of(chosen.begin(), chosen.end(),
                                             [](const Series* s) { return s->ever_valued; })
                               : !chosen.empty();
        }
        case Expr::Kind::all:
            return std::all_of(e.children.begin(), e.children.end(), child);
        case Expr::Kind::any:
            return std::any_of(e.children.begin(), e.children.end(), child);
    }
    return true;
}

/// The conditions of `rule.when` that have no series at all for group `g` (with `need_values`:
/// none that ever had a value), as a list of their series names (for the note of a rule that
/// cannot hold, see can_hold).
std::string absent_series(const SeriesStore& store, const RuleSpec& rule, const Group& g, double t,
                          bool need_values) {
    std::set<std::string> names;
    for (const Condition* c : leaf_conditions(rule.when)) {
        Expr leaf;
        leaf.cond = *c;
        if (can_hold(store, leaf, g, t, need_values)) continue;
        std::string n;
        for (const auto& name : c->series) n += (n.empty() ? "" : "/") + name;
        names.insert(n + (c->host == HostScope::other ? " on another host" : ""));
    }
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
}

std::string group_subject(const Group& g) {
    std::string s = g.host;
    if (g.labels.count("device")) s += " " + g.labels.at("device");
    if (g.labels.count("port")) s += " port " + g.labels.at("port");
    for (const auto& [k, v] : g.labels)
        if (!is_location_label(k)) s += " " + k + " " + v;
    return s;
}

/// Evaluates one time-based rule for one group: the episodes where `when` held long enough.
/// `known` tells whether it could be evaluated at any pass, `undecided` whether it was unknown
/// at some pass.
std::vector<Episode> episodes_for(const SeriesStore& store, const RuleSpec& rule, const Group& g,
                                  const std::vector<double>& passes, bool& known, bool& undecided) {
    std::vector<Episode> out;
    known = undecided = false;
    std::optional<Episode> run;
    auto close = [&] {
        if (run && run->end - run->start + kWindowSlackS >= rule.hold_s) out.push_back(*run);
        run.reset();
    };
    for (std::size_t k = 1; k < passes.size(); ++k) {
        const auto r = holds(store, rule.when, g, passes[k], passes[k] - passes[k - 1]);
        if (r) known = true;
        if (!r) undecided = true;
        if (r && *r) {
            if (!run) run = Episode{passes[k - 1], passes[k]};
            run->end = passes[k];
        } else {
            close();
        }
    }
    close();
    return out;
}

Severity escalated(const SeriesStore& store, const RuleSpec& rule, const Group& g,
                   const std::vector<double>& passes, const std::vector<Episode>& eps) {
    for (const Escalation& e : rule.escalate)
        for (std::size_t k = 1; k < passes.size(); ++k) {
            // ep.start is the pass the episode's first interval starts from: the interval
            // ending there lies before the episode.
            const bool inside = std::any_of(eps.begin(), eps.end(), [&](const Episode& ep) {
                return passes[k] > ep.start && passes[k] <= ep.end;
            });
            if (!inside) continue;
            if (holds(store, e.when, g, passes[k], passes[k] - passes[k - 1]).value_or(false))
                return e.severity;
        }
    return rule.severity;
}

void run_time_rule(const SeriesStore& store, const RuleSpec& rule, const EngineOptions& opts,
                   EngineResult& out) {
    for (const std::string& host : store.hosts()) {
        const auto& passes = store.pass_times(host);
        const auto groups = groups_for(store, rule, host);
        if (groups.empty()) {
            out.not_applicable.push_back(
                {host, rule.id + ": no data for " + series_list(rule) + " on this host"});
            continue;
        }
        // A port that never had carrier nor traffic did not flap and carries nothing: its
        // time rules stay silent (port_not_active notes it, rules/port_usage.h).
        const auto uncabled = never_cabled_ports(store, host);
        for (const Group& g : groups) {
            if (g.labels.count("device") && g.labels.count("port") &&
                uncabled.count({g.labels.at("device"), g.labels.at("port")}))
                continue;
            // A series the rule needs that this host never recorded (upstream kernels have
            // no ECN enable state, one host has no peer's CNP counters) makes the rule not
            // applicable here when it left the rule undecided at some pass, even if other
            // conditions were false at other passes (false at every pass: decided, healthy).
            // Series that exist without usable values leave it unevaluated, likewise. Checked
            // at every pass: which priorities have PFC, so which series count, may change.
            const auto possible = [&](bool need_values) {
                return std::any_of(passes.begin(), passes.end(), [&](double t) {
                    return can_hold(store, rule.when, g, t, need_values);
                });
            };
            bool known = false, undecided = false;
            const auto eps = episodes_for(store, rule, g, passes, known, undecided);
            const bool blocked = undecided || !known;
            if (blocked && !possible(false)) {
                out.not_applicable.push_back(
                    {group_subject(g), rule.id + ": no " +
                                           absent_series(store, rule, g, passes.back(), false) +
                                           " in the data"});
                continue;
            }
            if (!known || (blocked && !possible(true))) {
                const std::string never = absent_series(store, rule, g, passes.back(), true);
                out.unevaluated.push_back(
                    {group_subject(g),
                     rule.id + ": " +
                         (never.empty() ? "its series (" + series_list(rule) +
                                              ") had no usable values in any interval"
                                        : never + " never had a usable value")});
                continue;
            }
            if (eps.empty()) continue;
            Finding f;
            f.rule_id = rule.id;
            f.severity = escalated(store, rule, g, passes, eps);
            f.host = host;
            if (g.labels.count("device")) f.device = g.labels.at("device");
            if (const auto p = g.labels.find("port"); p != g.labels.end()) {
                unsigned port = 0;  // 0 = unknown: a label that is not a number is data, not a bug
                const auto [end, ec] =
                    std::from_chars(p->second.data(), p->second.data() + p->second.size(), port);
                if (ec == std::errc{} && end == p->second.data() + p->second.size()) f.port = port;
            }
            for (const auto& [k, v] : g.labels)
                if (!is_location_label(k)) f.labels[k] = v;
            f.opened_t = eps.front().start;
            f.closed_t = eps.back().end < passes.back() ? eps.back().end : 0;
            f.opened_wall_ms = wall_ms_of(store, f.opened_t);
            f.closed_wall_ms = f.closed_t != 0 ? wall_ms_of(store, f.closed_t) : 0;
            f.episodes = static_cast<unsigned>(eps.size());
            f.explanation = rule.explanation;
            attach_evidence(FindingContext{store, rule, g, passes, eps, opts.lookback_s}, f);
            out.findings.push_back(std::move(f));
        }
    }
}

void run_inventory_check(const SeriesStore& store, const RuleSpec& rule, const EngineOptions& opts,
                         EngineResult& out) {
    const RuleDef* def = nullptr;
    for (const RuleDef& d : all_rules())
        if (rule.check == d.id) def = &d;
    if (!def) return;  // parse_rules rejects unknown checks
    for (const std::string& host : store.hosts()) {
        const auto inv = store.inventories().find(host);
        if (inv == store.inventories().end()) {
            out.not_applicable.push_back({host, rule.id + ": no inventory recorded for this host"});
            continue;
        }
        auto snap = snapshot_from_json(inv->second.snapshot);
        if (!snap) {
            out.unevaluated.push_back({host, rule.id + ": " + snap.error().message()});
            continue;
        }
        if (snap->host.empty()) snap->host = host;
        add_usage_counters(store, host, *snap);  // the inventory keeps no counters
        RuleOutput ro;
        def->evaluate(RuleInput{*snap, opts.peer, opts.required_ports}, ro);
        for (Finding& f : ro.findings) {
            f.rule_id = rule.id;
            if (f.host.empty()) f.host = host;
            if (f.explanation.empty()) f.explanation = rule.explanation;
            f.opened_t = inv->second.t;
            out.findings.push_back(std::move(f));
        }
        for (Note& n : ro.unevaluated) {
            n.subject = host + " " + n.subject;
            out.unevaluated.push_back(std::move(n));
        }
        for (Note& n : ro.notes) {
            n.subject = host + " " + n.subject;
            out.notes.push_back(std::move(n));
        }
    }
}

}  // namespace

EngineResult run_rules(const SeriesStore& store, const RuleSet& rules, const EngineOptions& opts) {
    EngineResult out;
    out.hosts = store.hosts();
    out.wall_clock = store.has_wall_clock();
    bool first = true;
    for (const auto& h : out.hosts) {
        const auto& p = store.pass_times(h);
        if (p.empty()) continue;
        out.t_first = first ? p.front() : std::min(out.t_first, p.front());
        out.t_last = first ? p.back() : std::max(out.t_last, p.back());
        first = false;
    }
    for (const RuleSpec& rule : rules.rules) {
        if (rule.check.empty()) {
            run_time_rule(store, rule, opts, out);
        } else {
            run_inventory_check(store, rule, opts, out);
        }
    }
    std::stable_sort(out.findings.begin(), out.findings.end(),
                     [](const Finding& a, const Finding& b) { return a.opened_t < b.opened_t; });
    return out;
}

}  // namespace rh

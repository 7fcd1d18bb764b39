#include "rules/engine/engine.h"

#include <algorithm>
#include <set>

#include "collectors/inventory_from_json.h"
#include "rules/engine/evidence.h"
#include "rules/engine/measure.h"
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

/// The conditions of `rule.when` that have no series at all for group `g` (the driver lacks the
/// counter for this priority, no other host was recorded, the kernel has no ECN state), as a
/// list of their series names; empty when every condition has data. In an "any" rule the absent
/// ones only count when all are absent (the others could have decided it).
std::string absent_series(const SeriesStore& store, const RuleSpec& rule, const Group& g,
                          double t) {
    std::set<std::string> names;
    const auto leaves = leaf_conditions(rule.when);
    std::size_t absent = 0;
    for (const Condition* c : leaves) {
        if (!select_series(store, *c, g, t).empty()) continue;
        ++absent;
        std::string n;
        for (const auto& name : c->series) n += (n.empty() ? "" : "/") + name;
        names.insert(n + (c->host == HostScope::other ? " on another host" : ""));
    }
    if (rule.when.kind == Expr::Kind::any && absent < leaves.size()) return {};
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
/// `known` tells whether it could be evaluated at any pass.
std::vector<Episode> episodes_for(const SeriesStore& store, const RuleSpec& rule, const Group& g,
                                  const std::vector<double>& passes, bool& known) {
    std::vector<Episode> out;
    known = false;
    std::optional<Episode> run;
    auto close = [&] {
        if (run && run->end - run->start + kWindowSlackS >= rule.hold_s) out.push_back(*run);
        run.reset();
    };
    for (std::size_t k = 1; k < passes.size(); ++k) {
        const auto r = holds(store, rule.when, g, passes[k], passes[k] - passes[k - 1]);
        if (r) known = true;
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
            const bool inside = std::any_of(eps.begin(), eps.end(), [&](const Episode& ep) {
                return passes[k] >= ep.start && passes[k] <= ep.end;
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
        for (const Group& g : groups) {
            bool known = false;
            const auto eps = episodes_for(store, rule, g, passes, known);
            if (!known) {
                // A series the rule needs that this host never recorded (upstream kernels have
                // no ECN enable state, one host has no peer's CNP counters) makes the rule not
                // applicable here; series that exist without usable values leave it unevaluated.
                const std::string absent = absent_series(store, rule, g, passes.back());
                if (!absent.empty())
                    out.not_applicable.push_back(
                        {group_subject(g), rule.id + ": no " + absent + " in the data"});
                else
                    out.unevaluated.push_back(
                        {group_subject(g), rule.id + ": its series (" + series_list(rule) +
                                               ") had no usable values in any interval"});
                continue;
            }
            if (eps.empty()) continue;
            Finding f;
            f.rule_id = rule.id;
            f.severity = escalated(store, rule, g, passes, eps);
            f.host = host;
            if (g.labels.count("device")) f.device = g.labels.at("device");
            if (g.labels.count("port")) f.port = static_cast<unsigned>(std::stoul(g.labels.at("port")));
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
        RuleOutput ro;
        def->evaluate(RuleInput{*snap, opts.peer}, ro);
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

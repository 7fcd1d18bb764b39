#include "rules/engine/engine.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <set>
#include <span>

#include "core/inventory/inventory.h"
#include "rules/engine/checks.h"
#include "rules/engine/evidence.h"
#include "rules/engine/measure.h"
#include "rules/engine/verdict_cache.h"
#include "rules/evidence_format.h"
#include "rules/joblog/log_rules.h"
#include "rules/port_usage.h"
#include "store/window.h"

namespace rh {

namespace {

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
            return o.size() > l.size() && std::all_of(l.begin(), l.end(), [&](const auto& kv) {
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

/// Whether `rule` needs the time between passes: a hold, a window, or a rate of any kind. A
/// per-step increase (window 0), a gauge and a lifetime count do not.
bool needs_interval(const RuleSpec& rule) {
    if (rule.hold_s > 0) return true;
    for (const Condition* c : leaf_conditions(rule.when))
        if (c->window_s > 0 || c->measure == Measure::rate_per_s ||
            c->measure == Measure::pause_fraction || c->measure == Measure::per_bit)
            return true;
    return false;
}

/// The index of the pass at (or nearest after) engine time `t` in `passes`.
std::size_t pass_index(const std::vector<double>& passes, double t) {
    const auto it = std::lower_bound(passes.begin(), passes.end(), t - kWindowSlackS);
    return static_cast<std::size_t>(
        std::min(it - passes.begin(), static_cast<std::ptrdiff_t>(passes.size()) - 1));
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
            return need_values ? any_selected_valued(store, e.cond, g, t)
                               : !select_series(store, e.cond, g, t).empty();
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

/// Whether every condition of `e` can be read on one pass (a gauge or a lifetime count): such
/// a rule is evaluated on a single capture too.
bool reads_one_pass(const Expr& e) {
    const auto leaves = leaf_conditions(e);
    return std::all_of(leaves.begin(), leaves.end(), [](const Condition* c) {
        return c->measure == Measure::value || is_lifetime(c->measure);
    });
}

/// The longest window_s of the conditions of `e` that measure over time, seconds.
double longest_window_s(const Expr& e) {
    double w = 0;
    for (const Condition* c : leaf_conditions(e))
        if (c->measure != Measure::value && !is_lifetime(c->measure)) w = std::max(w, c->window_s);
    return w;
}

/// A condition's result at one pass and whether more data before it could change it.
struct Verdict {
    std::optional<bool> holds;
    bool conclusive = false;
};

/// Like holds(), plus whether the result stands on the data it had. A counter increase over a
/// window the data covers only partly is a lower bound: "grew" (> / >=) and "did not stay
/// below" (< / <= / == false) stand, as does "did not grow at all" (nothing happened in the
/// data); "stayed at zero over 30 s" measured over 10 s does not. Any other windowed measure
/// stands only over its full window; gauges, per-interval rates and lifetime counts always.
Verdict judge(const SeriesStore& store, const Expr& e, const Group& g, double t, double step_s) {
    if (e.kind == Expr::Kind::cond) {
        const Condition& c = e.cond;
        const Measurement m = measure(store, c, g, t, step_s);
        Verdict v{holds(c, m), false};
        if (!v.holds) return v;
        if (c.window_s <= 0 || c.measure == Measure::value || is_lifetime(c.measure)) {
            v.conclusive = true;
            return v;
        }
        double covered = 0;
        for (const Series* s : m.series) {
            const double t_s = read_time_for(store, *s, g, t, step_s);
            covered = std::max(covered,
                               increase_in(*s, t_s - std::max(c.window_s, step_s), t_s).covered_s);
        }
        const bool full = covered + kWindowSlackS >= c.window_s;
        const bool grows = c.op == Compare::gt || c.op == Compare::ge;
        const bool stays_low = c.op == Compare::lt || c.op == Compare::le || c.op == Compare::eq;
        v.conclusive =
            full || (c.measure == Measure::increase &&
                     ((grows && (*v.holds || *m.value == 0)) || (stays_low && !*v.holds)));
        return v;
    }
    bool unknown = false, any_present = false, decisive = false, all_conclusive = true;
    bool value_false = false, value_true = false;
    for (const Expr& child : e.children) {
        if (e.kind == Expr::Kind::any && child.kind == Expr::Kind::cond) {  // as holds() skips
            if (!any_selected_valued(store, child.cond, g, t)) continue;
        }
        any_present = true;
        const Verdict r = judge(store, child, g, t, step_s);
        if (!r.holds) {
            unknown = true;
            continue;
        }
        all_conclusive = all_conclusive && r.conclusive;
        if (*r.holds) value_true = true;
        if (!*r.holds) value_false = true;
        // all: a conclusive false decides; any: a conclusive true decides.
        if (r.conclusive && *r.holds == (e.kind == Expr::Kind::any)) decisive = true;
    }
    Verdict v;
    if (e.kind == Expr::Kind::all) {
        if (value_false) return {false, decisive};
        if (unknown || !any_present) return v;
        return {true, all_conclusive};
    }
    if (value_true) return {true, decisive};
    if (unknown || !any_present) return v;
    return {false, all_conclusive};
}

/// Calls fn(pass index, interval ending there in seconds) for each pass a rule is evaluated at,
/// from pass index `from` on: every pass after the first; on a single pass, that pass (interval
/// 0) for a rule reading only gauges or lifetime counts, else none. fn returns false to stop.
template <typename Fn>
void for_each_evaluation_pass(const RuleSpec& rule, const std::vector<double>& passes, Fn fn,
                              std::size_t from = 0) {
    if (passes.size() == 1 && from == 0 && reads_one_pass(rule.when) && !fn(std::size_t{0}, 0.0))
        return;
    for (std::size_t k = std::max<std::size_t>(from, 1); k < passes.size(); ++k)
        if (!fn(k, passes[k] - passes[k - 1])) return;
}

/// The last pass for_each_evaluation_pass visits, or nullopt when it visits none.
std::optional<std::pair<std::size_t, double>> last_evaluation_pass(
    const RuleSpec& rule, const std::vector<double>& passes) {
    if (passes.size() > 1)
        return std::pair{passes.size() - 1, passes.back() - passes[passes.size() - 2]};
    if (passes.size() == 1 && reads_one_pass(rule.when)) return std::pair{std::size_t{0}, 0.0};
    return std::nullopt;
}

/// What one time-based rule's verdicts for one group over the store's passes give.
struct Outcome {
    std::vector<Episode> episodes;  ///< where `when` held for at least the rule's hold_s
    bool known = false;             ///< a verdict (true or false) at some evaluation pass
    bool undecided = false;         ///< unknown at some evaluation pass
};

/// The pass before the pass at `t` (t itself when it is the first): where an episode whose
/// first true verdict is at t starts (the interval ending at t begins there).
double pass_before(const std::vector<double>& passes, double t) {
    const auto it = std::lower_bound(passes.begin(), passes.end(), t);
    return it == passes.begin() ? t : *std::prev(it);
}

/// Evaluates one time-based rule for one group. With `kept` (VerdictCache), its runs of
/// verdicts at passes settled before `settled_before` are trimmed to the store's passes, only
/// the passes after them are evaluated (the settled ones added), and the outcome is read from
/// the runs: O(new passes + runs + log passes). Without, every pass is evaluated (the same
/// code over an empty entry, nothing settled).
Outcome evaluate_rule(const SeriesStore& store, const RuleSpec& rule, const Group& g,
                      const std::vector<double>& passes, VerdictCache::Entry* kept,
                      double settled_before) {
    VerdictCache::Entry scratch;
    VerdictCache::Entry& e = kept ? *kept : scratch;
    // Verdicts of passes the store no longer holds (its retention) go first.
    e.settled.trim(passes.size() > 1 ? passes[1] : passes.empty() ? 0 : passes[0]);
    const std::size_t from =
        e.settled_through ? static_cast<std::size_t>(
                                std::upper_bound(passes.begin(), passes.end(), *e.settled_through) -
                                passes.begin())
                          : 0;
    VerdictCache::Verdicts fresh;  // verdicts that may still change: this run only
    for_each_evaluation_pass(
        rule, passes,
        [&](std::size_t k, double step_s) {
            const double t = passes[k];
            const auto r = holds(store, rule.when, g, t, step_s);
            if (kept && fresh.runs.empty() && verdict_settled(t, step_s, settled_before)) {
                e.settled.add(r, t);
                e.settled_through = t;
            } else {
                fresh.add(r, t);
            }
            return true;
        },
        from);
    Outcome out;
    std::optional<Episode> run;
    const auto close = [&] {
        if (run && run->end - run->start + kWindowSlackS >= rule.hold_s)
            out.episodes.push_back(*run);
        run.reset();
    };
    for (const auto* runs : {&e.settled.runs, &fresh.runs})
        for (const VerdictCache::VerdictRun& v : *runs) {
            out.known = out.known || v.holds.has_value();
            out.undecided = out.undecided || !v.holds;
            if (v.holds && *v.holds) {
                if (!run) run = Episode{pass_before(passes, v.t_first), v.t_last};
                run->end = v.t_last;
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
        for (const Episode& ep : eps)
            // ep.start is the pass the episode's first interval starts from: the interval
            // ending there lies before the episode.
            for (auto k = static_cast<std::size_t>(
                     std::upper_bound(passes.begin(), passes.end(), ep.start) - passes.begin());
                 k < passes.size() && passes[k] <= ep.end; ++k)
                if (k > 0 &&
                    holds(store, e.when, g, passes[k], passes[k] - passes[k - 1]).value_or(false))
                    return e.severity;
    return rule.severity;
}

/// Fills a finding's identity (host, device, port, labels) from its group.
void set_location(const Group& g, Finding& f) {
    f.host = g.host;
    if (g.labels.count("device")) f.device = g.labels.at("device");
    if (const auto p = g.labels.find("port"); p != g.labels.end()) {
        unsigned port = 0;  // 0 = unknown: a label that is not a number is data, not a bug
        const auto [end, ec] =
            std::from_chars(p->second.data(), p->second.data() + p->second.size(), port);
        if (ec == std::errc{} && end == p->second.data() + p->second.size()) f.port = port;
    }
    for (const auto& [k, v] : g.labels)
        if (!is_location_label(k)) f.labels[k] = v;
}

std::string seconds_text(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g s", std::round(s * 10) / 10);
    return buf;
}

/// Records that `rule` could not be judged on `host` (once per host and rule).
void add_not_judged(const RuleSpec& rule, const std::string& host,
                    const std::vector<double>& passes, EngineResult& out) {
    for (const NotJudged& n : out.not_judged)
        if (n.host == host && n.rule_id == rule.id) return;
    NotJudged n;
    n.host = host;
    n.rule_id = rule.id;
    n.window_s = longest_window_s(rule.when);
    n.hold_s = rule.hold_s;
    n.need_s = std::max(n.window_s, n.hold_s);
    n.span_s = passes.back() - passes.front();
    n.passes = passes.size();
    std::string what;
    if (n.window_s > 0) what = "a " + seconds_text(n.window_s) + " window";
    if (n.hold_s > 0) what += (what.empty() ? "a " : ", a ") + seconds_text(n.hold_s) + " hold";
    if (passes.size() == 1) {
        n.kind = "one_capture";
        n.text = rule.id + " needs two captures" +
                 (n.need_s > 0 ? " at least " + seconds_text(n.need_s) + " apart (" + what + ")"
                               : " (its rates are changes between captures)") +
                 "; there is one";
    } else {
        n.kind = "short_span";
        n.text = rule.id + " needs " + seconds_text(n.need_s) + " of data (" + what +
                 "); the data spans " + seconds_text(n.span_s);
    }
    out.not_judged.push_back(std::move(n));
}

/// Whether the data already rules the rule out for `g` although it spans less than the rule
/// needs: known, false and conclusive (judge()) at every pass it was evaluated at.
bool ruled_out_on_short_data(const SeriesStore& store, const RuleSpec& rule, const Group& g,
                             const std::vector<double>& passes) {
    bool any = false, all = true;
    for_each_evaluation_pass(rule, passes, [&](std::size_t k, double step_s) {
        any = true;
        const Verdict v = judge(store, rule.when, g, passes[k], step_s);
        all = v.holds && !*v.holds && v.conclusive;
        return all;
    });
    return any && all;
}

/// Whether series `s` has a reading (count or value) at pass time t.
bool has_reading_at(const Series& s, double t) {
    // Points are in time order: start a little before the reach (no rounding at its edge).
    auto p = std::lower_bound(s.points.begin(), s.points.end(), t - 2 * kWindowSlackS,
                              [](const Point& a, double x) { return a.t < x; });
    for (; p != s.points.end() && p->t <= t + 2 * kWindowSlackS; ++p)
        if (std::abs(p->t - t) <= kWindowSlackS && p->readable()) return true;
    return false;
}

/// Why `rule` reached no verdict for `g` although its series had values: each series that had
/// values before but none at the last pass ("rnr_nak_received has no value in the last capture;
/// last read from cap-0/hw_counters.txt:4"), else a pause fraction or per-bit ratio without a
/// port rate ("no port rate in the capture to turn pause frames into time"), else a generic
/// sentence. `t_last` is the host's last pass and `step_s` the interval ending there (another
/// host's series are read at that host's own nearest capture, read_time_for).
std::string no_verdict_reason(const SeriesStore& store, const RuleSpec& rule, const Group& g,
                              double t_last, double step_s) {
    std::vector<std::string> lost, lost_files;
    bool no_rate_pause = false, no_rate_bits = false;
    for (const Condition* c : leaf_conditions(rule.when)) {
        for (const Series* s : select_series(store, *c, g, t_last)) {
            if (!s->ever_valued) continue;
            if (!has_reading_at(*s, read_time_for(store, *s, g, t_last, step_s))) {
                if (std::find(lost.begin(), lost.end(), s->key.series) == lost.end())
                    lost.push_back(s->key.series);
                // "cap-0/hw_counters.txt:18" -> "cap-0/hw_counters.txt"
                const std::string src = s->metas.empty() ? "" : s->metas.back().source;
                const std::string file = src.substr(
                    0, src.rfind(':') == std::string::npos ? src.size() : src.rfind(':'));
                if (!file.empty() &&
                    std::find(lost_files.begin(), lost_files.end(), file) == lost_files.end())
                    lost_files.push_back(file);
                continue;
            }
            const bool frames =
                s->key.series == "pfc_pause_frames" || s->key.series == "link_pause_frames";
            if (c->measure == Measure::pause_fraction && frames) no_rate_pause = true;
            if (c->measure == Measure::per_bit) no_rate_bits = true;
        }
    }
    if (!lost.empty()) {
        std::string out, files;
        for (const auto& l : lost) out += (out.empty() ? "" : ", ") + l;
        for (const auto& f : lost_files) files += (files.empty() ? "" : ", ") + f;
        out += lost.size() == 1 ? " has" : " have";
        out += " no value in the last capture";
        if (!files.empty()) out += " (last read from " + files + ")";
        return out;
    }
    if (no_rate_pause)
        return "no port rate in the capture to turn pause frames into time (and the frames "
               "alone neither reach the threshold at the fastest port rate nor stay below it at "
               "the slowest)";
    if (no_rate_bits) return "no port rate in the capture to turn errors into a share of line bits";
    return "its series (" + series_list(rule) +
           ") had values, but no verdict could be reached "
           "from them at any capture";
}

/// Records that `rule` reached no verdict for `g` on data it had values for (kind
/// "no_verdict"; text "pause_storm on gpu01 mlx5_0 port 1 direction rx priority 3: no port
/// rate ...").
void add_no_verdict(const SeriesStore& store, const RuleSpec& rule, const Group& g,
                    const std::vector<double>& passes, EngineResult& out) {
    NotJudged n;
    n.host = g.host;
    n.rule_id = rule.id;
    n.kind = "no_verdict";
    n.window_s = longest_window_s(rule.when);
    n.hold_s = rule.hold_s;
    n.need_s = std::max(n.window_s, n.hold_s);
    n.span_s = passes.back() - passes.front();
    n.passes = passes.size();
    n.text = rule.id + " on " + group_subject(g) + ": " +
             no_verdict_reason(store, rule, g, passes.back(),
                               passes.size() > 1 ? passes.back() - passes[passes.size() - 2] : 0);
    out.not_judged.push_back(std::move(n));
}

/// What one engine run shares between rules: each host's inventory with its usage counters (once
/// per run), the ports never cabled per host, the verdict cache and its settled bound. The
/// store keeps the inventories typed (SeriesStore::Inventory): nothing is parsed here.
struct RunState {
    VerdictCache* cache = nullptr;
    double settled_before = 0;
    std::map<std::string, std::optional<Snapshot>> with_usage;
    std::map<std::string, std::set<std::pair<std::string, std::string>>> uncabled;

    /// `host`'s inventory; nullptr when the store has none.
    static const SeriesStore::Inventory* inventory(const SeriesStore& store,
                                                   const std::string& host) {
        const auto inv = store.inventories().find(host);
        return inv == store.inventories().end() ? nullptr : &inv->second;
    }

    /// `host`'s inventory with the store's usage counters (add_usage_counters): what the
    /// inventory checks read. nullptr when the store has none or its facts did not decode.
    const Snapshot* inventory_with_usage(const SeriesStore& store, const std::string& host) {
        auto it = with_usage.find(host);
        if (it == with_usage.end()) {
            std::optional<Snapshot> snap;
            if (const SeriesStore::Inventory* inv = inventory(store, host); inv && inv->snapshot) {
                snap = *inv->snapshot;
                add_usage_counters(store, host, *snap);   // the inventory keeps no counters
                apply_state_history(store, host, *snap);  // the port state of the last capture
            }
            it = with_usage.emplace(host, std::move(snap)).first;
        }
        return it->second ? &*it->second : nullptr;
    }

    const std::set<std::pair<std::string, std::string>>& uncabled_on(const SeriesStore& store,
                                                                     const std::string& host) {
        auto it = uncabled.find(host);
        if (it == uncabled.end()) {
            const Snapshot* snap = inventory_with_usage(store, host);
            it = uncabled
                     .emplace(host, snap ? never_cabled_ports(*snap, store, host)
                                         : decltype(it->second){})
                     .first;
        }
        return it->second;
    }
};

/// The conditions a time rule evaluates per pass: the rule's, its escalations', its
/// alternatives' and supporting signals' (evidence).
std::vector<const Condition*> evaluated_conditions(const RuleSpec& rule) {
    std::vector<const Condition*> conditions = leaf_conditions(rule.when);
    for (const Escalation& e : rule.escalate)
        for (const Condition* c : leaf_conditions(e.when)) conditions.push_back(c);
    for (const Alternative& a : rule.alternatives)
        for (const Condition* c : leaf_conditions(a.indicated_by)) conditions.push_back(c);
    for (const Condition& c : rule.supports) conditions.push_back(&c);
    return conditions;
}

/// Records that `rule` needs the time between captures, which `host`'s data has not (kind
/// "no_interval": pass times that are an order only).
void add_no_interval(const RuleSpec& rule, const std::string& host,
                     const std::vector<double>& passes, EngineResult& out) {
    NotJudged n;
    n.host = host;
    n.rule_id = rule.id;
    n.kind = "no_interval";
    n.window_s = longest_window_s(rule.when);
    n.hold_s = rule.hold_s;
    n.need_s = std::max(n.window_s, n.hold_s);
    n.passes = passes.size();
    n.text = rule.id + " needs the time between captures";
    out.not_judged.push_back(std::move(n));
}

/// One time rule on one group of one host, at its host's passes.
struct GroupRun {
    const SeriesStore& store;
    const RuleSpec& rule;
    const Group& g;
    const std::vector<double>& passes;
    VerdictCache::Entry* kept;  ///< what the VerdictCache keeps of the group; nullptr without one
    double settled_before;

    /// Whether the rule can hold at some pass (can_hold). A series the rule needs that this
    /// host never recorded (upstream kernels have no ECN enable state, one host has no peer's
    /// CNP counters) means the rule cannot hold here whatever the other series do. Checked at
    /// every pass: which priorities have PFC, so which series count, may change.
    bool possible(bool need_values) const {
        if (!kept)
            return std::any_of(passes.begin(), passes.end(), [&](double t) {
                return can_hold(store, rule.when, g, t, need_values);
            });
        // Settled passes already checked are not checked again (VerdictCache).
        VerdictCache::Possible& p = kept->possible[need_values ? 1 : 0];
        if (p.at && !passes.empty() && *p.at >= passes.front()) return true;
        const auto from = p.none_through
                              ? std::upper_bound(passes.begin(), passes.end(), *p.none_through)
                              : passes.begin();
        for (const double t : std::span(from, passes.end())) {
            const bool settled = verdict_settled(t, 0, settled_before);
            if (can_hold(store, rule.when, g, t, need_values)) {
                if (settled) p.at = t;
                return true;
            }
            if (settled) p.none_through = t;
        }
        return false;
    }
};

/// Reports why a rule that can hold for the group gives no verdict there: too little data
/// (not judged), series with values that decided nothing (no verdict), or no usable value
/// (unevaluated). True when it reported one, so the group gives no finding.
bool reported_unjudged(const GroupRun& gr, const Outcome& outcome, const std::string& host,
                       EngineResult& out) {
    const RuleSpec& rule = gr.rule;
    const auto& passes = gr.passes;
    const bool known = outcome.known, blocked = outcome.undecided || !known;
    const bool none = outcome.episodes.empty();
    // Too little data to judge: one capture for a rule that measures rates, or a span
    // shorter than its window or hold that does not already rule it out. Not healthy.
    if (none) {
        const bool one_pass = passes.size() == 1;
        const double need = std::max(longest_window_s(rule.when), rule.hold_s);
        const bool short_data =
            one_pass ? !reads_one_pass(rule.when)
                     : known && passes.back() - passes.front() + kWindowSlackS < need;
        if (short_data && (one_pass || !ruled_out_on_short_data(gr.store, rule, gr.g, passes))) {
            add_not_judged(rule, host, passes, out);
            return true;
        }
    }
    // Series with values that gave no verdict (pause frames without a port rate that
    // bound nothing, a counter that lost its value at the last capture): not healthy.
    if (none && gr.possible(true)) {
        const auto at = last_evaluation_pass(rule, passes);
        const bool last_unknown =
            at && !holds(gr.store, rule.when, gr.g, passes[at->first], at->second);
        if (!known || last_unknown) {
            add_no_verdict(gr.store, rule, gr.g, passes, out);
            return true;
        }
    }
    if (!known || (blocked && !gr.possible(true))) {
        const std::string never = absent_series(gr.store, rule, gr.g, passes.back(), true);
        out.unevaluated.push_back(
            {group_subject(gr.g), rule.id + ": " +
                                      (never.empty() ? "its series (" + series_list(rule) +
                                                           ") had no usable values in any interval"
                                                     : never + " never had a usable value")});
        return true;
    }
    return false;
}

/// The finding of a time rule that held in `eps` for the group, with its evidence.
void add_time_finding(const GroupRun& gr, const std::vector<Episode>& eps,
                      const EngineOptions& opts, const std::string& host, EngineResult& out) {
    const SeriesStore& store = gr.store;
    const auto& passes = gr.passes;
    Finding f;
    f.rule_id = gr.rule.id;
    f.severity = escalated(store, gr.rule, gr.g, passes, eps);
    set_location(gr.g, f);
    f.opened_t = eps.front().start;
    f.closed_t = eps.back().end < passes.back() ? eps.back().end : 0;
    f.opened_wall_ms = wall_ms_of(store, f.opened_t);
    f.closed_wall_ms = f.closed_t != 0 ? wall_ms_of(store, f.closed_t) : 0;
    f.episodes = static_cast<unsigned>(eps.size());
    f.explanation = gr.rule.explanation;
    attach_evidence(FindingContext{store, gr.rule, gr.g, passes, eps, opts.lookback_s}, f);
    if (opts.unspaced_hosts.count(host) &&
        f.confidence_reason.starts_with("the condition held for "))
        // Pass times 1 apart are an order, not seconds: say how many captures it spans.
        f.confidence_reason = "the condition held across captures " +
                              std::to_string(pass_index(passes, eps.front().start) + 1) + " to " +
                              std::to_string(pass_index(passes, eps.back().end) + 1) +
                              " (no clock: no duration)" +
                              f.confidence_reason.substr(f.confidence_reason.find(" s") + 2);
    out.findings.push_back(std::move(f));
}

/// One time rule on one group of `host`: a finding, or why there is none; adds the host to
/// `applicable_hosts` when the rule could be applied to the group.
void judge_group(const SeriesStore& store, const RuleSpec& rule, const Group& g,
                 const std::string& host, const std::vector<const Condition*>& conditions,
                 const EngineOptions& opts, RunState& run, EngineResult& out,
                 std::set<std::string>& applicable_hosts) {
    // Which series each condition reads: kept with the verdicts while the store's layout
    // holds (VerdictCache), else matched again for this run.
    VerdictCache::Entry* kept = run.cache ? &run.cache->entry(rule.id, g) : nullptr;
    if (kept && !kept->selections) kept->selections = SelectionMemo::select(store, g, conditions);
    std::optional<SelectionMemo> memo;
    if (kept)
        memo.emplace(store, g, *kept->selections);
    else
        memo.emplace(store, g, conditions);
    const auto& passes = store.pass_times(host);
    const GroupRun gr{store, rule, g, passes, kept, run.settled_before};
    const Outcome outcome = evaluate_rule(store, rule, g, passes, kept, run.settled_before);
    // A rule that cannot hold here: not applicable when that left it undecided at some pass;
    // false at every pass is decided (healthy). Either way a span shorter than its window
    // does not matter, so a busier host is not judged on other grounds than a quiet one.
    // Series that exist without usable values leave it unevaluated.
    if (!gr.possible(false)) {
        if (outcome.undecided || !outcome.known)
            out.not_applicable.push_back(
                {group_subject(g), rule.id + ": no " +
                                       absent_series(store, rule, g, passes.back(), false) +
                                       " in the data"});
        else
            applicable_hosts.insert(host);
        return;
    }
    applicable_hosts.insert(host);
    if (reported_unjudged(gr, outcome, host, out) || outcome.episodes.empty()) return;
    add_time_finding(gr, outcome.episodes, opts, host, out);
}

/// Runs one time-based rule on every host; adds each host where some group of the rule had
/// the series it needs to `applicable_hosts`.
void run_time_rule(const SeriesStore& store, const RuleSpec& rule, const EngineOptions& opts,
                   RunState& run, EngineResult& out, std::set<std::string>& applicable_hosts) {
    const std::vector<const Condition*> conditions = evaluated_conditions(rule);
    for (const std::string& host : store.hosts()) {
        const auto& passes = store.pass_times(host);
        const auto groups = groups_for(store, rule, host);
        if (groups.empty()) {
            out.not_applicable.push_back(
                {host, rule.id + ": no data for " + series_list(rule) + " on this host"});
            continue;
        }
        if (opts.unspaced_hosts.count(host) && passes.size() > 1 && needs_interval(rule)) {
            applicable_hosts.insert(host);
            add_no_interval(rule, host, passes, out);
            continue;
        }
        // A port that never had carrier nor traffic did not flap and carries nothing: its
        // time rules stay silent (port_not_active notes it, rules/port_usage.h).
        const auto& uncabled = run.uncabled_on(store, host);
        for (const Group& g : groups)
            if (!uncabled_group(uncabled, g.labels))
                judge_group(store, rule, g, host, conditions, opts, run, out, applicable_hosts);
    }
}

/// What a lifetime rule that gave no verdict for `g` at `t` lacked to weigh its counters
/// against: the `per` series (or uptime) missing while the counters themselves are there.
std::set<std::string> missing_references(const SeriesStore& store, const RuleSpec& rule,
                                         const Group& g, const std::string& host, double t) {
    std::set<std::string> per;
    for (const Condition* c : leaf_conditions(rule.when)) {
        if (c->measure == Measure::lifetime_share_of_uptime) {
            Condition count = *c;
            count.measure = Measure::lifetime_value;
            const auto n = measure(store, count, g, t, 0).value;
            if (n && *n > 0 && !uptime_s(store, host, t))
                per.insert("uptime_s (an `uptime` or `cat /proc/uptime` capture)");
            continue;
        }
        if (c->per.empty()) continue;
        Condition count = *c;
        count.measure = Measure::lifetime_value;
        count.per.clear();
        const auto n = measure(store, count, g, t, 0).value;
        if (n && *n > 0 && !measure(store, *c, g, t, 0).value)
            for (const auto& p : c->per) per.insert(p);
    }
    return per;
}

/// Records (once per host and rule) that a lifetime rule could not weigh its counters against
/// `per` (kind "no_reference").
void add_no_reference(const RuleSpec& rule, const std::string& host,
                      const std::vector<double>& passes, const std::set<std::string>& per,
                      EngineResult& out) {
    std::string names;
    for (const auto& p : per) names += (names.empty() ? "" : " or ") + p;
    NotJudged n;
    n.host = host;
    n.rule_id = rule.id;
    n.kind = "no_reference";
    n.span_s = passes.back() - passes.front();
    n.passes = passes.size();
    n.text = rule.id + " weighs " + series_list(rule) +
             " since the counters were last reset against " + names +
             ", which the capture does not have";
    if (std::none_of(out.not_judged.begin(), out.not_judged.end(),
                     [&](const NotJudged& o) { return o.host == host && o.rule_id == rule.id; }))
        out.not_judged.push_back(std::move(n));
}

/// The finding of a lifetime rule that holds for `g` at the last pass `t`: a finding when the
/// rates could not be judged (`rates_reason`), else a historical note.
void add_lifetime_finding(const SeriesStore& store, const RuleSpec& rule, const Group& g,
                          const std::vector<double>& passes, const std::string& rates_reason,
                          EngineResult& out) {
    const double t = passes.back();
    Finding f;
    f.rule_id = rule.id;
    f.severity = rule.severity;
    set_location(g, f);
    f.opened_t = t;
    f.opened_wall_ms = wall_ms_of(store, t);
    f.explanation = rule.explanation;
    const std::vector<Episode> eps{Episode{t, t}};
    attach_lifetime_evidence(FindingContext{store, rule, g, passes, eps, 0}, rates_reason, f);
    if (rates_reason.empty()) {
        out.history.push_back(
            {group_subject(g),
             rule.id + ": " + f.summary +
                 " Historical: the captures' rates were judged and outrank this."});
        return;
    }
    out.findings.push_back(std::move(f));
}

/// A lifetime rule (RuleSpec::instead_of) on each host's latest pass. Where one of the rate
/// rules it stands in for could not be judged on the host, it may give a finding (confidence
/// low); where they were judged, rates outrank it and a holding lifetime rule is a historical
/// note. Runs after the rate rules (their not_judged entries are in `out`).
void run_lifetime_rule(const SeriesStore& store, const RuleSpec& rule, EngineResult& out) {
    for (const std::string& host : store.hosts()) {
        const auto& passes = store.pass_times(host);
        if (passes.empty()) continue;
        std::string rates_reason;
        for (const NotJudged& n : out.not_judged)
            if (n.host == host && std::find(rule.instead_of.begin(), rule.instead_of.end(),
                                            n.rule_id) != rule.instead_of.end()) {
                rates_reason = "rates could not be judged (" + n.text + ")";
                break;
            }
        const bool rates_judged = rates_reason.empty();
        const auto groups = groups_for(store, rule, host);
        if (groups.empty()) {
            if (!rates_judged)
                out.not_applicable.push_back(
                    {host, rule.id + ": no data for " + series_list(rule) + " on this host"});
            continue;
        }
        const double t = passes.back();
        for (const Group& g : groups) {
            const auto r = holds(store, rule.when, g, t, 0);
            if (r && *r) add_lifetime_finding(store, rule, g, passes, rates_reason, out);
            if (r || rates_judged) continue;  // decided, or the rates decided: nothing to add
            // Counters there with nothing to weigh them against: say so. Any other unknown (a
            // driver without one of the counters) leaves this rule silent; the rate rules it
            // stands in for are named as not judged already.
            const auto per = missing_references(store, rule, g, host, t);
            if (!per.empty()) add_no_reference(rule, host, passes, per, out);
        }
    }
}

/// A check comparing hosts (fabric_consistency): every host's inventory at once; findings open
/// at the latest inventory's time. Fewer than two hosts with an inventory: not applicable.
void run_hosts_check(const SeriesStore& store, const RuleSpec& rule, HostsRule across,
                     EngineResult& out) {
    std::vector<const Snapshot*> parsed;
    double t = 0;
    for (const std::string& host : store.hosts()) {
        const SeriesStore::Inventory* inv = RunState::inventory(store, host);
        if (!inv) continue;
        if (!inv->snapshot) {
            out.unevaluated.push_back({host, rule.id + ": " + inv->error});
            continue;
        }
        t = std::max(t, inv->t);
        parsed.push_back(inv->snapshot.get());
    }
    if (parsed.size() < 2) {
        out.not_applicable.push_back(
            {"hosts", rule.id + ": " + std::to_string(parsed.size()) +
                          " host(s) with an inventory: nothing to compare across hosts"});
        return;
    }
    std::vector<Snapshot> snaps;
    for (const Snapshot* s : parsed) snaps.push_back(*s);
    RuleOutput ro;
    across(snaps, ro);
    for (Finding& f : ro.findings) {
        f.rule_id = rule.id;
        f.severity = check_severity(rule, f);
        if (f.explanation.empty()) f.explanation = rule.explanation;
        f.opened_t = t;
        out.findings.push_back(std::move(f));
    }
    for (Note& n : ro.unevaluated) out.unevaluated.push_back(std::move(n));
    for (Note& n : ro.notes) out.notes.push_back(std::move(n));
}

void run_inventory_check(const SeriesStore& store, const RuleSpec& rule, const EngineOptions& opts,
                         RunState& run, EngineResult& out) {
    const RuleDef* def = find_check(rule.check);
    if (!def) return;  // parse_rules rejects unknown checks
    if (const HostsRule across = hosts_rule(rule.check)) {
        run_hosts_check(store, rule, across, out);
        return;
    }
    for (const std::string& host : store.hosts()) {
        const auto inv = store.inventories().find(host);
        if (inv == store.inventories().end()) {
            out.not_applicable.push_back({host, rule.id + ": no inventory recorded for this host"});
            continue;
        }
        const Snapshot* snap = run.inventory_with_usage(store, host);
        if (!snap) {
            out.unevaluated.push_back({host, rule.id + ": " + inv->second.error});
            continue;
        }
        RuleOutput ro;
        def->evaluate(RuleInput{*snap, opts.peer, opts.required_ports}, ro);
        for (Finding& f : ro.findings) {
            f.rule_id = rule.id;
            f.severity = check_severity(rule, f);
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
        for (const Note& n : ro.not_judged) {
            NotJudged nj;
            nj.host = host;
            nj.rule_id = rule.id;
            nj.kind = "no_verdict";
            nj.text = host + " " + n.subject + ": " + n.text;
            out.not_judged.push_back(std::move(nj));
        }
    }
}

/// Whether `host` has a counter a time rule reads that is not a netdev statistic (`ip -s
/// link`'s carrier changes and drops see neither RDMA transport nor PFC): without one, the
/// rules that could have seen most faults saw nothing.
bool reads_port_counters(const SeriesStore& store, const RuleSet& rules, const std::string& host) {
    static const std::set<std::string> kNetdevStats{"carrier_changes", "netdev_rx_dropped"};
    for (const RuleSpec& rule : rules.rules)
        for (const Condition* c : leaf_conditions(rule.when))
            for (const std::string& name : c->series) {
                if (kNetdevStats.count(name)) continue;
                for (const Series* s : store.find(name))
                    if (s->key.host == host && s->kind == SampleKind::counter && s->ever_valued)
                        return true;
            }
    return false;
}

EngineResult run_all(const SeriesStore& store, const RuleSet& rules, const EngineOptions& opts,
                     VerdictCache* cache) {
    RunState run;
    if (cache) {
        cache->begin_run(store, rules);
        run.cache = cache;
        run.settled_before = earliest_last_pass(store);
    }
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
    std::set<std::string> applicable_hosts;
    bool time_rules = false;
    for (const RuleSpec& rule : rules.rules) {
        if (!rule.instead_of.empty()) continue;  // after the rules it stands in for
        if (rule.check.empty()) {
            time_rules = true;
            run_time_rule(store, rule, opts, run, out, applicable_hosts);
        } else {
            run_inventory_check(store, rule, opts, run, out);
        }
    }
    // A host whose data holds none of the counters any time rule reads (a ticket with only
    // `lspci -vv` or `ibv_devinfo`): the less was captured, the less was judged; not healthy.
    if (time_rules && opts.counters_expected)
        for (const std::string& host : out.hosts) {
            const auto& passes = store.pass_times(host);
            if (passes.empty() ||
                (applicable_hosts.count(host) && reads_port_counters(store, rules, host)))
                continue;
            NotJudged n;
            n.host = host;
            n.rule_id = "counters";
            n.kind = "no_counters";
            n.span_s = passes.back() - passes.front();
            n.passes = passes.size();
            n.text = "the data of " + host +
                     " holds none of the counters the rate and lifetime rules read (no "
                     "ethtool -S, hw_counters or port counters; netdev statistics alone do not "
                     "show them): only its inventory and link state were checked";
            out.not_judged.push_back(std::move(n));
        }
    if (opts.lifetime_rules)
        for (const RuleSpec& rule : rules.rules)
            if (!rule.instead_of.empty()) run_lifetime_rule(store, rule, out);
    judge_log_events(store, out);
    std::stable_sort(out.findings.begin(), out.findings.end(),
                     [](const Finding& a, const Finding& b) { return a.opened_t < b.opened_t; });
    return out;
}

}  // namespace

EngineResult run_rules(const SeriesStore& store, const RuleSet& rules, const EngineOptions& opts) {
    return run_all(store, rules, opts, nullptr);
}

EngineResult run_rules(const SeriesStore& store, const RuleSet& rules, const EngineOptions& opts,
                       VerdictCache& cache) {
    return run_all(store, rules, opts, &cache);
}

}  // namespace rh

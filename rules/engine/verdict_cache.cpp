#include "rules/engine/verdict_cache.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "rules/engine/evidence.h"
#include "store/window.h"

namespace rh {

namespace {

/// Series names a rule set reads or selects by: its conditions' (when, escalations,
/// alternatives, supports, per), and the gauges measures consult (PFC state, port rate, uptime).
std::vector<std::string> names_read(const RuleSet& rules) {
    std::set<std::string> names{"pfc_enabled", "port_rate_gbps", "uptime_s"};
    const auto add = [&](const Condition& c) {
        names.insert(c.series.begin(), c.series.end());
        names.insert(c.per.begin(), c.per.end());
    };
    for (const RuleSpec& r : rules.rules) {
        for (const Condition* c : leaf_conditions(r.when)) add(*c);
        for (const Escalation& e : r.escalate)
            for (const Condition* c : leaf_conditions(e.when)) add(*c);
        for (const Alternative& a : r.alternatives)
            for (const Condition* c : leaf_conditions(a.indicated_by)) add(*c);
        for (const Condition& c : r.supports) add(c);
    }
    return {names.begin(), names.end()};
}

}  // namespace

void VerdictCache::begin_run(const SeriesStore& store, const RuleSet& rules) {
    if (rules_ != &rules) {
        clear();
        names_ = names_read(rules);
    }
    std::vector<std::size_t> layout;
    layout.reserve(names_.size() * 2);
    for (const std::string& name : names_) {
        const auto& found = store.find(name);
        layout.push_back(found.size());
        layout.push_back(static_cast<std::size_t>(std::count_if(
            found.begin(), found.end(), [](const Series* s) { return s->ever_valued; })));
    }
    layout.push_back(store.passes_inserted());
    if (store_ != &store || layout != layout_) entries_.clear();
    store_ = &store;
    rules_ = &rules;
    layout_ = std::move(layout);
}

void VerdictCache::Verdicts::add(std::optional<bool> holds, double t) {
    if (!runs.empty() && runs.back().holds == holds)
        runs.back().t_last = t;
    else
        runs.push_back({holds, t, t});
}

void VerdictCache::Verdicts::trim(double first_t) {
    while (!runs.empty() && runs.front().t_last < first_t) runs.pop_front();
    // Runs hold consecutive evaluation passes, so first_t is one of the first run's.
    if (!runs.empty() && runs.front().t_first < first_t) runs.front().t_first = first_t;
}

std::size_t VerdictCache::runs() const {
    std::size_t n = 0;
    for (const auto& [key, e] : entries_) n += e.settled.runs.size();
    return n;
}

VerdictCache::Entry& VerdictCache::entry(const std::string& rule_id, const Group& g) {
    return entries_[{rule_id, g.host, g.labels}];
}

void VerdictCache::clear() {
    entries_.clear();
    store_ = nullptr;
    rules_ = nullptr;
    names_.clear();
    layout_.clear();
}

bool verdict_settled(double t, double step_s, double settled_before) {
    return t + std::max(step_s / 2, kWindowSlackS) + kWindowSlackS < settled_before;
}

double earliest_last_pass(const SeriesStore& store) {
    double out = INFINITY;
    bool any = false;
    for (const std::string& host : store.hosts()) {
        const auto& p = store.pass_times(host);
        if (p.empty()) continue;
        out = std::min(out, p.back());
        any = true;
    }
    return any ? out : -INFINITY;
}

}  // namespace rh

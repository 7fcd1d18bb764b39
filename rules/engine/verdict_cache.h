// What the rule engine keeps between runs over one store that grows at its end (the agent's live
// loop, which runs the rules every pass over its whole retention): the verdict of each time rule's
// `when` per group at every pass already judged, so a run evaluates only the passes new since the
// last one instead of every retained pass.
#pragma once

#include <deque>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "rules/engine/engine.h"
#include "rules/engine/measure.h"
#include "store/series_store.h"

namespace rh {

/// Per (rule id, group): the verdicts of `when` (true / false / unknown) at settled passes. A
/// verdict at pass t reads points up to t plus kWindowSlackS and another host's pass nearest t
/// within max(interval / 2, kWindowSlackS) (read_time_for); points only arrive after a host's
/// last pass, so once every host's last pass lies beyond that reach, no later sample changes
/// it: it is settled. The whole cache is dropped when the store's layout changes (a new series
/// of a name the rules read, or one read for the first time, changes which series a condition
/// sums or which "any" children count), when another store or rule set is used, and by clear().
/// Points the store's retention drops later do not change a settled verdict: it keeps the verdict
/// its full window gave (a run without the cache over the retention would measure the oldest
/// passes' windows with those points already gone). Not thread-safe: one engine run at a time.
class VerdictCache {
  public:
    /// One pass's verdict, with the interval it was measured over (seconds).
    struct Verdict {
        double t = 0;
        double step_s = 0;
        std::optional<bool> holds;
    };
    using Verdicts = std::deque<Verdict>;
    /// Whether the rule can hold at some pass (the engine's can_hold, without / with "ever had
    /// a value"): a settled pass where it could, and the last settled pass up to which it
    /// could not at any pass, so a run checks only the passes after it.
    struct Possible {
        std::optional<double> at;
        std::optional<double> none_through;
    };
    struct Entry {
        Verdicts verdicts;
        Possible possible[2];
    };

    /// Makes the cache belong to `store` and `rules` at the store's current layout, dropping
    /// everything kept when any of them differs from the last run. O(series the rules read).
    void begin_run(const SeriesStore& store, const RuleSet& rules);
    /// What is kept of `rule_id` for `g`: its settled verdicts in pass order (empty at first).
    Entry& entry(const std::string& rule_id, const Group& g);
    /// Groups with verdicts kept (for tests and benches).
    std::size_t groups() const { return entries_.size(); }
    void clear();

  private:
    const SeriesStore* store_ = nullptr;
    const RuleSet* rules_ = nullptr;
    std::vector<std::string> names_;  ///< series names the rules read (and select by)
    /// Per name of names_: series in the store, and how many of them ever had a value.
    std::vector<std::size_t> layout_;
    std::map<std::tuple<std::string, std::string, Labels>, Entry> entries_;
};

/// run_rules keeping `cache` between runs over one store that grows at its end (the agent's
/// live loop): only passes not yet settled are evaluated. Gives what run_rules(store, rules,
/// opts) gives on a store that keeps every pass (tests/rules/test_verdict_cache.cpp); under
/// retention, the oldest passes keep the verdicts their full windows gave.
EngineResult run_rules(const SeriesStore& store, const RuleSet& rules, const EngineOptions& opts,
                       VerdictCache& cache);

/// Whether a verdict at pass `t`, measured over an interval of `step_s` seconds, is settled
/// when the earliest last pass over the store's hosts is `settled_before` (see VerdictCache).
bool verdict_settled(double t, double step_s, double settled_before);

/// The earliest last pass over the store's hosts (engine time; -inf without passes).
double earliest_last_pass(const SeriesStore& store);

}  // namespace rh

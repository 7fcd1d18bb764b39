// What the rule engine keeps between runs over one store that grows at its end (the agent's live
// loop, which runs the rules every pass over its whole retention): the verdicts of each time
// rule's `when` per group at the passes already judged, as runs of equal verdicts, so a run
// evaluates only the passes new since the last one and takes its episodes from the runs instead
// of visiting every retained pass.
#pragma once

#include <deque>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "core/inventory/inventory.h"
#include "core/result.h"
#include "rules/engine/engine.h"
#include "rules/engine/measure.h"
#include "store/series_store.h"

namespace rh {

/// Per (rule id, group): the verdicts of `when` (true / false / unknown) at settled passes, kept
/// as runs of equal verdicts, so a run takes its episodes, "known at some pass" and "unknown at
/// some pass" from them without visiting the retained passes again. A verdict at pass t reads
/// points up to t plus kWindowSlackS and another host's pass nearest t within
/// max(interval / 2, kWindowSlackS) (read_time_for); points only arrive after a host's last
/// pass, so once every host's last pass lies beyond that reach, no later sample changes it: it
/// is settled. The whole cache is dropped when the store's layout changes (a new series of a
/// name the rules read, or one read for the first time, changes which series a condition sums
/// or which "any" children count), when a pass time is inserted before a host's newest
/// (SeriesStore::passes_inserted), when another store or rule set is used, and by clear().
/// Points the store's retention drops later do not change a settled verdict: it keeps the
/// verdict its full window gave (a run without the cache over the retention would measure the
/// oldest passes' windows with those points already gone). Not thread-safe: one engine run at
/// a time.
class VerdictCache {
  public:
    /// Consecutive evaluation passes with the same verdict: from the pass at `t_first` to the
    /// pass at `t_last` (engine times, seconds). A run of true verdicts is an episode's core:
    /// the episode starts at the pass before t_first (the interval ending at t_first).
    struct VerdictRun {
        std::optional<bool> holds;
        double t_first = 0, t_last = 0;
    };
    /// Verdicts of consecutive evaluation passes, oldest first, run-length encoded.
    struct Verdicts {
        std::deque<VerdictRun> runs;
        /// Adds the verdict at the evaluation pass after the last one (extends the last run
        /// when it is the same verdict).
        void add(std::optional<bool> holds, double t);
        /// Drops the verdicts of passes before `first_t`, the store's first evaluation pass
        /// now (its retention dropped the passes before): runs wholly before it go, the first
        /// run that reaches it starts there. O(runs dropped).
        void trim(double first_t);
    };
    /// Whether the rule can hold at some pass (the engine's can_hold, without / with "ever had
    /// a value"): a settled pass where it could, and the last settled pass up to which it
    /// could not at any pass, so a run checks only the passes after it.
    struct Possible {
        std::optional<double> at;
        std::optional<double> none_through;
    };
    struct Entry {
        Verdicts settled;
        /// The last settled pass whose verdict `settled` holds (kept when retention trimmed
        /// every run away): the next run evaluates the passes after it.
        std::optional<double> settled_through;
        Possible possible[2];
        /// The series each of the rule's conditions reads for the group (SelectionMemo), valid
        /// while the layout the cache checks holds (series are never removed from a store).
        std::optional<SelectionMemo::Selections> selections;
    };

    /// Makes the cache belong to `store` and `rules` at the store's current layout, dropping
    /// everything kept when any of them differs from the last run. O(series the rules read).
    void begin_run(const SeriesStore& store, const RuleSet& rules);
    /// What is kept of `rule_id` for `g` (empty at first).
    Entry& entry(const std::string& rule_id, const Group& g);
    /// Groups with verdicts kept (for tests and benches).
    std::size_t groups() const { return entries_.size(); }
    /// Runs of verdicts kept over every group (for tests and benches: one per group while
    /// nothing changes).
    std::size_t runs() const;
    void clear();

  private:
    const SeriesStore* store_ = nullptr;
    const RuleSet* rules_ = nullptr;
    std::vector<std::string> names_;  ///< series names the rules read (and select by)
    /// Per name of names_: series in the store, and how many of them ever had a value; then
    /// the store's count of inserted pass times.
    std::vector<std::size_t> layout_;
    std::map<std::tuple<std::string, std::string, Labels>, Entry> entries_;
};

/// run_rules keeping `cache` between runs over one store that grows at its end (the agent's
/// live loop): only passes not yet settled are evaluated, and each group's episodes come from
/// its kept runs, so a run costs O(new passes + series), not O(retained passes), while no
/// finding is open (a finding's escalation and evidence still read its episodes' passes). Gives
/// what run_rules(store, rules, opts) gives on a store that keeps every pass
/// (tests/rules/test_verdict_cache.cpp); under retention, the oldest passes keep the verdicts their
/// full windows gave.
EngineResult run_rules(const SeriesStore& store, const RuleSet& rules, const EngineOptions& opts,
                       VerdictCache& cache);

/// Whether a verdict at pass `t`, measured over an interval of `step_s` seconds, is settled
/// when the earliest last pass over the store's hosts is `settled_before` (see VerdictCache).
bool verdict_settled(double t, double step_s, double settled_before);

/// The earliest last pass over the store's hosts (engine time; -inf without passes).
double earliest_last_pass(const SeriesStore& store);

}  // namespace rh

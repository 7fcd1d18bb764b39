// What the engine attaches to a time-based finding once it knows when the condition held: the
// evidence values, the timeline (first rise of each signal, open/close), the alternatives it
// ruled out or not, and the confidence with its reason.
#pragma once

#include <vector>

#include "core/finding.h"
#include "rules/engine/measure.h"
#include "rules/engine/rule_spec.h"
#include "store/series_store.h"

namespace rh {

/// One period during which a rule's condition held: pass times [start, end].
struct Episode {
    double start = 0, end = 0;
};

/// Context for building one finding's evidence.
struct FindingContext {
    const SeriesStore& store;
    const RuleSpec& rule;
    const Group& group;
    const std::vector<double>& passes;  ///< the host's pass times
    const std::vector<Episode>& episodes;
    double lookback_s = 60;
};

/// Every leaf condition of an expression, in order.
std::vector<const Condition*> leaf_conditions(const Expr& e);

/// Fills evidence, timeline, alternatives, confidence and the summary sentence of `f`.
void attach_evidence(const FindingContext& ctx, Finding& f);

/// For a lifetime rule (RuleSpec::instead_of) that holds at the host's last pass: the lifetime
/// values as evidence, the summary, and confidence "low" with its reason, which includes
/// `rates_reason` (why the rate rules could not judge, e.g. "rates could not be judged: one
/// capture"). No timeline: lifetime counts have no time.
void attach_lifetime_evidence(const FindingContext& ctx, const std::string& rates_reason,
                              Finding& f);

/// Engine time -> UTC ms when the store has a wall clock, else 0.
std::int64_t wall_ms_of(const SeriesStore& store, double t);

}  // namespace rh

// The rule engine: evaluates a RuleSet over the time-series store and returns findings, each
// with its timeline, the alternatives it checked and a stated confidence. One code path for live
// diagnosis (the agent's store), replays (`diagnose --replay`) and bundles (`diagnose --bundle`).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/finding.h"
#include "rules/engine/rule_spec.h"
#include "rules/rule.h"
#include "store/series_store.h"

namespace rh {

struct EngineOptions {
    std::optional<PeerView> peer;  ///< for the inventory checks' peer comparison (roce_mtu)
    /// Ports that must be up ("mlx5_0/1" or a netdev name), for the inventory checks
    /// (RuleInput::required_ports, rules/port_usage.h).
    std::vector<std::string> required_ports;
    /// How far before a finding opened the timeline looks for the first rise of its signals.
    double lookback_s = 60;
};

struct EngineResult {
    std::vector<Finding> findings;  ///< ordered by opening time, then rule order
    /// Rule/host pairs where a rule's series existed but never had values (e.g. a counter
    /// missing for the whole window): not a finding, not healthy either.
    std::vector<Note> unevaluated;
    /// Rule/host pairs the data does not cover: the driver has none of the series the rule reads
    /// (rxe has no PFC counters), or no inventory was recorded for an inventory check.
    std::vector<Note> not_applicable;
    /// What the inventory checks took into account without a finding (RuleOutput::notes), e.g.
    /// "gpu01 mlx5_0 port 2 (ens1f1np1): DOWN, ... taken as not cabled". Not a verdict.
    std::vector<Note> notes;
    std::vector<std::string> hosts;
    double t_first = 0, t_last = 0;  ///< engine time span of the data
    bool wall_clock = false;         ///< engine times are UTC seconds (else monotonic)
};

/// Runs every rule of `rules` over `store`. Never throws for data content.
EngineResult run_rules(const SeriesStore& store, const RuleSet& rules,
                       const EngineOptions& opts = {});

}  // namespace rh

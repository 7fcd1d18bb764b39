// The rule engine: evaluates a RuleSet over the time-series store and returns findings, each
// with its timeline, the alternatives it checked and a stated confidence. One code path for live
// diagnosis (the agent's store), replays (`diagnose --replay`) and bundles (`diagnose --bundle`).
#pragma once

#include <optional>
#include <set>
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
    /// Run the lifetime rules (RuleSpec::instead_of). Off by default: a live loop's short
    /// history at start-up would make them open and close findings (the agent); diagnose on
    /// recorded data or captures turns them on.
    bool lifetime_rules = false;
    /// A host whose data holds none of the counters any time rule reads is "not judged"
    /// (NotJudged kind "no_counters"): on for operators' captures (`diagnose --bundle`: a
    /// ticket with only `lspci -vv`), off where the data may rightly be probes only (a mesh
    /// recording) or come from the live tree.
    bool counters_expected = false;
    /// Hosts whose passes are in order but not spaced by any known time (bundle captures with
    /// no clock and no --interval): a time rule that needs the time between passes (a window,
    /// a hold, a rate) is not judged there (NotJudged kind "no_interval"); the others (port
    /// state changes, per-step counter increases, gauges, lifetime rules) are.
    std::set<std::string> unspaced_hosts = {};
};

/// A time-based rule the data could not judge for a host, so "no finding" from it would not
/// mean healthy. kind: "one_capture" (one pass: no interval to measure a rate over),
/// "short_span" (the host's data spans less than the rule's longest window or its hold, and
/// what it saw does not already rule the condition out), "no_reference" (a lifetime rule
/// whose counters are there but the counter it weighs them against is not), "no_verdict" (one
/// entry per group: its series had values that gave no verdict at any pass or at the last one:
/// a counter missing from the last capture, pause frames without a port rate whose bounds
/// straddle the threshold; `text` names the rule, group and why), "no_counters" (with
/// EngineOptions::counters_expected: the host's data holds no RDMA or port counter any time
/// rule reads; netdev statistics alone do not count), "no_interval" (a host in
/// EngineOptions::unspaced_hosts and a rule that needs the time between captures).
struct NotJudged {
    std::string host;
    std::string rule_id;
    std::string kind;
    double window_s = 0;     ///< the longest window_s of the rule's conditions, seconds
    double hold_s = 0;       ///< the rule's hold_s, seconds
    double need_s = 0;       ///< data span the rule needs: max(window_s, hold_s), seconds
    double span_s = 0;       ///< seconds the host's data spans (its last pass - its first)
    std::size_t passes = 0;  ///< collection passes (bundle captures) of the host
    /// "ecn_counters_inconsistent needs 30 s of data (a 30 s window, a 20 s hold); the data
    /// spans 10 s"
    std::string text;
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
    /// Rule/host pairs the data could not judge (see NotJudged); empty when every applicable
    /// time-based rule saw enough data. A finding of the rule for the host means it was judged.
    std::vector<NotJudged> not_judged;
    /// Lifetime rules (RuleSpec::instead_of) that hold on a host whose rate rules were judged:
    /// counts since the last reset that the rates show are not growing now (historical).
    std::vector<Note> history;
    std::vector<std::string> hosts;
    /// Every job and kernel log line of the data, in time order (SeriesStore::log_events), each
    /// cited by a finding or listed on its own (rules/joblog/log_rules.h).
    std::vector<SeriesStore::PlacedLogEvent> log_events;
    double t_first = 0, t_last = 0;  ///< engine time span of the data
    bool wall_clock = false;         ///< engine times are UTC seconds (else monotonic)
};

/// Runs every rule of `rules` over `store` (lifetime rules after the rules they stand in for).
/// Never throws for data content.
EngineResult run_rules(const SeriesStore& store, const RuleSet& rules,
                       const EngineOptions& opts = {});

}  // namespace rh

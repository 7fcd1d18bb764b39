// The fabric analysis of `rocehealth fabric`: from the fleet's series (as Prometheus returns them
// for the queries of fabric_queries.h) to findings and one timeline. Pure: no I/O, no clock.
// The logic and thresholds are those of packaging/prometheus/rocehealth-fabric-rules.yml (each
// FabricThresholds member names the rule it comes from), evaluated at every step of the range
// instead of at one instant, so the findings are dated.
#pragma once

#include <string>
#include <vector>

#include "agent/fabric/prom_response.h"
#include "core/finding.h"

namespace rh::fabric {

/// The inputs, one vector per query (agent series; `instance` is the join key everywhere, as in
/// the rules' `on (instance)`).
struct FabricSeries {
    /// rocehealth_host_info{instance, host, tor, ...} 1: host name and ToR per instance.
    std::vector<PromSeries> host_info;
    /// Share of time paused (0..1) per {instance, priority, direction="rx"|"tx"}: the
    /// rate of rocehealth_pfc_pause_duration_seconds_total, max over the host's ports.
    std::vector<PromSeries> pause_fraction;
    /// Probe failures per pair in the rules' 2 m window: increase of
    /// rocehealth_probe_errors_total{instance, peer, op} or rocehealth_probe_tor_errors_total
    /// {instance, dst_tor, op}, or (agents with a fleet: the series budget) the max of
    /// rocehealth_probe_window_errors / rocehealth_probe_tor_window_errors over it.
    std::vector<PromSeries> probe_errors;
    /// Median probe latency in seconds: rocehealth_probe_latency_seconds{quantile="0.5", instance,
    /// peer, op, size_bytes} or rocehealth_probe_tor_latency_seconds{..., dst_tor, ...}.
    std::vector<PromSeries> probe_p50_s;
    /// Port configuration, `__name__` kept: rocehealth_netdev_mtu_bytes,
    /// rocehealth_port_active_mtu_bytes, rocehealth_pfc_enabled{priority},
    /// rocehealth_port_trust_info{trust}, each with {instance, device, port}.
    std::vector<PromSeries> port_config;

    // The recording rules' series (packaging/prometheus/rocehealth-fabric-rules.yml), the
    // recorded source (fabric_queries.h FabricSource): what one analysis reads instead of its
    // raw series above when they are present, so that a fleet's hour costs per ToR, not per row.
    /// Pause: (instance, priority) pairs with both an rx and a tx share recorded at each step,
    /// one series: count(rocehealth:pfc_pause_rx_fraction:max_rate1m and
    /// rocehealth:pfc_pause_tx_fraction:max_rate1m). pause_fraction then holds only the nonzero
    /// shares of those recorded series (the rest are 0: no origin, no victim).
    std::vector<PromSeries> pause_pairs_reporting;
    /// Mesh, per destination ToR {peer_tor}: rocehealth:probe_pairs_into_tor:bad_ratio (0..1)
    /// and :count (pairs from hosts of other ToRs); per source ToR {tor}:
    /// rocehealth:probe_tor_rows_out_of_tor:bad_ratio.
    std::vector<PromSeries> tor_into_bad_ratio, tor_into_count, tor_rows_out_bad_ratio;
    /// Mesh, the rows of rocehealth:probe_pair_bad_between_tors:2m that were bad (== 1) into
    /// the ToRs a first pass blamed {instance, tor, peer_tor, peer | dst_tor}: the timeline.
    std::vector<PromSeries> bad_rows;
    /// Config: rocehealth:config_value:ports {setting, priority, value}: ports per value.
    std::vector<PromSeries> config_ports;
    /// Config: the rows of rocehealth:config_value:port {instance, device, port, netdev,
    /// setting, priority, value} whose value is not their setting's majority at that step.
    std::vector<PromSeries> config_drifting;
};

/// Thresholds, from packaging/prometheus/rocehealth-fabric-rules.yml (why each is what it is is
/// written there, next to the rule).
struct FabricThresholds {
    /// rocehealth:pause_storm_origin:tx_fraction: sends pause > 5 % of the time ...
    double origin_tx_fraction = 0.05;
    /// ... while paused itself < 1 % of the time.
    double origin_rx_fraction_max = 0.01;
    /// rocehealth:pause_storm_victim:rx_fraction: paused > 5 % while an origin exists.
    double victim_rx_fraction = 0.05;
    /// RocehealthPauseStormOrigin / RocehealthTorProbesFailing `for: 2m`.
    double hold_s = 120;
    /// rocehealth:probe_pair_bad:2m: p50 over 3x the fabric's median p50 (same op and size).
    double slow_vs_median = 3;
    /// RocehealthTorProbesFailing: > 50 % of the pairs into the ToR bad, ...
    double tor_bad_ratio = 0.5;
    /// ... at least 4 such pairs, ...
    std::size_t tor_min_pairs = 4;
    /// ... and pairs into the other ToRs bad at most half as often; with the topology-aware
    /// mesh, more than half of the ToR's own rows out bad too
    /// (rocehealth:probe_tor_rows_out_of_tor:bad_ratio): else it is one of its hosts.
    double elsewhere_vs_tor = 0.5;
    double tor_rows_out_bad_ratio = 0.5;
    /// rocehealth:config_value:majority: a value more than half of the ports have.
    double config_majority = 0.5;
};

/// What the analysis found. Findings' rule ids: "fabric_pause_storm_origin" (host, labels
/// priority, tor; its timeline: the origin then every victim in time order),
/// "fabric_tor_probes_failing" (host "ToR T", labels tor; timeline: each bad pair's first bad
/// time), "fabric_config_drift" (host, device, port, labels setting, value, fabric_value and
/// priority for PFC). Times are UTC seconds; findings ordered by opened_t.
struct FabricResult {
    std::vector<Finding> findings;
    std::vector<std::string> hosts;  ///< every host named by host_info (else by instance), sorted
    std::vector<Note> notes;         ///< e.g. instances without host_info, pairs to unknown peers
    /// Analyses that had no input in the range, or too little for their rule (subject: the rule
    /// id, text: which series were missing, or what was seen against what the rule needs:
    /// pairs into a ToR, hosts with rx and tx, ports per setting, seconds of points): they
    /// could not have seen their fault, so no finding from them is not health (subject "hosts":
    /// hosts that stopped reporting, fabric_coverage.h). A rule is either
    /// here or among the findings, never both.
    std::vector<Note> not_judged;
    /// The span of the points the analysis was given (UTC seconds, first and last of any
    /// series; both 0 when there were none): what the data covered, not the range asked.
    double data_first_s = 0, data_last_s = 0;
};

/// Runs the three analyses over the series' common time grid (hold times are measured between
/// the points' times); an analysis whose inputs are absent or below its rule's minimum (and
/// that found nothing) is in `not_judged`. Never throws for
/// data content (NaN and missing points are "no value", never 0).
FabricResult analyse_fabric(const FabricSeries& in, const FabricThresholds& th = {});

/// Adds reasons rules could not be judged from outside the data (`more`, subject: the rule id,
/// e.g. the plan's step: fabric_queries.h) so that each rule has one state: a rule with a
/// finding stays found (the reason becomes a note: it may have missed other faults); a rule
/// already not judged keeps one entry, with `more`'s reason (the cause, where the analysis saw
/// only its effect, e.g. no points at a step wider than Prometheus' lookback).
void add_not_judged(FabricResult& r, const std::vector<Note>& more);

}  // namespace rh::fabric

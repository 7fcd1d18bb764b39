// Prometheus text exposition (format 0.0.4) of the agent's state: the latest value of every
// series in the SeriesStore, the open findings and the agent's own health. Pure: the caller
// passes everything in, so tests render fixed stores (tests/agent/test_metrics.cpp).
//
// Naming: each series' family name, exported unit and conversion are its row of the series
// catalog (core/series_catalog.h: SeriesSpec::exported, exported_unit, export_scale), which
// follows Prometheus conventions, base units:
//   counter SERIES        -> rocehealth_SERIES_total             (pfc_pause_frames_total)
//   counter SERIES_us     -> rocehealth_SERIES_seconds_total, value / 10^6
//   gauge   SERIES        -> rocehealth_SERIES                    (pfc_enabled, port_state_code)
//   gauge   SERIES_us     -> rocehealth_SERIES_seconds, value / 10^6
//   gauge   SERIES_gbps   -> rocehealth_SERIES_bytes_per_second, value * 10^9 / 8
// Labels are the series' labels as stored (device, port, netdev, priority, direction, level).
// The probe mesh's series (probe_latency_us, probe_errors) are not exported from the store but
// from AgentStats::probes (agent/daemon/probe_summary.h), as
//   rocehealth_probe_latency_seconds{peer,op,size_bytes,quantile="0.5"|"0.99"|"0.999"} summary
//     with _sum and _count (every sample since the agent started), and
//   rocehealth_probe_errors_total{peer,op} counter, every configured pair from 0.
// The host itself (agent/daemon/host_info.h; catalog rows of origin agent):
// rocehealth_host_info{host,<topology>} 1 once per host (the topology is not copied onto other
// series: join on `instance`), and the port configuration rocehealth_netdev_mtu_bytes,
// rocehealth_port_active_mtu_bytes, rocehealth_port_trust_info{trust}.
// Collection per kernel source, as node_exporter's node_scrape_collector_*:
// rocehealth_collector_success{source} and rocehealth_collector_duration_seconds{source}.
// A counter whose latest read failed, or a series not seen in the host's latest pass, is left
// out (absent is never exported as 0); rocehealth_series_unreadable counts the failed ones.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agent/daemon/host_info.h"
#include "agent/daemon/probe_summary.h"
#include "core/finding.h"
#include "core/sample.h"
#include "core/series_catalog.h"
#include "store/series_store.h"

namespace rh::agent {

/// The agent's own state for the rocehealth_* self metrics and process_* metrics.
struct AgentStats {
    std::string version;  ///< rocehealth_build_info{version}
    /// rocehealth_fabric_key_info{fingerprint}: auth::key_fingerprint; "" when no key
    std::string key_fingerprint;
    std::uint64_t passes = 0;          ///< collection passes done
    double last_pass_duration_s = 0;   ///< seconds the last pass took
    double last_pass_wall_s = 0;       ///< UTC seconds of the last pass; 0 before the first
    std::uint64_t rules_runs = 0;      ///< rule-engine runs done
    double last_rules_duration_s = 0;  ///< seconds the last run took
    std::uint64_t rediscoveries = 0;   ///< device rediscoveries (a device or file came/went)
    std::uint64_t reloads_ok = 0, reloads_failed = 0;  ///< SIGHUP reloads applied / rejected
    std::optional<bool> responder_up;                  ///< nullopt: responder not enabled
    std::optional<ProbeMetrics> probes;                ///< nullopt: no mesh configured
    /// With mesh.peers_file: inter-ToR latency and failures by destination ToR (the rows'
    /// `peer` is the ToR), exported as rocehealth_probe_tor_latency_seconds{dst_tor,...} and
    /// rocehealth_probe_tor_errors_total{dst_tor,op}; nullopt: not exported.
    std::optional<ProbeMetrics> tor_probes;
    /// rocehealth_host_info and the port configuration (host_info.h); nullopt: not exported
    /// (tests of other families).
    std::optional<HostInfo> host_info;
    /// Connections the HTTP gate refused or closed unserved, by reason (http_gate.h:
    /// per_address_cap, total_cap, request_timeout, too_large, chunked_body, bad_request):
    /// rocehealth_http_connections_refused_total{reason}. Empty: not exported.
    std::map<std::string, std::uint64_t> http_refused;
    /// Failed fetches of the mesh's fleet (or plans over a fetched one) by source ("dns",
    /// "prometheus"): rocehealth_mesh_peer_source_errors_total{source}, from 0. Empty: not
    /// exported (no dynamic fleet source).
    std::map<std::string, std::uint64_t> peer_source_errors;
    /// Hosts of the fleet the mesh plans over (this one included): rocehealth_mesh_fleet_hosts;
    /// 0 while a dynamic source has given none; nullopt: no fleet (mesh.peers, or no mesh).
    std::optional<std::size_t> fleet_hosts;
    /// finding_opened events logged, by (rule, severity): rocehealth_findings_opened_total, so
    /// a finding shorter than the scrape interval still shows as an increase. The agent puts
    /// every (rule, severity) of its rules file here at 0 first.
    std::map<std::pair<std::string, std::string>, std::uint64_t> findings_opened;
    /// Per kernel source, the last collection pass that read it
    /// (collectors/sources/source_status.h, the sources the host has: rdma_sysfs, netdev_sysfs,
    /// aer, ethtool_stats, ethtool_pause, dcb, rdma_netlink from the steady-state pass;
    /// netdev_rtnl, pcie_sysfs, qos_sysfs, verbs from the last discovery):
    /// rocehealth_collector_success{source} (1/0) and
    /// rocehealth_collector_duration_seconds{source}. Empty: not exported.
    struct CollectorSource {
        std::string source;
        bool success = true;
        double duration_s = 0;
    };
    std::vector<CollectorSource> collector_sources;
    // process_* (read by read_process_stats; nullopt when /proc could not be read)
    std::optional<double> cpu_seconds;
    std::optional<double> rss_bytes;
    std::optional<double> start_wall_s;
};

/// True for the series the mesh produces (exported from AgentStats::probes, not the store).
bool is_probe_series(std::string_view series);

/// HELP text of a series' family: the catalog's help and its exported unit (none for state,
/// bool and info series, whose text says what the value means).
std::string metric_help(const SeriesSpec& s);

/// The whole /metrics body. Findings with closed_t == 0 (still holding) are exported as
/// rocehealth_finding{rule,severity,host[,device][,port],<finding labels>} 1; closed ones are
/// not. Families are sorted by name, each with one HELP and one TYPE line.
std::string render_metrics(const SeriesStore& store, const std::vector<Finding>& findings,
                           const AgentStats& stats);

/// Fills stats.cpu_seconds, rss_bytes and start_wall_s from /proc/self/stat and
/// /proc/self/statm (left nullopt when unreadable).
void read_process_stats(AgentStats& stats);

/// Escapes a label value for the text format (backslash, double quote, newline).
std::string escape_label_value(std::string_view v);

}  // namespace rh::agent

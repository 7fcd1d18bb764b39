#include "core/series_catalog.h"

#include <algorithm>
#include <iterator>

namespace rh {

namespace {

constexpr SeriesKind C = SeriesKind::counter;
constexpr SeriesKind G = SeriesKind::gauge;
constexpr SeriesOrigin D = SeriesOrigin::drivers;

// Labels of the driver series: every port's, then the row's own.
constexpr std::string_view kPort = "device,port,netdev";
constexpr std::string_view kPrio = "device,port,netdev,priority,direction";
constexpr std::string_view kDir = "device,port,netdev,direction";

constexpr std::string_view kHw = "`hw_counters` (sysfs, RDMA netlink)";
constexpr std::string_view kEth = "`ethtool -S`";
constexpr std::string_view kPma = "`counters/` (IB PMA)";

// One row per series, sorted by name: the static_assert below checks it.
// clang-format off
constexpr SeriesSpec kCatalog[] = {
    {"ack_timeouts", C, "events", kPort, "Requester ACK timer expirations (packet loss)", D, kHw,
     "rocehealth_ack_timeouts_total", "events"},
    {"adaptive_retransmits", C, "events", kPort, "Adaptive retransmissions", D, kHw,
     "rocehealth_adaptive_retransmits_total", "events"},
    {"carrier_changes", C, "events", "netdev", "Netdev carrier changes", SeriesOrigin::snapshot,
     "rtnetlink IFLA_CARRIER_CHANGES / `class/net/<if>/carrier_changes`",
     "rocehealth_carrier_changes_total", "events"},
    {"cnp_handled", C, "packets", kPort, "CNPs acted on by the reaction point (rate reductions)", D, kHw,
     "rocehealth_cnp_handled_total", "packets"},
    {"cnp_ignored", C, "packets", kPort, "CNPs ignored by the reaction point (congestion control off)", D, kHw,
     "rocehealth_cnp_ignored_total", "packets"},
    {"cnp_sent", C, "packets", kPort, "CNPs sent by the notification point", D, kHw,
     "rocehealth_cnp_sent_total", "packets"},
    {"duplicate_requests", C, "packets", kPort, "Already executed requests received again", D, kHw,
     "rocehealth_duplicate_requests_total", "packets"},
    {"ecn_marked_packets", C, "packets", kPort, "RoCE packets received with ECN CE (notification point)", D, kHw,
     "rocehealth_ecn_marked_packets_total", "packets"},
    {"ecn_np_enabled", G, "bool", "device,port,netdev,priority",
     "1 when ECN notification point is enabled on the priority", SeriesOrigin::snapshot,
     "`class/net/<if>/ecn/roce_np/enable/<prio>` (MLNX_OFED)",
     "rocehealth_ecn_np_enabled", "bool"},
    {"ecn_rp_enabled", G, "bool", "device,port,netdev,priority",
     "1 when ECN reaction point is enabled on the priority", SeriesOrigin::snapshot,
     "`class/net/<if>/ecn/roce_rp/enable/<prio>` (MLNX_OFED)",
     "rocehealth_ecn_rp_enabled", "bool"},
    {"excessive_buffer_overrun_errors", C, "events", kPort, "IB PMA receive buffer overruns", D, kPma,
     "rocehealth_excessive_buffer_overrun_errors_total", "events"},
    {"fcs_errors", C, "frames", kPort, "Frames received with a bad FCS (CRC)", D, kEth,
     "rocehealth_fcs_errors_total", "frames"},
    {"fec_corrected_bit_errors", C, "bits", kPort, "Bits corrected by the FEC (raw bit errors)", D, kEth,
     "rocehealth_fec_corrected_bit_errors_total", "bits"},
    {"fec_corrected_blocks", C, "blocks", kPort, "RS-FEC codewords corrected", D, kEth,
     "rocehealth_fec_corrected_blocks_total", "blocks"},
    {"fec_uncorrectable_blocks", C, "blocks", kPort, "RS-FEC codewords the FEC could not correct", D, kEth,
     "rocehealth_fec_uncorrectable_blocks_total", "blocks"},
    {"host_info", G, "info", "host", "This host's name and its place in the fabric (the agent config's topology); always 1. Join other series to it on instance",
     SeriesOrigin::agent, "the agent config's `host` and `topology` (labels of their own)",
     "rocehealth_host_info", "info"},
    {"implied_nak_sequence_errors", C, "events", kPort, "Implied NAK sequence errors seen by the requester", D, kHw,
     "rocehealth_implied_nak_sequence_errors_total", "events"},
    {"lane_corrected_bit_errors", C, "bits", "device,port,netdev,lane",
     "Bits corrected by the FEC per physical lane", D, kEth,
     "rocehealth_lane_corrected_bit_errors_total", "bits"},
    {"link_down_events", C, "events", kPort, "Times the link went down", D, "`hw_counters`, `counters/`, `ethtool -S`",
     "rocehealth_link_down_events_total", "events"},
    {"link_error_recovery", C, "events", kPort, "IB PMA link error recoveries (retrains)", D, kPma,
     "rocehealth_link_error_recovery_total", "events"},
    {"link_pause_duration_us", C, "us", kDir,
     "Time paused by (rx) or pausing (tx) the peer with 802.3x pause", D, kEth,
     "rocehealth_link_pause_duration_seconds_total", "seconds"},
    {"link_pause_frames", C, "frames", kDir, "IEEE 802.3x link-level pause frames", D,
     "`ethtool -S`, ethtool netlink PAUSE_GET",
     "rocehealth_link_pause_frames_total", "frames"},
    {"local_link_integrity_errors", C, "events", kPort, "IB PMA LocalPhyErrors threshold crossings", D, kPma,
     "rocehealth_local_link_integrity_errors_total", "events"},
    {"netdev_mtu_bytes", G, "bytes", "device,port,netdev", "MTU of the RDMA port's netdev", SeriesOrigin::agent,
     "rtnetlink IFLA_MTU / `class/net/<if>/mtu`",
     "rocehealth_netdev_mtu_bytes", "bytes"},
    {"netdev_rx_dropped", C, "packets", kPort,
     "Received packets the netdev dropped (mlx5: rx_out_of_buffer; others add ring overruns)",
     SeriesOrigin::snapshot, "rtnetlink IFLA_STATS rx_dropped / `ip -s link` RX dropped",
     "rocehealth_netdev_rx_dropped_total", "packets"},
    {"out_of_sequence", C, "packets", kPort, "Requests received with a PSN out of sequence", D, kHw,
     "rocehealth_out_of_sequence_total", "packets"},
    {"oversize_frames", C, "frames", kPort, "Received frames above the MTU", D, kEth,
     "rocehealth_oversize_frames_total", "frames"},
    {"pause_storm_events", C, "events", "device,port,netdev,level", "NIC pause-storm watchdog triggers", D, kEth,
     "rocehealth_pause_storm_events_total", "events"},
    {"pcs_symbol_errors", C, "errors", kPort, "Symbol errors the FEC could not correct", D, kEth,
     "rocehealth_pcs_symbol_errors_total", "errors"},
    {"pfc_enabled", G, "bool", "device,port,netdev,priority", "1 when PFC is enabled on the priority",
     SeriesOrigin::snapshot, "DCB IEEE PFC `pfc_en` bit, or `mlnx_qos`",
     "rocehealth_pfc_enabled", "bool"},
    {"pfc_pause_duration_us", C, "us", kPrio, "Time paused by (rx) or pausing (tx) the peer per priority", D, kEth,
     "rocehealth_pfc_pause_duration_seconds_total", "seconds"},
    {"pfc_pause_frames", C, "frames", kPrio, "PFC pause frames received (rx) or sent (tx) per priority", D,
     "`ethtool -S`, DCB `ieee_pfc`",
     "rocehealth_pfc_pause_frames_total", "frames"},
    {"pfc_pause_transitions", C, "events", kPrio, "PFC XOFF to XON transitions per priority", D, kEth,
     "rocehealth_pfc_pause_transitions_total", "events"},
    {"port_active_mtu_bytes", G, "bytes", "device,port,netdev", "RoCE active_mtu of the port from ibv_query_port", SeriesOrigin::agent,
     "`ibv_query_port` active_mtu",
     "rocehealth_port_active_mtu_bytes", "bytes"},
    {"port_max_rate_gbps", G, "Gb/s", "device,port", "Fastest rate the NIC model's ports run (only when the port rate is not known)",
     SeriesOrigin::snapshot, "`ibv_devinfo` vendor_id/vendor_part_id, core/inventory/nic_models.h",
     "rocehealth_port_max_rate_bytes_per_second", "bytes per second"},
    {"port_rate_gbps", G, "Gb/s", "device,port", "RDMA port rate", SeriesOrigin::snapshot, "`ports/<p>/rate`",
     "rocehealth_port_rate_bytes_per_second", "bytes per second"},
    {"port_rcv_data_bytes", C, "bytes", kPort, "Port data bytes received (PMA data x4)", D, kPma,
     "rocehealth_port_rcv_data_bytes_total", "bytes"},
    {"port_rcv_errors", C, "packets", kPort, "IB PMA packets received with an error", D, kPma,
     "rocehealth_port_rcv_errors_total", "packets"},
    {"port_state_code", G, "state", "device,port", "RDMA port state code (4 = ACTIVE)",
     SeriesOrigin::snapshot, "`ports/<p>/state`",
     "rocehealth_port_state_code", "state"},
    {"port_trust_info", G, "info", "device,port,netdev,trust",
     "QoS trust mode of the port's netdev (dscp or pcp: what selects the priority); always 1", SeriesOrigin::agent,
     "DCB APP table / `qos/trust` (MLNX_OFED), `mlnx_qos`",
     "rocehealth_port_trust_info", "info"},
    {"port_width_lanes", G, "lanes", "device,port", "RDMA port width in lanes", SeriesOrigin::snapshot,
     "`ports/<p>/rate` (`(4X EDR)` -> 4)",
     "rocehealth_port_width_lanes", "lanes"},
    {"port_xmit_data_bytes", C, "bytes", kPort, "Port data bytes sent (PMA data x4)", D, kPma,
     "rocehealth_port_xmit_data_bytes_total", "bytes"},
    {"priority_bytes", C, "bytes", kPrio, "Bytes per priority and direction", D, kEth,
     "rocehealth_priority_bytes_total", "bytes"},
    {"priority_packets", C, "packets", kPrio, "Packets per priority and direction", D, kEth,
     "rocehealth_priority_packets_total", "packets"},
    {"probe_errors", C, "events", "peer,op,status", "RDMA probe completions with an error status",
     SeriesOrigin::probes, "probe completions (status IBV_WC_*)",
     "rocehealth_probe_errors_total", "events"},
    {"probe_latency_us", G, "us", "peer,op,size_bytes,quantile",
     "RDMA probe latency quantile per peer, operation and size", SeriesOrigin::probes,
     "rocehealth probe, the mesh (quantile p50, p99, p999)",
     "rocehealth_probe_latency_seconds", "seconds"},
    {"retry_exceeded", C, "events", kPort, "Transport retries exceeded (IBV_WC_RETRY_EXC_ERR)", D, kHw,
     "rocehealth_retry_exceeded_total", "events"},
    {"rnr_nak_received", C, "packets", kPort, "RNR NAKs received by the requester (responder had no WQE)", D, kHw,
     "rocehealth_rnr_nak_received_total", "packets"},
    {"rnr_nak_sent", C, "packets", kPort, "RNR NAKs sent by the responder", D, kHw,
     "rocehealth_rnr_nak_sent_total", "packets"},
    {"rnr_retry_exceeded", C, "events", kPort, "RNR retries exceeded (IBV_WC_RNR_RETRY_EXC_ERR)", D, kHw,
     "rocehealth_rnr_retry_exceeded_total", "events"},
    {"roce_rx_bytes", C, "bytes", kPort, "RoCE bytes received", D, "`ethtool -S`, `hw_counters`",
     "rocehealth_roce_rx_bytes_total", "bytes"},
    {"roce_rx_packets", C, "packets", kPort, "RoCE packets received", D, "`hw_counters`, `ethtool -S`",
     "rocehealth_roce_rx_packets_total", "packets"},
    {"roce_tx_bytes", C, "bytes", kPort, "RoCE bytes sent", D, "`ethtool -S`, `hw_counters`",
     "rocehealth_roce_tx_bytes_total", "bytes"},
    {"roce_tx_packets", C, "packets", kPort, "RoCE packets sent", D, "`hw_counters`, `ethtool -S`",
     "rocehealth_roce_tx_packets_total", "packets"},
    {"rx_discards_phy", C, "packets", kPort, "Received packets dropped by the port for lack of buffers", D, kEth,
     "rocehealth_rx_discards_phy_total", "packets"},
    {"rx_out_of_buffer", C, "packets", kPort, "RDMA receives dropped for lack of a receive WQE", D, kHw,
     "rocehealth_rx_out_of_buffer_total", "packets"},
    {"sequence_errors", C, "packets", kPort, "NAK-sequence-errors received by the requester", D, kHw,
     "rocehealth_sequence_errors_total", "packets"},
    {"symbol_errors", C, "errors", kPort, "Physical symbol errors", D, "`counters/`, `ethtool -S`",
     "rocehealth_symbol_errors_total", "errors"},
    {"uptime_s", G, "s", "", "Seconds since the host booted", SeriesOrigin::bundle,
     "a capture's `uptime` or `cat /proc/uptime`; weighs lifetime pause durations",
     "rocehealth_uptime_s", "s"},
};
// clang-format on

/// The unit conversions export_scale knows: stored unit -> exported unit, mul, div.
struct UnitConversion {
    std::string_view unit, exported_unit;
    double mul, div;
};
constexpr UnitConversion kConversions[] = {
    {"us", "seconds", 1, 1e6},
    {"Gb/s", "bytes per second", 1e9, 8},
};

constexpr const UnitConversion* conversion(const SeriesSpec& s) {
    for (const UnitConversion& c : kConversions)
        if (c.unit == s.unit && c.exported_unit == s.exported_unit) return &c;
    return nullptr;
}

/// Every row: exported in its own unit or one of kConversions; the family named as Prometheus
/// wants (rocehealth_ prefix, counters end in _total, gauges do not).
constexpr bool exports_well_formed() {
    for (const SeriesSpec& s : kCatalog) {
        if (s.unit != s.exported_unit && !conversion(s)) return false;
        if (!s.exported.starts_with("rocehealth_")) return false;
        if (s.exported.ends_with("_total") != (s.kind == SeriesKind::counter)) return false;
    }
    return true;
}
static_assert(exports_well_formed(),
              "series_catalog: an exported unit needs a conversion in kConversions, and a "
              "family name rocehealth_..., with _total exactly on counters");

constexpr bool sorted_unique() {
    for (std::size_t i = 1; i < std::size(kCatalog); ++i)
        if (!(kCatalog[i - 1].name < kCatalog[i].name)) return false;
    return true;
}
static_assert(sorted_unique(), "series_catalog: keep the rows sorted by name, each name once");

}  // namespace

std::span<const SeriesSpec> series_catalog() {
    return kCatalog;
}

const SeriesSpec* find_series(std::string_view name) {
    const auto it =
        std::lower_bound(std::begin(kCatalog), std::end(kCatalog), name,
                         [](const SeriesSpec& s, std::string_view n) { return s.name < n; });
    return it != std::end(kCatalog) && it->name == name ? &*it : nullptr;
}

ExportScale export_scale(const SeriesSpec& s) {
    const UnitConversion* c = conversion(s);
    return c ? ExportScale{c->mul, c->div} : ExportScale{};
}

std::string_view to_string(SeriesKind k) {
    return k == SeriesKind::counter ? "counter" : "gauge";
}

std::string_view to_string(SeriesOrigin o) {
    switch (o) {
        case SeriesOrigin::drivers:
            return "driver tables";
        case SeriesOrigin::snapshot:
            return "inventory";
        case SeriesOrigin::probes:
            return "probes";
        case SeriesOrigin::bundle:
            return "capture";
        case SeriesOrigin::agent:
            return "agent";
    }
    return "?";
}

std::string series_catalog_markdown() {
    std::string out =
        "| series | kind | unit | labels | meaning | from | source | on /metrics |\n"
        "|---|---|---|---|---|---|---|---|\n";
    for (const SeriesSpec& s : kCatalog) {
        if (!is_stored(s)) continue;
        std::string labels(s.labels);
        for (std::size_t i = 0; (i = labels.find(',', i)) != std::string::npos; i += 2)
            labels.replace(i, 1, ", ");
        out += "| `" + std::string(s.name) + "` | " + std::string(to_string(s.kind)) + " | " +
               std::string(s.unit) + " | " + labels + " | " + std::string(s.help) + " | " +
               std::string(to_string(s.origin)) + " | " + std::string(s.source) + " | `" +
               std::string(s.exported) + "` |\n";
    }
    return out;
}

}  // namespace rh

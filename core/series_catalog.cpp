#include "core/series_catalog.h"

#include <algorithm>
#include <array>

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

// clang-format off
constexpr auto kCatalog = std::to_array<SeriesSpec>({
    {"ack_timeouts", C, "events", kPort, "Requester ACK timer expirations (packet loss)", D, kHw},
    {"adaptive_retransmits", C, "events", kPort, "Adaptive retransmissions", D, kHw},
    {"carrier_changes", C, "events", "netdev", "Netdev carrier changes", SeriesOrigin::snapshot,
     "rtnetlink IFLA_CARRIER_CHANGES / `class/net/<if>/carrier_changes`"},
    {"cnp_handled", C, "packets", kPort, "CNPs acted on by the reaction point (rate reductions)", D, kHw},
    {"cnp_ignored", C, "packets", kPort, "CNPs ignored by the reaction point (congestion control off)", D, kHw},
    {"cnp_sent", C, "packets", kPort, "CNPs sent by the notification point", D, kHw},
    {"duplicate_requests", C, "packets", kPort, "Already executed requests received again", D, kHw},
    {"ecn_marked_packets", C, "packets", kPort, "RoCE packets received with ECN CE (notification point)", D, kHw},
    {"ecn_np_enabled", G, "bool", "device,port,netdev,priority",
     "1 when ECN notification point is enabled on the priority", SeriesOrigin::snapshot,
     "`class/net/<if>/ecn/roce_np/enable/<prio>` (MLNX_OFED)"},
    {"ecn_rp_enabled", G, "bool", "device,port,netdev,priority",
     "1 when ECN reaction point is enabled on the priority", SeriesOrigin::snapshot,
     "`class/net/<if>/ecn/roce_rp/enable/<prio>` (MLNX_OFED)"},
    {"excessive_buffer_overrun_errors", C, "events", kPort, "IB PMA receive buffer overruns", D, kPma},
    {"fcs_errors", C, "frames", kPort, "Frames received with a bad FCS (CRC)", D, kEth},
    {"fec_corrected_bit_errors", C, "bits", kPort, "Bits corrected by the FEC (raw bit errors)", D, kEth},
    {"fec_corrected_blocks", C, "blocks", kPort, "RS-FEC codewords corrected", D, kEth},
    {"fec_uncorrectable_blocks", C, "blocks", kPort, "RS-FEC codewords the FEC could not correct", D, kEth},
    {"implied_nak_sequence_errors", C, "events", kPort, "Implied NAK sequence errors seen by the requester", D, kHw},
    {"lane_corrected_bit_errors", C, "bits", "device,port,netdev,lane",
     "Bits corrected by the FEC per physical lane", D, kEth},
    {"link_down_events", C, "events", kPort, "Times the link went down", D, "`hw_counters`, `counters/`, `ethtool -S`"},
    {"link_error_recovery", C, "events", kPort, "IB PMA link error recoveries (retrains)", D, kPma},
    {"link_pause_duration_us", C, "us", kDir,
     "Time paused by (rx) or pausing (tx) the peer with 802.3x pause", D, kEth},
    {"link_pause_frames", C, "frames", kDir, "IEEE 802.3x link-level pause frames", D,
     "`ethtool -S`, ethtool netlink PAUSE_GET"},
    {"local_link_integrity_errors", C, "events", kPort, "IB PMA LocalPhyErrors threshold crossings", D, kPma},
    {"netdev_rx_dropped", C, "packets", kPort,
     "Received packets the netdev dropped (mlx5: rx_out_of_buffer; others add ring overruns)",
     SeriesOrigin::snapshot, "rtnetlink IFLA_STATS rx_dropped / `ip -s link` RX dropped"},
    {"out_of_sequence", C, "packets", kPort, "Requests received with a PSN out of sequence", D, kHw},
    {"oversize_frames", C, "frames", kPort, "Received frames above the MTU", D, kEth},
    {"pause_storm_events", C, "events", "device,port,netdev,level", "NIC pause-storm watchdog triggers", D, kEth},
    {"pcs_symbol_errors", C, "errors", kPort, "Symbol errors the FEC could not correct", D, kEth},
    {"pfc_enabled", G, "bool", "device,port,netdev,priority", "1 when PFC is enabled on the priority",
     SeriesOrigin::snapshot, "DCB IEEE PFC `pfc_en` bit, or `mlnx_qos`"},
    {"pfc_pause_duration_us", C, "us", kPrio, "Time paused by (rx) or pausing (tx) the peer per priority", D, kEth},
    {"pfc_pause_frames", C, "frames", kPrio, "PFC pause frames received (rx) or sent (tx) per priority", D,
     "`ethtool -S`, DCB `ieee_pfc`"},
    {"pfc_pause_transitions", C, "events", kPrio, "PFC XOFF to XON transitions per priority", D, kEth},
    {"port_max_rate_gbps", G, "Gb/s", "device,port", "Fastest rate the NIC model's ports run (only when the port rate is not known)",
     SeriesOrigin::snapshot, "`ibv_devinfo` vendor_id/vendor_part_id, core/inventory/nic_models.h"},
    {"port_rate_gbps", G, "Gb/s", "device,port", "RDMA port rate", SeriesOrigin::snapshot, "`ports/<p>/rate`"},
    {"port_rcv_data_bytes", C, "bytes", kPort, "Port data bytes received (PMA data x4)", D, kPma},
    {"port_rcv_errors", C, "packets", kPort, "IB PMA packets received with an error", D, kPma},
    {"port_state_code", G, "state", "device,port", "RDMA port state code (4 = ACTIVE)",
     SeriesOrigin::snapshot, "`ports/<p>/state`"},
    {"port_width_lanes", G, "lanes", "device,port", "RDMA port width in lanes", SeriesOrigin::snapshot,
     "`ports/<p>/rate` (`(4X EDR)` -> 4)"},
    {"port_xmit_data_bytes", C, "bytes", kPort, "Port data bytes sent (PMA data x4)", D, kPma},
    {"priority_bytes", C, "bytes", kPrio, "Bytes per priority and direction", D, kEth},
    {"priority_packets", C, "packets", kPrio, "Packets per priority and direction", D, kEth},
    {"probe_errors", C, "events", "peer,op,status", "RDMA probe completions with an error status",
     SeriesOrigin::probes, "probe completions (status IBV_WC_*)"},
    {"probe_latency_us", G, "us", "peer,op,size_bytes,quantile",
     "RDMA probe latency quantile per peer, operation and size", SeriesOrigin::probes,
     "rocehealth probe, the mesh (quantile p50, p99, p999)"},
    {"retry_exceeded", C, "events", kPort, "Transport retries exceeded (IBV_WC_RETRY_EXC_ERR)", D, kHw},
    {"rnr_nak_received", C, "packets", kPort, "RNR NAKs received by the requester (responder had no WQE)", D, kHw},
    {"rnr_nak_sent", C, "packets", kPort, "RNR NAKs sent by the responder", D, kHw},
    {"rnr_retry_exceeded", C, "events", kPort, "RNR retries exceeded (IBV_WC_RNR_RETRY_EXC_ERR)", D, kHw},
    {"roce_rx_bytes", C, "bytes", kPort, "RoCE bytes received", D, "`ethtool -S`, `hw_counters`"},
    {"roce_rx_packets", C, "packets", kPort, "RoCE packets received", D, "`hw_counters`, `ethtool -S`"},
    {"roce_tx_bytes", C, "bytes", kPort, "RoCE bytes sent", D, "`ethtool -S`, `hw_counters`"},
    {"roce_tx_packets", C, "packets", kPort, "RoCE packets sent", D, "`hw_counters`, `ethtool -S`"},
    {"rx_discards_phy", C, "packets", kPort, "Received packets dropped by the port for lack of buffers", D, kEth},
    {"rx_out_of_buffer", C, "packets", kPort, "RDMA receives dropped for lack of a receive WQE", D, kHw},
    {"sequence_errors", C, "packets", kPort, "NAK-sequence-errors received by the requester", D, kHw},
    {"symbol_errors", C, "errors", kPort, "Physical symbol errors", D, "`counters/`, `ethtool -S`"},
    {"uptime_s", G, "s", "", "Seconds since the host booted", SeriesOrigin::bundle,
     "a capture's `uptime` or `cat /proc/uptime`; weighs lifetime pause durations"},
});
// clang-format on

constexpr bool sorted_unique() {
    for (std::size_t i = 1; i < kCatalog.size(); ++i)
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
        std::lower_bound(kCatalog.begin(), kCatalog.end(), name,
                         [](const SeriesSpec& s, std::string_view n) { return s.name < n; });
    return it != kCatalog.end() && it->name == name ? &*it : nullptr;
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
    }
    return "?";
}

std::string series_catalog_markdown() {
    std::string out =
        "| series | kind | unit | labels | meaning | from | source |\n"
        "|---|---|---|---|---|---|---|\n";
    for (const SeriesSpec& s : kCatalog) {
        std::string labels(s.labels);
        for (std::size_t i = 0; (i = labels.find(',', i)) != std::string::npos; i += 2)
            labels.replace(i, 1, ", ");
        out += "| `" + std::string(s.name) + "` | " + std::string(to_string(s.kind)) + " | " +
               std::string(s.unit) + " | " + labels + " | " + std::string(s.help) + " | " +
               std::string(to_string(s.origin)) + " | " + std::string(s.source) + " |\n";
    }
    return out;
}

}  // namespace rh

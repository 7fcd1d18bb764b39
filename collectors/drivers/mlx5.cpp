// mlx5 (ConnectX): RDMA side from mlx5_ib, netdev side from mlx5e. Names, widths and units from
// drivers/infiniband/hw/mlx5/{counters.c,mad.c} and
// drivers/net/ethernet/mellanox/mlx5/core/en_stats.c.
#include "collectors/drivers/table.h"

namespace rh {

namespace {

using namespace nt;

// Q counters (QUERY_Q_COUNTER, be32_to_cpu): 32-bit in hardware, wrap at 2^32.
constexpr unsigned kQ = 32;

constexpr MapEntry kMlx5[] = {
    // --- RDMA: hw_counters, drivers/infiniband/hw/mlx5/counters.c -------------------------
    // congestion counters (QUERY_CONG_STATISTICS, 64-bit high/low)
    hw("ecn_marked_packets", "np_ecn_marked_roce_packets", "packets"),
    hw("cnp_sent", "np_cnp_sent", "packets"),
    hw("cnp_handled", "rp_cnp_handled", "packets"),
    hw("cnp_ignored", "rp_cnp_ignored", "packets"),
    // Q counters: retransmission_q_counters / out_of_seq_cnt caps
    bits(hw("rnr_nak_received", "rnr_nak_retry_err", "packets"), kQ),
    bits(hw("ack_timeouts", "local_ack_timeout_err", "events"), kQ),
    bits(hw("sequence_errors", "packet_seq_err", "packets"), kQ),
    bits(hw("implied_nak_sequence_errors", "implied_nak_seq_err", "events"), kQ),
    bits(hw("out_of_sequence", "out_of_sequence", "packets"), kQ),
    bits(hw("duplicate_requests", "duplicate_request", "packets"), kQ),
    bits(hw("rx_out_of_buffer", "out_of_buffer", "packets"), kQ),
    // Q counters: roce_accl cap
    bits(hw("adaptive_retransmits", "roce_adp_retrans", "events"), kQ),
    // Q counters: enhanced_error_q_counters (kernel >= ~6.11)
    bits(hw("retry_exceeded", "req_transport_retries_exceeded", "events"), kQ),
    bits(hw("rnr_retry_exceeded", "req_rnr_retries_exceeded", "events"), kQ),
    // --- RDMA: counters/ (IB PMA), drivers/infiniband/core/sysfs.c + mlx5/mad.c -----------
    // mlx5 declares IB_PMA_CLASS_CAP_EXT_WIDTH: data counters are 64-bit, in 4-byte words,
    // counting RoCE traffic of the vport only.
    scaled(row("port_rcv_data_bytes", "", "port_rcv_data", kPma, "bytes"), 4),
    scaled(row("port_xmit_data_bytes", "", "port_xmit_data", kPma, "bytes"), 4),
    // PMA error counters saturate (IB spec); on Ethernet ports prefer the ethtool _phy ones.
    fallback(saturating(row("symbol_errors", "", "symbol_error", kPma, "errors"), 16)),
    fallback(saturating(row("link_down_events", "", "link_downed", kPma, "events"), 8)),
    // PortCounters error fields (IB spec widths): packets received with an error (CRC/ICRC,
    // bad length), link retrains that succeeded, LocalPhyErrors threshold crossings, VL buffer
    // overruns. core/sysfs.c names.
    saturating(row("port_rcv_errors", "", "port_rcv_errors", kPma, "packets"), 16),
    saturating(row("link_error_recovery", "", "link_error_recovery", kPma, "events"), 8),
    saturating(
        row("local_link_integrity_errors", "", "local_link_integrity_errors", kPma, "events"), 4),
    saturating(row("excessive_buffer_overrun_errors", "", "excessive_buffer_overrun_errors", kPma,
                   "events"),
               4),
    // --- netdev: ethtool -S, drivers/net/ethernet/mellanox/mlx5/core/en_stats.c -----------
    // PFC group: present only for priorities with PFC enabled. Durations in microseconds.
    eth("pfc_pause_frames", "priority={p},direction=rx", "rx_prio{p}_pause", "frames"),
    eth("pfc_pause_frames", "priority={p},direction=tx", "tx_prio{p}_pause", "frames"),
    eth("pfc_pause_duration_us", "priority={p},direction=rx", "rx_prio{p}_pause_duration", "us"),
    eth("pfc_pause_duration_us", "priority={p},direction=tx", "tx_prio{p}_pause_duration", "us"),
    eth("pfc_pause_transitions", "priority={p},direction=rx", "rx_prio{p}_pause_transition",
        "events"),
    // PPCNT device_stall_{minor,critical}_watermark_cnt (needs pfcc_mask + stall_detect caps)
    eth("pause_storm_events", "level=warning", "tx_pause_storm_warning_events", "events"),
    eth("pause_storm_events", "level=error", "tx_pause_storm_error_events", "events"),
    // IEEE 802.3 group a_pause_mac_ctrl_frames_{received,transmitted}
    eth("link_pause_frames", "direction=rx", "rx_pause_ctrl_phy", "frames"),
    eth("link_pause_frames", "direction=tx", "tx_pause_ctrl_phy", "frames"),
    // PFC group with %s = "global": pport_per_prio_pfc_stats_desc printed for "global" only
    // while 802.3x pause is on (mlx5e_query_global_pause_combined); durations in microseconds
    eth("link_pause_duration_us", "direction=rx", "rx_global_pause_duration", "us"),
    eth("link_pause_duration_us", "direction=tx", "tx_global_pause_duration", "us"),
    // per-priority traffic group (always 8 prios)
    eth("priority_bytes", "priority={p},direction=rx", "rx_prio{p}_bytes", "bytes"),
    eth("priority_bytes", "priority={p},direction=tx", "tx_prio{p}_bytes", "bytes"),
    eth("priority_packets", "priority={p},direction=rx", "rx_prio{p}_packets", "packets"),
    eth("priority_packets", "priority={p},direction=tx", "tx_prio{p}_packets", "packets"),
    // physical port group
    eth("rx_discards_phy", "", "rx_discards_phy", "packets"),
    eth("oversize_frames", "", "rx_oversize_pkts_phy", "frames"),
    eth("link_down_events", "", "link_down_events_phy", "events"),
    eth("symbol_errors", "", "rx_symbol_err_phy", "errors"),  // a_symbol_error_during_carrier
    // IEEE 802.3 group a_frame_check_sequence_errors: frames received with a bad FCS (CRC)
    eth("fcs_errors", "", "rx_crc_errors_phy", "frames"),
    // physical statistical group (PCAM ppcnt_statistical_group): phy_symbol_errors = symbol
    // errors FEC could not correct, phy_corrected_bits = bits FEC corrected
    eth("pcs_symbol_errors", "", "rx_pcs_symbol_err_phy", "errors"),
    eth("fec_corrected_bit_errors", "", "rx_corrected_bits_phy", "bits"),
    // per_lane_error_counters: rx_err_lane_<l>_phy = phy_corrected_bits_lane<l> (FEC-corrected
    // bits per physical lane, 0..3)
    eth("lane_corrected_bit_errors", "lane=0", "rx_err_lane_0_phy", "bits"),
    eth("lane_corrected_bit_errors", "lane=1", "rx_err_lane_1_phy", "bits"),
    eth("lane_corrected_bit_errors", "lane=2", "rx_err_lane_2_phy", "bits"),
    eth("lane_corrected_bit_errors", "lane=3", "rx_err_lane_3_phy", "bits"),
    // vport RDMA traffic (real bytes). Note: ethtool rx_out_of_buffer is the *Ethernet* RQ
    // counter and is deliberately not mapped (normalized rx_out_of_buffer is the RDMA one).
    eth("roce_rx_bytes", "", "rx_vport_rdma_unicast_bytes", "bytes"),
    eth("roce_tx_bytes", "", "tx_vport_rdma_unicast_bytes", "bytes"),
    eth("roce_rx_packets", "", "rx_vport_rdma_unicast_packets", "packets"),
    eth("roce_tx_packets", "", "tx_vport_rdma_unicast_packets", "packets"),
    // optional RDMA flow counters (netlink only, `rdma statistic set ... optional-counters`)
    fallback(hw("roce_rx_bytes", "rdma_rx_bytes", "bytes")),
    fallback(hw("roce_tx_bytes", "rdma_tx_bytes", "bytes")),
    fallback(hw("roce_rx_packets", "rdma_rx_packets", "packets")),
    fallback(hw("roce_tx_packets", "rdma_tx_packets", "packets")),
    // en_dcbnl.c fills ieee_pfc requests/indications from cached per-prio pause counters
    kDcbRx,
    kDcbTx,
    kLinkPauseRx,
    kLinkPauseTx,
};

// Matching: kernel names mlx5_<n>; PCI and netdev driver mlx5_core; ethtool -S names ending in
// _phy or holding _vport_ (en_stats.c); Mellanox/NVIDIA (15b3) ConnectX/BlueField functions.
constexpr std::string_view kMlx5Prefixes[] = {"mlx5_"};
constexpr std::string_view kCore[] = {"mlx5_core"};
// The other Q counters of drivers/infiniband/hw/mlx5/counters.c (basic_q_cnts, out_of_seq_q_cnts,
// retrans_q_cnts, extended_err_cnts, roce_accl_cnts): read with MLX5_GET(query_q_counter_out),
// 32-bit fields.
constexpr std::string_view kQCounters[] = {
    "rx_write_requests",
    "rx_read_requests",
    "rx_atomic_requests",
    "rx_dct_connect",
    "out_of_buffer",
    "out_of_sequence",
    "duplicate_request",
    "rnr_nak_retry_err",
    "packet_seq_err",
    "implied_nak_seq_err",
    "local_ack_timeout_err",
    "resp_local_length_error",
    "resp_cqe_error",
    "req_cqe_error",
    "req_remote_invalid_request",
    "req_remote_access_errors",
    "resp_remote_access_errors",
    "resp_cqe_flush_error",
    "req_cqe_flush_error",
    "roce_adp_retrans",
    "roce_adp_retrans_to",
    "roce_slow_restart",
    "roce_slow_restart_cnps",
    "roce_slow_restart_trans",
    "rx_icrc_encapsulated",
    "req_transport_retries_exceeded",
    "req_rnr_retries_exceeded",
};

/// mlx5e statistics: physical port "_phy", "vport_", per priority "prio<N>" (en_stats.c).
bool mlx5_netdev_only_stat(std::string_view n) {
    if (has(n, "_phy") || has(n, "vport_")) return true;
    for (auto at = n.find("prio"); at != std::string_view::npos; at = n.find("prio", at + 1))
        if (at + 4 < n.size() && n[at + 4] >= '0' && n[at + 4] <= '9') return true;
    return false;
}

}  // namespace

extern const Driver mlx5_driver;
constinit const Driver mlx5_driver{
    .name = "mlx5",
    .table = kMlx5,
    .rdma_name_prefixes = kMlx5Prefixes,
    .pci_drivers = kCore,
    .netdev_drivers = kCore,
    .ethtool_name_is_ours = [](std::string_view n) { return ends(n, "_phy") || has(n, "_vport_"); },
    .netdev_only_stat = mlx5_netdev_only_stat,
    .pci_vendor =
        [](std::string_view d) {
            return has(d, "Mellanox") || has(d, "NVIDIA") || has(d, "[15b3:");
        },
    .rdma_nic = [](std::string_view d) { return has(d, "Mellanox") || has(d, "[15b3:"); },
    .wrapping_32bit_hw_counters = kQCounters,
};

}  // namespace rh

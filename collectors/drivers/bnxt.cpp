// Broadcom: RDMA side from bnxt_re, netdev side from bnxt_en. Names from
// drivers/infiniband/hw/bnxt_re/hw_counters.c and
// drivers/net/ethernet/broadcom/bnxt/bnxt_ethtool.c. All 64-bit. bnxt_re has two name sets:
// upstream hw_counters.c names, and a posted (unmerged) patch with mlx5-style names; both are
// listed, the upstream name first.
#include "collectors/drivers/table.h"

namespace rh {

namespace {

using namespace nt;

constexpr MapEntry kBnxt[] = {
    // --- RDMA: hw_counters, drivers/infiniband/hw/bnxt_re/hw_counters.c -------------------
    // congestion (newer kernels), then the patch's mlx5-style names
    hw("ecn_marked_packets", "rx_ecn_marked_pkts", "packets"),
    hw("ecn_marked_packets", "np_ecn_marked_roce_packets", "packets"),
    hw("cnp_sent", "tx_cnp_pkts", "packets"),
    hw("cnp_sent", "np_cnp_pkts", "packets"),
    hw("cnp_sent", "np_cnp_sent", "packets"),
    hw("cnp_handled", "rx_cnp_pkts", "packets"),
    hw("cnp_handled", "rp_cnp_handled", "packets"),
    // errors and retries
    hw("rnr_nak_received", "rnr_naks_rcvd", "packets"),
    hw("ack_timeouts", "to_retransmits", "events"),
    hw("sequence_errors", "seq_err_naks_rcvd", "packets"),
    hw("out_of_sequence", "oos_drop_count", "packets"),
    hw("duplicate_requests", "dup_req", "packets"),
    hw("retry_exceeded", "max_retry_exceeded", "events"),
    // ext stats (P5+ chips), then the patch name
    hw("rx_out_of_buffer", "rx_out_of_buffer", "packets"),
    hw("rx_out_of_buffer", "out_of_buffer", "packets"),
    // RoCE traffic: *_roce_only_* (newer) exclude non-RoCE; rx_roce_good_* (P5+); rx/tx_pkts
    // and _bytes are the RoCE function's L2 context stats (oldest kernels)
    hw("roce_rx_bytes", "rx_roce_only_bytes", "bytes"),
    hw("roce_rx_bytes", "rx_roce_good_bytes", "bytes"),
    hw("roce_rx_bytes", "rx_bytes", "bytes"),
    hw("roce_tx_bytes", "tx_roce_only_bytes", "bytes"),
    hw("roce_tx_bytes", "tx_bytes", "bytes"),
    hw("roce_rx_packets", "rx_roce_only_pkts", "packets"),
    hw("roce_rx_packets", "rx_roce_good_pkts", "packets"),
    hw("roce_rx_packets", "rx_pkts", "packets"),
    hw("roce_tx_packets", "tx_roce_only_pkts", "packets"),
    hw("roce_tx_packets", "tx_pkts", "packets"),
    // --- netdev: ethtool -S, drivers/net/ethernet/broadcom/bnxt/bnxt_ethtool.c -----------
    eth("pfc_pause_frames", "priority={p},direction=rx", "rx_pfc_ena_frames_pri{p}", "frames"),
    eth("pfc_pause_frames", "priority={p},direction=tx", "tx_pfc_ena_frames_pri{p}", "frames"),
    // port ext stats; _duration_us = microseconds by name
    eth("pfc_pause_duration_us", "priority={p},direction=rx", "pfc_pri{p}_rx_duration_us", "us"),
    eth("pfc_pause_duration_us", "priority={p},direction=tx", "pfc_pri{p}_tx_duration_us", "us"),
    eth("pfc_pause_transitions", "priority={p},direction=rx", "pfc_pri{p}_rx_transitions",
        "events"),
    eth("pfc_pause_transitions", "priority={p},direction=tx", "pfc_pri{p}_tx_transitions",
        "events"),
    eth("link_pause_frames", "direction=rx", "rx_pause_frames", "frames"),
    eth("link_pause_frames", "direction=tx", "tx_pause_frames", "frames"),
    // only when pri2cos_valid (mapped from the cos counters)
    eth("priority_bytes", "priority={p},direction=rx", "rx_bytes_pri{p}", "bytes"),
    eth("priority_bytes", "priority={p},direction=tx", "tx_bytes_pri{p}", "bytes"),
    eth("priority_packets", "priority={p},direction=rx", "rx_packets_pri{p}", "packets"),
    eth("priority_packets", "priority={p},direction=tx", "tx_packets_pri{p}", "packets"),
    eth("rx_discards_phy", "", "rx_stat_discard", "packets"),
    eth("oversize_frames", "", "rx_ovrsz_frames", "frames"),
    eth("link_down_events", "", "link_down_events", "events"),
    eth("symbol_errors", "", "rx_pcs_symbol_err", "errors"),
    // port stats: frames received with a bad FCS
    eth("fcs_errors", "", "rx_fcs_err_frames", "frames"),
    // port ext stats (firmware-size dependent): FEC-corrected bits, RS-FEC blocks corrected /
    // not correctable
    eth("fec_corrected_bit_errors", "", "rx_corrected_bits", "bits"),
    eth("fec_corrected_blocks", "", "rx_fec_corrected_blocks", "blocks"),
    eth("fec_uncorrectable_blocks", "", "rx_fec_uncorrectable_blocks", "blocks"),
    // no equivalent: pause_storm_events (continuous_pause_events has no warning/error split),
    // cnp_ignored, rnr_nak_sent, rnr_retry_exceeded, adaptive_retransmits, PMA counters/,
    // link_pause_duration_us (no global pause duration), lane_corrected_bit_errors (no per-lane
    // counters), pcs_symbol_errors (rx_pcs_symbol_err is symbol_errors already)
    kDcbRx,
    kDcbTx,
    kLinkPauseRx,
    kLinkPauseTx,
};

// Matching: kernel names bnxt_re<n>; PCI and netdev driver bnxt_en; ethtool -S names with
// _pfc_ena_frames_pri or pfc_pri (bnxt_ethtool.c); Broadcom (14e4) NetXtreme-E BCM574xx-576xx.
constexpr std::string_view kBnxtPrefixes[] = {"bnxt_re"};
constexpr std::string_view kEn[] = {"bnxt_en"};

}  // namespace

extern const Driver bnxt_driver;
constinit const Driver bnxt_driver{
    .name = "bnxt",
    .table = kBnxt,
    .rdma_name_prefixes = kBnxtPrefixes,
    .pci_drivers = kEn,
    .netdev_drivers = kEn,
    .ethtool_name_is_ours =
        [](std::string_view n) { return has(n, "_pfc_ena_frames_pri") || starts(n, "pfc_pri"); },
    // Per-ring statistics "[0]: rx_ucast_packets" (bnxt_ethtool.c).
    .netdev_only_stat = [](std::string_view n) { return has(n, "["); },
    .pci_vendor = [](std::string_view d) { return has(d, "Broadcom") || has(d, "[14e4:"); },
    .rdma_nic =
        [](std::string_view d) {
            return (has(d, "Broadcom") || has(d, "[14e4:")) &&
                   (has(d, "NetXtreme-E") || has(d, "BCM575") || has(d, "BCM574") ||
                    has(d, "BCM576"));
        },
};

}  // namespace rh

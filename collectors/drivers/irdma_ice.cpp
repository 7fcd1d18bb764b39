// Intel E810: RDMA side from irdma, netdev side from ice. Names from
// drivers/infiniband/hw/irdma/verbs.c (irdma) and drivers/net/ethernet/intel/ice/ice_ethtool.c.
// irdma gen1/2 hardware counters are 24/32/48-bit but the driver accumulates them with roll-over
// handling into u64 (irdma_update_stats, ctrl.c), so the sysfs values are 64-bit cumulative; ice
// stats are u64.
#include "collectors/drivers/table.h"

namespace rh {

namespace {

using namespace nt;

constexpr MapEntry kIrdmaIce[] = {
    // --- RDMA: hw_counters, drivers/infiniband/hw/irdma/verbs.c (gen2 congestion) ---------
    hw("ecn_marked_packets", "RxECNMrkd", "packets"),
    hw("cnp_sent", "cnpSent", "packets"),
    hw("cnp_handled", "cnpHandled", "packets"),
    hw("cnp_ignored", "cnpIgnored", "packets"),
    // RoCEv2 is UDP: RxUDP/TxUDP count RoCEv2 packets of the RDMA engine
    hw("roce_rx_packets", "RxUDP", "packets"),
    hw("roce_tx_packets", "TxUDP", "packets"),
    // gen3 patch series names (with spaces) [UNCERTAIN upstream]
    hw("rnr_nak_sent", "RNR sent", "packets"),
    hw("rnr_nak_received", "RNR received", "packets"),
    hw("sequence_errors", "Nak Sequence Error", "packets"),
    // --- netdev: ethtool -S, drivers/net/ethernet/intel/ice/ice_ethtool.c -----------------
    // PFC: XOFF frames are the pause frames (XON frames resume and are not counted here)
    eth("pfc_pause_frames", "priority={p},direction=rx", "rx_priority_{p}_xoff.nic", "frames"),
    eth("pfc_pause_frames", "priority={p},direction=tx", "tx_priority_{p}_xoff.nic", "frames"),
    eth("link_pause_frames", "direction=rx", "link_xoff_rx.nic", "frames"),
    eth("link_pause_frames", "direction=tx", "link_xoff_tx.nic", "frames"),
    eth("rx_discards_phy", "", "rx_dropped.nic", "packets"),  // GLPRT_RDPC eth.rx_discards
    eth("oversize_frames", "", "rx_oversize.nic", "frames"),
    eth("fcs_errors", "", "rx_crc_errors.nic", "frames"),  // GLPRT_CRCERRS stats.crc_errors
    // GLPRT_ILLERRC stats.illegal_bytes: received bytes with an illegal (invalid code) symbol
    eth("symbol_errors", "", "illegal_bytes.nic", "errors"),
    // no equivalent: pfc_pause_duration_us, pause_storm_events, ack_timeouts, out_of_sequence,
    // duplicate_requests, retry_exceeded, rx_out_of_buffer, link_down_events,
    // link_pause_duration_us, fec_* and lane_corrected_bit_errors (ethtool -S has no FEC counters),
    // roce_*_bytes (ip4/ip6 octets are split by IP version), PMA counters/
    kDcbRx,
    kDcbTx,
    kLinkPauseRx,
    kLinkPauseTx,
};

// Matching: kernel names irdma<n>; PCI driver ice (E810) or i40e (X722: irdma gives the same
// RDMA names there; its netdev has no table, so the RDMA driver's netdev rows apply); netdev driver
// ice; ethtool -S names ending in .nic, link_xon/xoff_*, {rx,tx}_priority_<p>_{xon,xoff}
// (ice_ethtool.c); Intel (8086) E810 and X722 functions.
constexpr std::string_view kIrdmaIcePrefixes[] = {"irdma"};
constexpr std::string_view kPci[] = {"ice", "i40e"};
constexpr std::string_view kNetdev[] = {"ice"};

}  // namespace

extern const Driver irdma_ice_driver;
constinit const Driver irdma_ice_driver{
    .name = "irdma_ice",
    .table = kIrdmaIce,
    .rdma_name_prefixes = kIrdmaIcePrefixes,
    .pci_drivers = kPci,
    .netdev_drivers = kNetdev,
    .ethtool_name_is_ours =
        [](std::string_view n) {
            return ends(n, ".nic") || starts(n, "link_xoff_") || starts(n, "link_xon_") ||
                   ((starts(n, "rx_priority_") || starts(n, "tx_priority_")) &&
                    (ends(n, "_xoff") || ends(n, "_xon")));
        },
    // "rx_bytes.nic", per queue "tx_queue_0_packets", "port.*" (ice_ethtool.c).
    .netdev_only_stat =
        [](std::string_view n) {
            return has(n, ".nic") || has(n, "_queue_") || starts(n, "port.");
        },
    .pci_vendor = [](std::string_view d) { return has(d, "Intel") || has(d, "[8086:"); },
    .rdma_nic =
        [](std::string_view d) {
            return (has(d, "Intel") || has(d, "[8086:")) && (has(d, "E810") || has(d, "X722"));
        },
};

}  // namespace rh

// Intel E810: RDMA side from irdma, netdev side from ice. Names from
// drivers/infiniband/hw/irdma/verbs.c (irdma) and drivers/net/ethernet/intel/ice/ice_ethtool.c.
// irdma gen1/2 hardware counters are 24/32/48-bit but the driver accumulates them with roll-over
// handling into u64 (irdma_update_stats, ctrl.c), so the sysfs values are 64-bit cumulative; ice
// stats are u64.
#include "collectors/normalize_table.h"

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

}  // namespace

std::span<const MapEntry> irdma_ice_table() {
    return kIrdmaIce;
}

}  // namespace rh

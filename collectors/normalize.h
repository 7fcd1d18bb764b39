// Vendor-neutral counters: maps the raw counters of a port (hw_counters, PMA counters, ethtool -S,
// DCB ieee_pfc, link pause) to one name, unit and label set across drivers. The raw counters stay
// as they are; Port::normalized is an additional view (core/inventory/inventory.h NormalizedCounter).
//
// The mapping is data: one table per driver family (normalize_mlx5.cpp, normalize_bnxt.cpp,
// normalize_irdma_ice.cpp, normalize_rxe.cpp), each entry commented with its kernel source.
// Entries reading RDMA lists (hw_counters, counters) apply by the RDMA driver; entries reading
// netdev lists (ethtool, DCB, link pause) apply by the netdev driver (rxe over an mlx5 netdev
// gets rxe RDMA names and mlx5e ethtool names). Several entries may give one (name, labels):
// the first one whose raw counter exists wins; `fallback` entries are tried after all others.
// A driver without an equivalent, or a raw counter that is missing, gives NO entry (never 0).
// An unknown driver gives no normalized counters at all.
//
// Normalized names (unit; labels) — meaning:
//   pfc_pause_frames (frames; priority, direction=rx|tx)   PFC pause frames received / sent
//   pfc_pause_duration_us (us; priority, direction)        time paused by / pausing the peer
//   pfc_pause_transitions (events; priority, direction)    XOFF->XON transitions
//   pause_storm_events (events; level=warning|error)       NIC pause-storm watchdog triggers
//   link_pause_frames (frames; direction)                   IEEE 802.3x link-level pause
//   link_pause_duration_us (us; direction)                  time paused by / pausing the peer
//                                          with 802.3x pause (mlx5 *_global_pause_duration)
//   priority_bytes / priority_packets (bytes / packets; priority, direction)  traffic per prio
//   ecn_marked_packets (packets)       RoCE packets received with ECN CE (notification point)
//   cnp_sent (packets)                 CNPs sent by the notification point
//   cnp_handled (packets)              CNPs acted on by the reaction point (rate reductions)
//   cnp_ignored (packets)              CNPs ignored by the reaction point (CC off)
//   rnr_nak_received (packets)         requester received RNR NAK (responder had no WQE)
//   rnr_nak_sent (packets)             responder sent RNR NAK
//   ack_timeouts (events)              requester ACK timer expired (packet loss)
//   sequence_errors (packets)          requester received NAK-sequence-error
//   implied_nak_sequence_errors (events) requester saw an implied NAK (mlx5 only)
//   out_of_sequence (packets)          responder received a PSN out of sequence
//   duplicate_requests (packets)       responder received an already executed request
//   adaptive_retransmits (events)      adaptive retransmissions (mlx5 roce_accl)
//   retry_exceeded (events)            transport retries exceeded (-> IBV_WC_RETRY_EXC_ERR)
//   rnr_retry_exceeded (events)        RNR retries exceeded (-> IBV_WC_RNR_RETRY_EXC_ERR)
//   rx_discards_phy (packets)          port dropped received packets for lack of buffers
//   rx_out_of_buffer (packets)         RDMA receive dropped: no receive WQE (RQ empty)
//   roce_rx_bytes / roce_tx_bytes (bytes), roce_rx_packets / roce_tx_packets (packets)
//   link_down_events (events)          link went down (flap)
//   symbol_errors (errors)             physical symbol errors
//   fcs_errors (frames)                frames received with a bad FCS (CRC): lost, retransmitted
//   pcs_symbol_errors (errors)         symbol errors FEC could not correct (mlx5 statistical)
//   fec_corrected_bit_errors (bits)          bits the FEC corrected (pre-FEC errors; a marginal link)
//   fec_corrected_blocks (blocks)      RS-FEC codewords with errors, all corrected
//   fec_uncorrectable_blocks (blocks)  RS-FEC codewords FEC could not correct (frames lost)
//   lane_corrected_bit_errors (bits; lane=0..3) FEC-corrected bits per physical lane
//   port_rcv_errors (packets)          IB PMA: packets received with an error
//   link_error_recovery (events)       IB PMA: link retrains (error recovery) that succeeded
//   local_link_integrity_errors (events) IB PMA: LocalPhyErrors threshold crossings
//   excessive_buffer_overrun_errors (events) IB PMA: receive buffer overruns (not physical)
//   oversize_frames (frames)           received frames above MTU (MTU mismatch)
//   port_rcv_data_bytes / port_xmit_data_bytes (bytes)  PMA data x4 (RDMA traffic on mlx5)
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/inventory/inventory.h"
#include "core/sysfs.h"

namespace rh {

enum class DriverFamily { unknown, mlx5, bnxt, irdma_ice, rxe };

std::string_view to_string(DriverFamily f);

/// Where an entry's raw value is read from.
enum class RawList {
    hw_counters,      ///< Port::hw_counters, then Port::nl_hw_counters (netlink adds optional ones)
    counters,         ///< Port::counters (IB PMA)
    ethtool,          ///< Netdev::ethtool_stats
    dcb_requests,     ///< DcbConfig::pfc_requests[p] (PFC frames sent)
    dcb_indications,  ///< DcbConfig::pfc_indications[p] (PFC frames received)
    link_pause_tx,    ///< LinkPauseStats::tx_frames
    link_pause_rx,    ///< LinkPauseStats::rx_frames
};

/// True for lists read from the netdev (ethtool, DCB, link pause): applied by netdev driver.
bool is_netdev_list(RawList l);

/// One mapping: normalized name + labels <- raw name in a raw list. `labels` is
/// "key=value,key=value"; `{p}` in `labels` and `raw` stands for priority 0..7 (the entry then
/// expands to 8). Value = raw * scale, in `unit`.
struct MapEntry {
    std::string_view name;
    std::string_view labels;
    std::string_view raw;
    RawList from;
    std::string_view unit;
    std::uint64_t scale = 1;
    unsigned width_bits = 64;
    bool saturates = false;
    bool fallback = false;  ///< tried only after every non-fallback entry of both tables
};

/// The table of a family (empty for unknown). Defined in normalize_<family>.cpp.
std::span<const MapEntry> mlx5_table();
std::span<const MapEntry> bnxt_table();
std::span<const MapEntry> irdma_ice_table();
std::span<const MapEntry> rxe_table();
std::span<const MapEntry> table_for(DriverFamily f);

/// RDMA driver family of `class/infiniband/<dev>`: by name prefix (mlx5_, bnxt_re, irdma, rxe),
/// else by the basename of `device/driver` (mlx5_core, bnxt_en, ice/i40e), else unknown.
DriverFamily detect_rdma_driver(const SysfsRoot& sysfs, const std::string& dev);
/// Netdev driver family from the basename of `class/net/<if>/device/driver`
/// (mlx5_core, bnxt_en, ice); unknown when absent.
DriverFamily detect_netdev_driver(const SysfsRoot& sysfs, const std::string& ifname);

/// Pure: the normalized counters of one port, RDMA-list entries from `rdma`'s table and
/// netdev-list entries from `netdev`'s table. Sorted by (name, labels).
std::vector<NormalizedCounter> normalize_port(const Port& port, DriverFamily rdma,
                                              DriverFamily netdev);

/// A port's normalization resolved once against the names in its raw lists: which raw entry (or
/// DCB / link-pause value) each (name, labels) may come from, in the order normalize_port tries
/// them. apply() then only reads values, so a poller re-normalizes a port without name lookups
/// and, once the output has its shape, without allocating. normalize_port is built on it.
class PortNormalizer {
  public:
    PortNormalizer(const Port& port, DriverFamily rdma, DriverFamily netdev);
    ~PortNormalizer();
    PortNormalizer(PortNormalizer&&) noexcept;
    PortNormalizer& operator=(PortNormalizer&&) noexcept;

    /// Sets `out` to exactly what normalize_port(port, rdma, netdev) gives, provided `port`'s
    /// raw lists hold the names and sources they held at construction (values, readability,
    /// DCB and link pause may change). Lists of another size are resolved again first. `out` is
    /// updated in place when it holds this normalizer's (or normalize_port's) previous result
    /// for the port: then only values, and the entries whose raw counter changed, are written.
    void apply(const Port& port, std::vector<NormalizedCounter>& out);

  private:
    struct Candidate;
    struct ListSizes {
        std::size_t hw = 0, nl_hw = 0, pma = 0, eth = 0;
        bool netdev = false;
        bool operator==(const ListSizes&) const = default;
    };
    static constexpr int kNever = -2;
    static ListSizes sizes_of(const Port& port);
    void resolve(const Port& port);

    DriverFamily rdma_, netdev_;
    ListSizes sizes_;
    std::vector<Candidate> cands_;           ///< per (name, labels), in try order
    std::vector<std::size_t> group_begin_;   ///< group g = cands_[begin[g], begin[g+1])
    std::vector<int> winner_, last_winner_;  ///< chosen candidate per group, -1 = absent
};

/// The netdev family normalize_device uses for `port`: the driver of its netdev, else the one
/// that goes with the RDMA driver `rdma` (mlx5 -> mlx5e, ...; none for rxe).
DriverFamily netdev_family_of(const SysfsRoot& sysfs, const Port& port, DriverFamily rdma);

/// Fills Port::normalized for every port of `d`. The netdev family falls back to the one that
/// goes with the RDMA driver (mlx5 -> mlx5e, bnxt_re -> bnxt_en, irdma -> ice) when the netdev
/// has no driver link. Call after every source has filled the device. Never throws.
void normalize_device(Device& d, const SysfsRoot& sysfs);

}  // namespace rh

// The host inventory: what the collectors found about RDMA devices, their ports, netdevs and
// PCIe links. Plain data; filled by collectors/*, read by rules/ and rendered by agent/.
// Every hardware value is optional: absent (unreadable, unparsable, not exposed) is never 0.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/finding.h"

namespace rh {

/// One cumulative counter file under its kernel name, e.g. `hw_counters/rcvd_pkts`.
/// value: cumulative unsigned 64-bit, in the counter's own unit (packets, or 4-byte words for
/// `counters/port_{xmit,rcv}_data`); nullopt when the file could not be read or parsed, then
/// `error` says why (e.g. "N/A (no PMA)").
struct Counter {
    std::string name;
    std::optional<std::uint64_t> value;
    std::string source;  ///< sysfs path it was read from
    std::string error;
};

/// One populated GID table entry: `ports/<p>/gids/<i>`, `gid_attrs/types/<i>`,
/// `gid_attrs/ndevs/<i>`. Unused entries (all-zero GID or unreadable attrs) are left out.
struct Gid {
    unsigned index = 0;
    std::string gid;     ///< "fe80:0000:...", as the kernel prints it
    std::string type;    ///< "IB/RoCE v1" or "RoCE v2"; empty if unreadable
    std::string netdev;  ///< e.g. "eth0"; empty if none
};

/// Link-level (IEEE 802.3x) pause frames, cumulative, from ethtool netlink
/// (ETHTOOL_MSG_PAUSE_GET with ETHTOOL_FLAG_STATS). Not per-priority PFC.
struct LinkPauseStats {
    std::optional<std::uint64_t> tx_frames, rx_frames;
    std::string source;
};

/// One DCB APP table entry (struct dcb_app). selector 5 = DSCP (protocol = DSCP 0..63).
struct DcbApp {
    std::uint8_t selector = 0;
    std::uint8_t priority = 0;
    std::uint16_t protocol = 0;
};

/// IEEE DCB state of a netdev, from rtnetlink RTM_GETDCB / DCB_CMD_IEEE_GET (or a recording).
struct DcbConfig {
    std::string source;
    std::optional<unsigned> pfc_cap;          ///< traffic classes that can be PFC-enabled
    std::optional<std::uint8_t> pfc_enabled;  ///< bit p set = PFC on priority p
    /// ieee_pfc.requests[p] / indications[p]: PFC frames sent / received on priority p,
    /// cumulative (mlx5 fills them from cached per-priority pause counters).
    std::array<std::optional<std::uint64_t>, 8> pfc_requests{}, pfc_indications{};
    std::optional<std::array<std::uint8_t, 8>> prio_tc;  ///< priority -> traffic class
    std::optional<std::array<std::uint8_t, 8>> tc_tsa;   ///< 0 strict, 1 CBS, 2 ETS, 255 vendor
    std::optional<std::array<std::uint8_t, 8>> tc_tx_bw_percent;  ///< ETS bandwidth share
    std::vector<DcbApp> apps;
    std::optional<std::uint8_t> dcbx_mode;  ///< DCB_CAP_DCBX_* bits (1 host, 2 LLD, 4 CEE, 8 IEEE)
};

/// Trust mode and ECN enable state of a netdev.
struct QosConfig {
    std::string trust;  ///< "dscp", "pcp", or empty when unknown
    std::string
        trust_source;  ///< DCB APP table (DSCP entries => dscp) or `class/net/<if>/qos/trust`
    /// `class/net/<if>/ecn/roce_rp|roce_np/enable/<prio>` (MLNX_OFED kernels only): per
    /// priority, nullopt where the file is absent (always on upstream kernels).
    std::array<std::optional<bool>, 8> ecn_rp_enabled{}, ecn_np_enabled{};
    std::string ecn_source;  ///< directory read, or why the state is unknown
};

/// A counter mapped to rocehealth's vendor-neutral name (collectors/normalize). The value is in
/// `unit` (already scaled: `port_xmit_data` words x4 = bytes); absent where the driver has no
/// equivalent or the raw counter is missing — never 0.
struct NormalizedCounter {
    std::string name;                           ///< e.g. "pfc_pause_frames"
    std::map<std::string, std::string> labels;  ///< e.g. {priority: "3", direction: "rx"}
    std::optional<std::uint64_t> value;
    std::string unit;          ///< "frames", "packets", "bytes", "us", "events"
    std::string raw_name;      ///< the kernel/driver name it came from
    std::string source;        ///< file or interface it was read from
    unsigned width_bits = 64;  ///< hardware width: 32 for mlx5 Q counters (wrap), 64 otherwise
    bool saturates = false;    ///< PMA error counters stop at their maximum instead of wrapping
};

/// A network interface's state, from rtnetlink (live host) or from `class/net/<if>/` (fixture).
struct Netdev {
    std::string name;
    std::string source;  ///< "rtnetlink" or the sysfs directory read
    std::optional<unsigned> mtu_bytes;
    std::string operstate;  ///< "up", "down", ...; empty if unknown
    std::optional<std::uint64_t> carrier_changes;
    std::optional<std::uint64_t> rx_bytes, tx_bytes, rx_packets, tx_packets;
    std::optional<std::uint64_t> rx_errors, tx_errors, rx_dropped, tx_dropped;
    std::vector<Counter>
        ethtool_stats;  ///< `ethtool -S` (SIOCETHTOOL ETHTOOL_GSTATS), trimmed names
    LinkPauseStats link_pause;
    std::optional<DcbConfig> dcb;  ///< nullopt when the netdev has no DCB support (see unavailable)
    QosConfig qos;
    std::vector<Note> unavailable;  ///< sources that could not be read and why, once each
};

/// One PCIe link end: the NIC's function or an upstream bridge/root port, from
/// `devices/.../<bdf>/{current,max}_link_{speed,width}` and `numa_node`.
struct PcieLink {
    std::string bdf;           ///< "0000:3b:00.0"
    std::string sysfs_path;    ///< path relative to the sysfs root ("devices/pci0000:00/...")
    bool is_function = false;  ///< true for the NIC's own function, false for upstream ports
    std::optional<double> current_speed_gts, max_speed_gts;  ///< GT/s, parsed "8.0 GT/s PCIe"
    std::optional<unsigned> current_width, max_width;        ///< lanes ("16", no "x")
    /// LnkCtl2 "Target Link Speed" (GT/s) when known (`lspci -vv`): a port set to train no
    /// faster than this is capable of no more, whatever LnkCap says. nullopt in live sysfs.
    std::optional<double> target_speed_gts;
    std::optional<int> numa_node;  ///< -1 = no NUMA affinity
    /// Where the values were read when not from `sysfs_path` (bundles: the capture file and
    /// line, "t0/lspci-vv.txt:42"); empty for live sysfs.
    std::string source;
    /// PCIe port type when known (`lspci -vv` "Express ... Root Port"): "Root Port",
    /// "Downstream Port", "Upstream Port", "Endpoint"; empty when unknown (live sysfs).
    std::string port_type;
    /// `aer_dev_{correctable,nonfatal,fatal}` lines, named "<file>/<error name>" (e.g.
    /// "aer_dev_correctable/Receiver Error"), cumulative; empty when the files are absent.
    std::vector<Counter> aer;
    /// Why the ports above this function were not read, when they exist but could not be (a
    /// sysfs tree copied with `cp -L` keeps the function's folder, not its place in the PCI
    /// tree); empty when the chain is as the kernel shows it. The PCIe rule then cannot tell a
    /// narrow slot from a downtrained link and says so.
    std::string upstream_unread;
};

/// Port attributes that only verbs knows (`ibv_query_port`). Bytes = 128 << ibv_mtu.
struct VerbsPort {
    std::optional<unsigned> active_mtu_bytes;
    std::optional<unsigned> max_mtu_bytes;
    std::string unavailable;  ///< why absent, e.g. "no verbs device (fixture sysfs root)"
};

/// `class/infiniband/<dev>/ports/<n>/`.
struct Port {
    unsigned number = 0;
    std::optional<unsigned> state_code;       ///< 4 = ACTIVE
    std::string state;                        ///< "ACTIVE" (name part of "4: ACTIVE")
    std::optional<unsigned> phys_state_code;  ///< 5 = LinkUp
    std::string phys_state;                   ///< "LinkUp"
    std::string rate;                         ///< "100 Gb/sec (4X EDR)", as printed
    std::string link_layer;                   ///< "Ethernet" for RoCE
    std::vector<Gid> gids;
    std::vector<Counter> counters;     ///< `counters/*` (IB PMA), sorted by name
    std::vector<Counter> hw_counters;  ///< `hw_counters/*` (driver), sorted by name
    std::string netdev_name;           ///< from the GID table's ndevs (first non-empty)
    std::optional<Netdev> netdev;
    VerbsPort verbs;
    /// RDMA netlink RDMA_NLDEV_CMD_STAT_GET: the hw counters incl. enabled optional ones that
    /// sysfs does not show; empty with a fixture root or when netlink is unavailable.
    std::vector<Counter> nl_hw_counters;
    /// Vendor-neutral view of all the raw counters above (collectors/normalize).
    std::vector<NormalizedCounter> normalized;
    /// Why `gids` is not this port's GID table, e.g. "no GID table in the capture (ibv_devinfo
    /// without -v)": GID rules cannot be evaluated. Empty when `gids` is the table (even empty).
    std::string gids_unavailable;
    /// Where a bundle read each port attribute: "state", "phys_state", "rate", "link_layer",
    /// "gids", "active_mtu" -> "t0/ibv_devinfo-v.txt:97" (capture dir, file, line). Empty for
    /// live sysfs, where the source is the attribute's sysfs file.
    std::map<std::string, std::string> sources;
};

/// `class/infiniband/<dev>/`.
struct Device {
    std::string name;       ///< "mlx5_0", "rxe0"
    std::string node_guid;  ///< "0c42:a103:0065:4e9a"
    std::string fw_ver;
    std::string node_type;  ///< "1: CA"
    /// PCI vendor and device ID of the NIC model (bundles: `ibv_devinfo` vendor_id 0x15b3,
    /// vendor_part_id 4125); nullopt when not read. Bounds a port rate the data lacks
    /// (core/inventory/nic_models.h).
    std::optional<unsigned> vendor_id, vendor_part_id;
    std::vector<Port> ports;
    /// NIC function first, then each upstream bridge up to the root port. Empty for devices
    /// with no PCI function (rxe).
    std::vector<PcieLink> pcie;
    std::vector<Note> problems;  ///< files that could not be read, with why
};

struct Snapshot {
    std::string host;
    std::string sysfs_root;
    std::string collected_at;  ///< UTC, ISO 8601
    std::vector<Device> devices;
    std::vector<Note>
        notes;  ///< host-wide notes, e.g. "no RDMA devices under /sys/class/infiniband"
};

class JsonWriter;

/// What an inventory's JSON holds: everything (`snapshot --json`), or the static facts only
/// (the recordings' inventory sample, the responder's inventory reply): without `counters`,
/// `hw_counters`, `nl_hw_counters`, `normalized`, a netdev's `ethtool_stats` and a PCIe link's
/// `aer`.
enum class InventoryJson { full, without_counters };

/// Writes `x` as JSON (the same text as `nlohmann::json(x).dump(indent)` of the writer's
/// indent, for `full`). Members in ascending key order; absent values null, never 0.
void write_json(JsonWriter& w, const Note& n, InventoryJson what = InventoryJson::full);
void write_json(JsonWriter& w, const LinkPauseStats& p, InventoryJson what = InventoryJson::full);
void write_json(JsonWriter& w, const DcbApp& a, InventoryJson what = InventoryJson::full);
void write_json(JsonWriter& w, const DcbConfig& d, InventoryJson what = InventoryJson::full);
void write_json(JsonWriter& w, const QosConfig& q, InventoryJson what = InventoryJson::full);
void write_json(JsonWriter& w, const NormalizedCounter& c,
                InventoryJson what = InventoryJson::full);
void write_json(JsonWriter& w, const Counter& c, InventoryJson what = InventoryJson::full);
void write_json(JsonWriter& w, const Gid& g, InventoryJson what = InventoryJson::full);
void write_json(JsonWriter& w, const Netdev& n, InventoryJson what = InventoryJson::full);
void write_json(JsonWriter& w, const PcieLink& l, InventoryJson what = InventoryJson::full);
void write_json(JsonWriter& w, const VerbsPort& v, InventoryJson what = InventoryJson::full);
void write_json(JsonWriter& w, const Port& p, InventoryJson what = InventoryJson::full);
void write_json(JsonWriter& w, const Device& d, InventoryJson what = InventoryJson::full);
void write_json(JsonWriter& w, const Snapshot& s, InventoryJson what = InventoryJson::full);

/// The snapshot's JSON text: indent < 0 compact (`dump()`), else `dump(indent)`'s layout.
std::string snapshot_json_text(const Snapshot& s, int indent,
                               InventoryJson what = InventoryJson::full);
/// The same as a tree (parsed from that text).
nlohmann::json snapshot_json_tree(const Snapshot& s, InventoryJson what);

/// `s` without what InventoryJson::without_counters leaves out (every counter list): the
/// static facts an inventory sample keeps (store/from_snapshot.h) and the inventory checks read.
/// Its full JSON is `s`'s without_counters JSON.
Snapshot inventory_static_facts(Snapshot s);

/// Trees of the same JSON (parsed from write_json's text: one definition of the format).
void to_json(nlohmann::json& j, const LinkPauseStats& p);
void to_json(nlohmann::json& j, const DcbApp& a);
void to_json(nlohmann::json& j, const DcbConfig& d);
void to_json(nlohmann::json& j, const QosConfig& q);
void to_json(nlohmann::json& j, const NormalizedCounter& c);
void to_json(nlohmann::json& j, const Counter& c);
void to_json(nlohmann::json& j, const Gid& g);
void to_json(nlohmann::json& j, const Netdev& n);
void to_json(nlohmann::json& j, const PcieLink& l);
void to_json(nlohmann::json& j, const VerbsPort& v);
void to_json(nlohmann::json& j, const Port& p);
void to_json(nlohmann::json& j, const Device& d);
void to_json(nlohmann::json& j, const Snapshot& s);

}  // namespace rh

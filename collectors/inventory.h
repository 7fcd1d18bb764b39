// The host inventory: what the collectors found about RDMA devices, their ports, netdevs and
// PCIe links. Plain data; filled by collectors/*, read by rules/ and rendered by agent/.
// Every hardware value is optional: absent (unreadable, unparsable, not exposed) is never 0.
#pragma once

#include <cstdint>
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

/// A network interface's state, from rtnetlink (live host) or from `class/net/<if>/` (fixture).
struct Netdev {
    std::string name;
    std::string source;  ///< "rtnetlink" or the sysfs directory read
    std::optional<unsigned> mtu_bytes;
    std::string operstate;  ///< "up", "down", ...; empty if unknown
    std::optional<std::uint64_t> carrier_changes;
    std::optional<std::uint64_t> rx_bytes, tx_bytes, rx_packets, tx_packets;
    std::optional<std::uint64_t> rx_errors, tx_errors, rx_dropped, tx_dropped;
};

/// One PCIe link end: the NIC's function or an upstream bridge/root port, from
/// `devices/.../<bdf>/{current,max}_link_{speed,width}` and `numa_node`.
struct PcieLink {
    std::string bdf;          ///< "0000:3b:00.0"
    std::string sysfs_path;   ///< path relative to the sysfs root ("devices/pci0000:00/...")
    bool is_function = false; ///< true for the NIC's own function, false for upstream ports
    std::optional<double> current_speed_gts, max_speed_gts;  ///< GT/s, parsed "8.0 GT/s PCIe"
    std::optional<unsigned> current_width, max_width;        ///< lanes ("16", no "x")
    std::optional<int> numa_node;                             ///< -1 = no NUMA affinity
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
    std::optional<unsigned> state_code;  ///< 4 = ACTIVE
    std::string state;                   ///< "ACTIVE" (name part of "4: ACTIVE")
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
};

/// `class/infiniband/<dev>/`.
struct Device {
    std::string name;       ///< "mlx5_0", "rxe0"
    std::string node_guid;  ///< "0c42:a103:0065:4e9a"
    std::string fw_ver;
    std::string node_type;  ///< "1: CA"
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
    std::vector<Note> notes;  ///< host-wide notes, e.g. "no RDMA devices under /sys/class/infiniband"
};

void to_json(nlohmann::json& j, const Counter& c);
void to_json(nlohmann::json& j, const Gid& g);
void to_json(nlohmann::json& j, const Netdev& n);
void to_json(nlohmann::json& j, const PcieLink& l);
void to_json(nlohmann::json& j, const VerbsPort& v);
void to_json(nlohmann::json& j, const Port& p);
void to_json(nlohmann::json& j, const Device& d);
void to_json(nlohmann::json& j, const Snapshot& s);

}  // namespace rh

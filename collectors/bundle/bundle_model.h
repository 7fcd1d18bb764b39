// Internal to collectors/bundle: what the per-format parsers (parse_*.cpp) extract from the
// capture files before bundle_merge.cpp resolves it into one Snapshot, and the small text
// helpers they share. Each parser is pure: text of one file in, facts + notes into a Model.
#pragma once

#include <compare>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/inventory/inventory.h"

namespace rh::bundle {

/// One capture file (or one command's part of it, see sections.h split_sections): its name in
/// the directory and its lines (CR of CRLF stripped; lines of other parts blanked, so line
/// numbers stay the file's). Line numbers in notes are 1-based indexes into `lines`.
struct TextFile {
    std::string name;
    std::vector<std::string> lines;
    std::string dir;      ///< the capture directory's base name ("t0"), for sources
    std::string command;  ///< command of the shell prompt line above the output, else ""
    /// Host the nearest prompt above names ("[root@gpu01 ~]#" -> "gpu01"), else "".
    std::string prompt_host = {};
    /// The text of the section marker above the part ("==> ethtool-S-eth2.txt <==" of `tail -n
    /// +1 *`, "### cat ethtool-S-eth2.txt", a prompt's command), else "": an interface name in
    /// it is evidence like one in the file's name (sections.h).
    std::string label = {};
};

/// "<dir>/<file>:<line>" (line = index + 1): the source of a value read from that line.
std::string source_of(const TextFile& f, std::size_t line_index);
/// "<dir>/<file>": the source of a value read from the file as a whole.
std::string source_of(const TextFile& f);

struct PortKey {
    std::string device;
    unsigned port = 0;
    auto operator<=>(const PortKey&) const = default;
};

/// A netdev from `ip link` / `ip -d link`.
struct NetdevFacts {
    Netdev netdev;  ///< name, mtu_bytes, operstate, rx/tx stats (ip -s), source
    std::vector<std::string> altnames;
    std::string parentdev;  ///< PCI function "0000:3b:00.0" (`ip -d link` parentbus pci)
    std::string mac;        ///< `link/ether` address, lower case "0c:42:a1:65:4e:9a"; "" if none
    bool loopback = false;
};

/// A file that describes one interface without naming it: `ethtool -S`, `ethtool -i`,
/// `mlnx_qos -i <if>`. Resolved to a netdev in bundle_merge.cpp.
struct IfaceFile {
    std::string file;
    std::string kind;
    std::vector<Counter> ethtool_stats;  ///< ethtool -S, driver order
    std::string driver;                  ///< ethtool -i `driver:` (e.g. "mlx5_core")
    std::string bus_info;                ///< ethtool -i `bus-info:` as a PCI BDF, else empty
    std::optional<QosConfig> qos;        ///< mlnx_qos trust
    std::optional<DcbConfig> dcb;        ///< mlnx_qos PFC / ETS / dscp2prio
    std::string iface_hint;  ///< interface named by the prompt's command (`ethtool -S <if>`)
    std::string label;       ///< the section marker's text (TextFile::label)
    std::optional<double> speed_mbps;   ///< `ethtool <if>` "Speed: 100000Mb/s", in Mb/s
    std::string speed_source;           ///< "t0/ethtool.txt:8", the Speed line
    std::optional<bool> link_detected;  ///< `ethtool <if>` "Link detected: yes|no"
};

/// One PCI function from `lspci -vv`. Speeds GT/s, widths lanes.
struct PciFunction {
    std::string file;
    unsigned line = 0;
    std::string bdf;          ///< with domain, lower case: "0000:3b:00.0"
    std::string class_name;   ///< "Ethernet controller", "PCI bridge"
    std::string description;  ///< "Mellanox Technologies MT2892 Family [ConnectX-6 Dx]"
    std::optional<double> cap_speed_gts, sta_speed_gts;
    std::optional<unsigned> cap_width, sta_width;
    bool sta_downgraded = false;             ///< lspci printed "(downgraded)" on LnkSta
    std::optional<double> target_speed_gts;  ///< LnkCtl2 "Target Link Speed", GT/s
    std::optional<int> numa_node;
    bool caps_denied = false;  ///< "Capabilities: <access denied>" (lspci run without root)
    unsigned cap_line = 0, sta_line = 0;  ///< 1-based lines of LnkCap / LnkSta, 0 if none
    /// "Express (v2) Root Port (Slot+)" -> "Root Port"; "Downstream Port", "Upstream Port",
    /// "Endpoint", "Legacy Endpoint", ...; empty without an Express capability line.
    std::string port_type;
    /// Bridges: "Bus: primary=00, secondary=3b, subordinate=3b" (hex), or `lspci -t`.
    std::optional<unsigned> secondary_bus, subordinate_bus;
};

/// A `pcie_print_link_status` line (drivers/pci/pci.c): "<driver> <bdf>: 63.008 Gb/s available
/// PCIe bandwidth, limited by 8.0 GT/s PCIe x8 link at 0000:b2:00.0 (capable of 252.048 Gb/s
/// with 16.0 GT/s PCIe x16 link)". Speeds GT/s, widths lanes.
struct DmesgPcieLink {
    std::string source;      ///< "t0/dmesg.txt:12"
    std::string function;    ///< the NIC function that printed it
    std::string limited_at;  ///< the port whose link limits ("" when not limited)
    std::optional<double> speed_gts, cap_speed_gts;
    std::optional<unsigned> width, cap_width;
};

/// A bridge from `lspci -t`: its BDF and the bus range behind it ("-[3b-3c]").
struct TreeBridge {
    std::string bdf;
    unsigned secondary_bus = 0, subordinate_bus = 0;
    std::string source;
};

/// Counters of a file that does not say which RDMA port they belong to.
struct UnplacedCounters {
    std::string file;
    std::string kind;
    std::vector<Counter> hw_counters, counters;
    std::optional<PortKey> port_hint;  ///< port named by the prompt's command (a sysfs path)
};

/// Everything the parsers found in one capture directory.
struct Model {
    std::string dir;  ///< the capture directory's base name (TextFile::dir)
    std::map<std::string, Device> devices;
    /// Device -> `sys_image_guid` as ibv_devinfo prints it ("0c42:a103:0065:4e9a").
    std::map<std::string, std::string> sys_image_guid;
    /// Port -> netdev from a source that says so (GID ndevs, `rdma link show`), and that source.
    std::map<PortKey, std::pair<std::string, std::string>> port_netdev;
    /// Port -> GID index -> entry, filled field by field (ibv_devinfo, sysfs listings).
    std::map<PortKey, std::map<unsigned, Gid>> gids;
    std::map<std::string, NetdevFacts> netdevs;
    std::vector<IfaceFile> iface_files;
    std::vector<UnplacedCounters> unplaced;
    std::vector<PciFunction> pci;
    std::vector<DmesgPcieLink> dmesg_pcie;
    std::vector<TreeBridge> tree_bridges;
    /// Port -> attribute -> "t0/ibv_devinfo-v.txt:97" (Port::sources).
    std::map<PortKey, std::map<std::string, std::string>> port_sources;
    /// Ports whose GID table a capture showed (ibv_devinfo -v, a gids/ listing): without one,
    /// Port::gids_unavailable says why.
    std::set<PortKey> gid_table_seen;
    std::vector<Note> notes;
    /// Notes a reader must see without --verbose ("<subject>: <text>"): a file not read, two
    /// hosts in one file, facts kept by a weaker match. Each is also in `notes`.
    std::vector<std::string> warnings;
    /// Counter files read but tied to no RDMA port ("<dir>/<file>: <why>"): their counters were
    /// not judged, so the capture cannot be called healthy (BundleCapture::unused_counters).
    std::vector<std::string> unused_counters;
    /// Addresses of `ip addr` (inet / inet6, without the prefix length), loopback excepted.
    std::vector<std::string> ip_addresses;
    /// Seconds since boot from `uptime` / `cat /proc/uptime` (parse_uptime.cpp), and its source.
    std::optional<double> uptime_s;
    std::string uptime_source;
    /// How exact uptime_s is, seconds: 60 for `uptime` ("up 4 min", "3:12"), 0.01 for
    /// /proc/uptime.
    double uptime_resolution_s = 0;
    /// The capture's boot id, 32 lower-case hex digits without dashes: `cat
    /// /proc/sys/kernel/random/boot_id`, else journalctl's last "-- Boot <id> --" line; and its
    /// source; "" when absent.
    std::string boot_id, boot_id_source;
    /// `/proc/stat` btime: boot time, seconds since the epoch, and its source.
    std::optional<double> btime_s;
    std::string btime_source;

    /// add_counter's name index of each counter list it grew, so a pasted listing of n counters
    /// costs O(n), not O(n^2) (a 40,000-line `hw_counters` paste took 12 s). An entry is used
    /// only while its list still has the size and storage it had; otherwise it is rebuilt.
    struct CounterIndex {
        const Counter* data = nullptr;
        std::size_t size = 0;
        std::unordered_map<std::string, std::size_t> position;
    };
    std::unordered_map<const std::vector<Counter>*, CounterIndex> counter_index;

    /// The device, created on first use with its name.
    Device& device(const std::string& name);
    /// The port, created on first use (ports kept in numeric order).
    Port& port(const std::string& dev, unsigned number);
    void note(const TextFile& f, std::size_t line_index, std::string text);
    void note(std::string subject, std::string text);
    /// A note that is also a warning (see `warnings`).
    void warn(std::string subject, std::string text);
    /// A counter value that is not a number, at line `line_index` of `f`: a note, and counted
    /// in `bad_values` ("ethtool-S.txt:112") for the warning every run shows (ignored_values).
    void bad_value(const TextFile& f, std::size_t line_index, std::string text);
    /// Where bad_value was called, "FILE:LINE" each, in the order seen.
    std::vector<std::string> bad_values;
    /// Adds the warning for `bad_values` (none when empty): "3 counter values are not numbers
    /// and were ignored (t1/ethtool-S.txt:112, :118, t1/hw_counters.txt:4); the diagnosis runs
    /// without them (--verbose shows each)". Call once, after every file is parsed.
    void warn_bad_values();
};

// --- text helpers (bundle_text.cpp) -------------------------------------------------------
std::string_view trim(std::string_view s);
bool starts_with(std::string_view s, std::string_view prefix);
/// Whitespace-separated tokens.
std::vector<std::string_view> tokens(std::string_view s);
std::optional<std::uint64_t> to_u64(std::string_view s);
std::optional<double> to_double(std::string_view s);
/// "0000:3b:00.0" for "3b:00.0" or "0000:3B:00.0"; empty when `s` is not a PCI address.
std::string canonical_bdf(std::string_view s);
/// A GID as the kernel prints it in `ports/<p>/gids/<i>` (8 groups of 4 hex digits) from any
/// IPv6 text form ("::ffff:192.168.1.10", "fe80::1", full form); empty when not an address.
std::string canonical_gid(std::string_view s);
/// Adds `c` to `list` unless a counter of that name is there: the first one stays; a second
/// one with a different value adds a note naming both sources.
void add_counter(std::vector<Counter>& list, Counter c, Model& m, const std::string& subject);

// --- formats: detect (cheap, content only) and parse (returns the kind label) ----------------
bool is_ethtool_s(const TextFile& f);
std::string parse_ethtool_s(const TextFile& f, Model& m);
bool is_ethtool_i(const TextFile& f);
std::string parse_ethtool_i(const TextFile& f, Model& m);
bool is_ibv_devinfo(const TextFile& f);
std::string parse_ibv_devinfo(const TextFile& f, Model& m);
bool is_ethtool_link(const TextFile& f);
std::string parse_ethtool_link(const TextFile& f, Model& m);
bool is_mlnx_qos(const TextFile& f);
std::string parse_mlnx_qos(const TextFile& f, Model& m);
bool is_ip_link(const TextFile& f);
std::string parse_ip_link(const TextFile& f, Model& m);
bool is_lspci(const TextFile& f);
std::string parse_lspci(const TextFile& f, Model& m);
bool is_rdma_tool(const TextFile& f);
std::string parse_rdma_tool(const TextFile& f, Model& m);
bool is_uptime(const TextFile& f);
std::string parse_uptime(const TextFile& f, Model& m);
bool is_boot_facts(const TextFile& f);
std::string parse_boot_facts(const TextFile& f, Model& m);
bool is_hw_counters_listing(const TextFile& f);
std::string parse_hw_counters_listing(const TextFile& f, Model& m);
bool is_dmesg(const TextFile& f);
std::string parse_dmesg(const TextFile& f, Model& m);
bool is_lspci_tree(const TextFile& f);
std::string parse_lspci_tree(const TextFile& f, Model& m);
bool is_counter_list(const TextFile& f);
std::string parse_counter_list(const TextFile& f, Model& m);

/// The interface a shell command names after one of `flags` ("ethtool -S ens1f0np0 | grep
/// pause" with {"-S", "--statistics"} -> "ens1f0np0"), only when `tool` is one of its words
/// (a path ending in it counts: "/usr/sbin/ethtool"); "" otherwise. Commands before it in a
/// list are skipped ("date; ethtool -S eth2 | grep prio" -> "eth2"); after it, the first
/// command that is `tool` counts ("ethtool -S eth0; ethtool -S eth1" -> "eth0").
std::string iface_in_command(std::string_view command, std::string_view tool,
                             std::initializer_list<std::string_view> flags);
/// The interface a capture file's name names, for captures without `ip link` output: a word
/// of the name (split at '-', '_', '.') that has a kernel or systemd netdev name's shape
/// ("eth2", "ens1f0np0", "enp59s0f1", "eno1", "ib0", "bond0"): a known prefix followed by a
/// digit. "eth2-pfc.txt" -> "eth2"; "" when no word fits or several different ones do.
std::string iface_in_file_name(std::string_view file);
/// The RDMA port a command's sysfs path names (".../infiniband/mlx5_0/ports/1/hw_counters/*").
std::optional<PortKey> port_in_command(std::string_view command);

/// The PCI function a udev/systemd predictable name encodes, "P<domain>p<bus>s<slot>f<fn>"
/// in decimal after `prefix` (rdma-core rdma_rename by_pci: "roceP2p1s0f1" = 0002:01:00.1,
/// "rocep59s0f1" = 0000:3b:00.1; systemd: "enp59s0f1np1" = 0000:3b:00.1); "" when the name is
/// not of that form (slot names "ens4f0", onboard "eno1", VFs "...v3", kernel names).
std::string bdf_from_pci_name(std::string_view name);

/// Resolves what the parsers found into `snap` (devices, ports, netdevs, PCIe, normalized
/// counters) and appends the model's notes. See bundle.h for the placement rules.
void merge_into(Model& m, Snapshot& snap);

}  // namespace rh::bundle

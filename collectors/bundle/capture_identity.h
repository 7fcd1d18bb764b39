// Which host a bundle capture is of, from what the capture itself holds: operators rarely add a
// `hostname` file, and two captures of one host taken 10 s apart must be one host's timeline
// (agent/replay/inputs.cpp groups them), while captures of two hosts must stay two hosts.
//
// Evidence, strongest first (compare_identity decides on the first kind both captures hold):
//  1. node_guid per RDMA device (ibv_devinfo, or the hw_counters/sysfs listing), 2. sys_image_guid
//  (ibv_devinfo -v), 3. MAC addresses (`ip link` link/ether of PCI or RoCE netdevs, and the MAC
//  inside a link-local GID fe80::xxxx:xxff:fexx:xxxx of ibv_devinfo -v), 4. GID addresses other
//  than link-local ones (the RoCE v2 IPv4-mapped GIDs), 5. the `hostname` file, 6. PCI slots of
//  the NIC functions (`ethtool -i` bus-info, `ip -d link` parentdev, lspci Ethernet/Network/
//  InfiniBand controllers; compared as domain:bus:device so port 0 and port 1 agree), 7. RDMA
//  device and netdev names with the same counter-name sets (what a capture of only hw_counters
//  or `ethtool -S` listings still holds).
// Hardware identity (1-4) outranks the hostname file: a hostname file copied from a template or
// another host is a note, not a second host. PCI slots and names (6-7) are weak: identical
// servers share them, so they only decide when nothing stronger is there.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "core/inventory/inventory.h"

namespace rh {

namespace bundle {
struct Model;
}

/// The identity facts of one capture (or, merged, of several captures of one host). Keys name
/// where a value was seen ("mlx5_0", "ens1f0np0", "mlx5_0 port 1 GID 0"), values are lower
/// case. Empty maps/sets mean the capture does not hold that kind of evidence.
struct CaptureIdentity {
    std::string hostname;  ///< first line of the `hostname` file; "" when there is none
    std::map<std::string, std::set<std::string>> node_guid;  ///< device -> "0c42:a103:0065:4e9a"
    std::map<std::string, std::set<std::string>> sys_image_guid;  ///< device -> GUID
    std::map<std::string, std::set<std::string>> mac;  ///< netdev or GID -> "0c:42:a1:65:4e:9a"
    std::map<std::string, std::set<std::string>> gid;  ///< "dev port N" -> GIDs (not fe80::)
    std::set<std::string> pci_slots;                   ///< "0000:3b:00"
    /// "mlx5_0 port 1" (hw_counters + counters names) / "netdev eth0" (ethtool -S names) ->
    /// counter names. Keys are also the device and netdev names compared in kind 7.
    std::map<std::string, std::set<std::string>> counter_names;
    /// The same keys -> counter name -> cumulative value (the latest capture's when merged): a
    /// later capture of the same host never has a smaller one (unless the counters were reset).
    std::map<std::string, std::map<std::string, std::uint64_t>> counter_values;

    /// Adds `o`'s facts (the hostname only when this one has none; `o`'s counter values, as the
    /// later capture, replace these).
    void merge(const CaptureIdentity& o);
};

/// What compare_identity concluded.
struct IdentityMatch {
    enum class Verdict { same, different, unknown };
    Verdict verdict = Verdict::unknown;
    /// The evidence that decided, as a person can check it: "node_guid 0c42:a103:0065:4e9a,
    /// MAC 0c:42:a1:65:4e:9a" (same) or "node_guid of mlx5_0: 0c42:... vs 0c42:..." (different);
    /// "" when unknown.
    std::string evidence;
    /// Weaker evidence that disagreed with the verdict, e.g. "hostname file: node01 vs node02";
    /// "" when none did.
    std::string disagreeing;
    /// Decided by weak evidence only (PCI slots, names and counters) or unknown: identical
    /// servers would match too, so the caller may weigh other signs (capture times).
    bool weak = true;
};

/// Compares two captures (or merged groups) kind by kind in the order of the header comment;
/// the first kind both hold decides: a value seen in both = same host; the same key (device,
/// netdev, GID slot) with different values, or no slot/name in common = different hosts. In
/// kind 7, `b` is the later capture: a cumulative counter of a common key smaller in `b` than in
/// `a` means another host (or a reset) = different.
/// Unknown when no kind is held by both (the caller decides; agent/replay/inputs.cpp treats a
/// capture that contradicts nothing as the same host and says so). Pure.
IdentityMatch compare_identity(const CaptureIdentity& a, const CaptureIdentity& b);

/// Fastest port a capture can come from (400 Gb/s = 50e9 B/s): a byte counter that grew faster
/// between two captures cannot be one port's.
inline constexpr double kMaxPlausiblePortBytesPerS = 400e9 / 8;

/// Why capture `next` cannot follow capture `last` on one host, judged from their counters
/// alone (for matches on weak evidence): a cumulative counter of a device or netdev both hold
/// went down (another host, or a reset), or, with `dt_s` (seconds between them) known, a counter
/// whose name says bytes grew faster than kMaxPlausiblePortBytesPerS. nullopt when neither.
std::optional<std::string> implausible_successor(const CaptureIdentity& last,
                                                 const CaptureIdentity& next,
                                                 std::optional<double> dt_s);

/// The MAC address inside a link-local GID ("fe80:0000:0000:0000:0e42:a1ff:fe65:4e9a" ->
/// "0c:42:a1:65:4e:9a", the EUI-64 with the universal/local bit flipped back); "" when `gid`
/// (kernel form: 8 groups of 4 hex digits) is not a link-local EUI-64 GID.
std::string mac_of_link_local_gid(const std::string& gid);

/// Identity facts from what the parsers found in one capture directory (before merging) and
/// the `hostname` file's text ("" when absent). Called by import_bundle_dir.
CaptureIdentity identity_from_model(const bundle::Model& m, const std::string& hostname_file);

/// Adds the counter-name sets and GIDs of the merged snapshot (kinds 4 and 7: counters are
/// placed on ports only by the merge) to `id`.
void add_snapshot_identity(CaptureIdentity& id, const Snapshot& snap);

}  // namespace rh

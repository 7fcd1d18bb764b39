// Whether a port that is down was ever in use: the ONE decision behind "a port that was never
// cabled is a note, not an error". port_not_active, no_roce_v2_gid and roce_mtu (rules/*.cpp)
// and the engine's per-port time rules (link_flap's "port state != ACTIVE") all ask
// judge_port_usage; none has a test of its own.
//
// A port is taken as never cabled when all of these hold:
//   - it is down: state not ACTIVE (4) and phys_state not LinkUp (5), both known;
//   - no carrier: its netdev (when known) is not operstate "up";
//   - no carrier history: carrier_changes <= 1 (the kernel counts carrier_up + carrier_down,
//     and the first carrier-off after the netdev registered is one: a link that came up and
//     went down again counts >= 2) and no link-down event (PMA link_downed, normalized
//     link_down_events) above 0;
//   - no traffic: every traffic counter it has is 0 (PMA port_rcv/xmit_data and _packets,
//     normalized port_rcv/xmit_data_bytes, roce_rx/tx_bytes/_packets, priority_bytes/_packets,
//     netdev rx/tx bytes/packets); an absent counter is no evidence of traffic;
//   - no GID in use: no GID derived from an IP address (anything but fe80:: link-local).
//   - it is not required (`check --require-port`, `diagnose --require-port`, the agent's
//     `required_ports`): a required port that is down is an error whatever its history.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/inventory/inventory.h"

namespace rh {

class SeriesStore;

/// ports/<p>/state 4 ("4: ACTIVE") and ports/<p>/phys_state 5 ("5: LinkUp"): the values of a
/// port that carries RDMA traffic (ib_verbs.h IB_PORT_ACTIVE; IBTA PortPhysicalState LinkUp).
inline constexpr unsigned kIbPortActive = 4;
inline constexpr unsigned kPhysLinkUp = 5;

/// Whether a GID is link-local (fe80::/10 as the kernel prints it, "fe80:0000:...", or
/// "fe80::"): derived from no IP address, so not routable for RoCE v2.
inline bool is_link_local_gid(const std::string& gid) {
    return gid.size() >= 4 && (gid.compare(0, 4, "fe80") == 0 || gid.compare(0, 4, "FE80") == 0);
}

struct PortUsage {
    bool down = false;      ///< state not ACTIVE and phys_state not LinkUp (both known)
    bool required = false;  ///< named by a required-port entry
    /// What shows the port was in use, one phrase each, every value with its unit and one name
    /// per unit whether read from sysfs (`check`) or the store (`diagnose`):
    /// "port_xmit_data_bytes = 208475320068 bytes" (PMA data, 4-byte words x4),
    /// "ens1f0np0 carrier_changes = 5 events", "GID 3 ::ffff:10.0.0.1"; empty when nothing does.
    std::vector<std::string> in_use_signs;
    /// Down, not required and no sign of use: the port is taken as never cabled.
    bool never_cabled = false;
    /// The note for a never-cabled port: subject "mlx5_1 port 1 (ens1f1np1)", text "DOWN, no
    /// carrier, never carried traffic: taken as not cabled (...)"; empty otherwise.
    Note note;
};

/// Judges one port (see the file comment). `required` holds required-port entries (see
/// required_port_matches). Never throws.
PortUsage judge_port_usage(const Device& d, const Port& p,
                           const std::vector<std::string>& required);

/// Whether required-port entry `entry` names port `p` of `d`: "mlx5_0/1" (device/port), or a
/// netdev name ("ens1f1np1", the port's netdev).
bool required_port_matches(const std::string& entry, const Device& d, const Port& p);

/// "" when `entry` is a well-formed required-port entry — "DEVICE/PORT" (PORT 1..255) or a
/// netdev name (1..15 characters, no '/', ':' or whitespace, as IFNAMSIZ allows) — else why
/// not, e.g. "\"mlx5_0/x\": expected DEVICE/PORT (port 1..255) or a netdev name".
/// Header-only so the agent's config parser can use it without linking the rules.
inline std::string check_required_port(std::string_view entry) {
    const auto bad = [&] {
        return "\"" + std::string(entry) +
               "\": expected DEVICE/PORT (e.g. mlx5_0/1, port 1..255) or a netdev name (e.g. "
               "ens1f1np1)";
    };
    if (entry.empty() || entry.find_first_of(" \t\r\n:") != std::string_view::npos) return bad();
    const auto slash = entry.find('/');
    if (slash == std::string_view::npos) return entry.size() <= 15 ? "" : bad();
    const std::string_view dev = entry.substr(0, slash), port = entry.substr(slash + 1);
    if (dev.empty() || port.empty() || port.size() > 3 ||
        port.find_first_not_of("0123456789") != std::string_view::npos)
        return bad();
    const unsigned n = static_cast<unsigned>(std::stoul(std::string(port)));
    return n >= 1 && n <= 255 ? "" : bad();
}

/// Required-port entries that name no port of `snap` (a typo must not pass silently).
std::vector<std::string> unmatched_required_ports(const Snapshot& snap,
                                                  const std::vector<std::string>& required);

/// For an inventory read back from the store (store/from_snapshot.h keeps no counters in it):
/// fills each port's `normalized` with the latest cumulative value of the store's traffic and
/// link-down series of that host, device and port, so judge_port_usage sees in `diagnose` and
/// the agent what it sees in a live `check`. Ports that already have normalized counters are
/// left as they are.
void add_usage_counters(const SeriesStore& store, const std::string& host, Snapshot& snap);

/// (device, port number as its series label prints it) of every port of `inventory` (a host's
/// inventory from the store with add_usage_counters applied) that judge_port_usage, with no
/// required ports, takes as never cabled. For the engine's time rules: a port that never had
/// carrier did not flap.
/// Also ({kNetdevKey}, netdev name) for such a port's netdev: series of the netdev alone
/// (carrier_changes) are that port's too.
std::set<std::pair<std::string, std::string>> never_cabled_ports(const Snapshot& inventory);

/// The device name in never_cabled_ports' entries that name a netdev instead of a port.
inline const std::string kNetdevKey = "netdev:";

/// Whether a rule group (its labels) is of a never-cabled port of `uncabled`: by device and port,
/// else (a netdev-only series) by netdev.
bool uncabled_group(const std::set<std::pair<std::string, std::string>>& uncabled,
                    const std::map<std::string, std::string>& labels);

/// The same over all captures of `host` in `store`: a port whose state left DOWN in any capture
/// (POLLING/INIT/ARMED/ACTIVE: it was enabled and saw a peer, or trained) is not taken as never
/// cabled even when the inventory's capture shows it down: its time rules then judge it (came
/// up late, bounced: link_flap's state change, with times).
std::set<std::pair<std::string, std::string>> never_cabled_ports(const Snapshot& inventory,
                                                                 const SeriesStore& store,
                                                                 const std::string& host);

/// ports/<p>/state 1: DOWN (ib_verbs.h IB_PORT_DOWN).
inline constexpr unsigned kIbPortDown = 1;

/// A port's logical state over every capture in the store (series port_state_code).
struct PortStateHistory {
    bool left_down = false;                ///< some capture shows a state other than DOWN
    std::optional<double> first_active_t;  ///< engine time it was first ACTIVE
    std::optional<unsigned> latest;        ///< the last capture's state code (nullopt: unreadable)
};
PortStateHistory port_state_history(const SeriesStore& store, const std::string& host,
                                    const std::string& device, unsigned port);

/// For an inventory read back from the store (its first capture's): a port the store shows
/// ACTIVE in its last capture is set ACTIVE/LinkUp, so inventory checks (port_not_active) judge
/// the port as it is at the end of the data, not as it was at the first capture.
void apply_state_history(const SeriesStore& store, const std::string& host, Snapshot& snap);

}  // namespace rh

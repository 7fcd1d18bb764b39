// Which hosts POST /api/v1/incast may name as senders (agent/daemon/README.md, "HTTP API"): the
// agent runs the fabric-key handshake with every sender it is given, so a sender outside the
// fleet would let whoever holds the action token point that handshake at a host of its choice
// (issue 27: the key relay). Allowed: the known fleet — mesh.peers, the hosts and addresses of
// mesh.peers_file, the fleet fetched from mesh.peers_dns / mesh.peers_prometheus — and the
// entries of incast.allowed_senders (IP addresses, CIDR blocks, host names). Names are compared
// as written (case-insensitive), never resolved: a name that resolves elsewhere is not in the
// fleet.
#pragma once

#include <string>
#include <vector>

namespace rh::agent {

/// What a sender is checked against.
struct SenderFleet {
    /// Hosts of the known fleet as HOST or HOST:PORT ("g2", "10.0.0.2:18520"); the port is
    /// ignored.
    std::vector<std::string> hosts;
    /// incast.allowed_senders: "10.0.0.7", "10.0.1.0/24", "fd00::/64", "g7".
    std::vector<std::string> allowed;
};

/// "" when `entry` can be an incast.allowed_senders entry (an IP address, a CIDR block with a
/// prefix length within its family, or a host name), else why not.
std::string check_allowed_sender(const std::string& entry);

/// "" when `sender` (HOST or HOST:PORT, as the request gave it) is in `fleet`, else the reason
/// to answer with 403, naming the sender and the config field that would allow it.
std::string sender_refusal(const std::string& sender, const SenderFleet& fleet);

}  // namespace rh::agent

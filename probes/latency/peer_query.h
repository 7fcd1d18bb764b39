// query_peer: asks a peer's `rocehealth responder` what it would use for a probe (device, port,
// active_mtu, GID) with only the out-of-band TCP handshake — no verbs objects on either side.
// Used by `rocehealth check --peer HOST` to compare MTU/GID type across the path.
#pragma once

#include <optional>
#include <string>

#include "core/result.h"

namespace rh {

struct PeerInfo {
    std::string peer;                          ///< "HOST:PORT" as connected to
    std::string hostname;                      ///< the responder's gethostname()
    std::string device;                        ///< RDMA device the responder serves, e.g. "rxe0"
    unsigned port = 0;                         ///< 1-based verbs port number
    std::optional<unsigned> active_mtu_bytes;  ///< 256..4096; nullopt if the peer could not tell
    std::string gid;                           ///< "fe80::..." / "::ffff:10.0.0.2"
    unsigned gid_index = 0;
    std::string gid_type;  ///< "RoCE v2", "IB/RoCE v1", or "" if unknown
};

/// `host_port` is "HOST" or "HOST:PORT" (default port 18520; "[v6]:port" accepted).
/// Whole exchange bounded by `timeout_ms`. Errors: op "connect"/"recv"/"handshake",
/// subject "peer HOST:PORT", e.g. "cannot reach responder at HOST:PORT: connection refused".
Result<PeerInfo> query_peer(const std::string& host_port, int timeout_ms);

}  // namespace rh

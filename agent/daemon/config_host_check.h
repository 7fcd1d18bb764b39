// What `rocehealth agent --check-config` checks beyond the file (config.h): that this host can
// serve the config as written — the addresses it must bind are its own, the RDMA devices it
// names exist. A config that parses can still fail at start (or, after a SIGHUP, be rejected);
// these are the cheap checks of that failure, run before a rollout.
#pragma once

#include "agent/daemon/config.h"
#include "core/result.h"

namespace rh::agent {

/// Checks `cfg` against this host, every check run and every problem reported:
///  - http.listen's address, and responder.listen's when the responder is enabled: not multicast,
///    not 255.255.255.255 nor an interface's broadcast address (Linux binds TCP there, and
///    nothing connects), and bound with port 0 (a free port: the running agent may hold the
///    configured one, as during an upgrade), so an address that is not this host's
///    (EADDRNOTAVAIL) fails and the port is not tried;
///  - `device` and `responder.device`, when set, are under <sysfs_root>/class/infiniband; with
///    responder.enabled, the responder finds a port to serve there (probes/verbs/device_select.h:
///    an ACTIVE Ethernet port with a RoCE GID);
///  - this host's own line of mesh.peers_file (by `host`, else the kernel's name) and
///    incast.receiver_address name this host: an address literal binds, or a name resolves to
///    one that does; with the responder enabled, the line's port is responder.port.
/// Error: op "config", subject cfg.source, detail one line per problem naming the field, e.g.
/// "http.listen: cannot bind 10.9.9.9 on this host: Cannot assign requested address",
/// "responder.listen: 224.0.0.1 is a multicast address: TCP cannot listen there; give one of this
/// host's addresses", "device: no RDMA device mlx5_9 under /sys/class/infiniband (present:
/// mlx5_0, mlx5_1)", "responder.enabled: true, but this host has no port to serve: ...",
/// "mesh.peers_file: this host (gpu07) is listed at 10.9.9.9 in FILE, not an address of this host
/// (10.9.9.9: Cannot assign requested address)".
Status check_config_on_host(const AgentConfig& cfg);

}  // namespace rh::agent

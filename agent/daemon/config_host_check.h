// What `rocehealth agent --check-config` checks beyond the file (config.h): that this host can
// serve the config as written — the addresses it must bind are its own, the RDMA devices it
// names exist. A config that parses can still fail at start (or, after a SIGHUP, be rejected);
// these are the cheap checks of that failure, run before a rollout.
#pragma once

#include "agent/daemon/config.h"
#include "core/result.h"

namespace rh::agent {

/// Checks `cfg` against this host. http.listen's address, and responder.listen's when the
/// responder is enabled, are bound with port 0 (a free port: the running agent may hold the
/// configured one, as during an upgrade), so an address that is not this host's
/// (EADDRNOTAVAIL) fails and the port is not tried. `device` and `responder.device`, when set,
/// must be under <sysfs_root>/class/infiniband. Error: op "config", subject cfg.source, detail
/// one line per problem naming the field, e.g. "http.listen: cannot bind 10.9.9.9 on this
/// host: Cannot assign requested address" or "device: no RDMA device mlx5_9 under
/// /sys/class/infiniband (present: mlx5_0, mlx5_1)".
Status check_config_on_host(const AgentConfig& cfg);

}  // namespace rh::agent

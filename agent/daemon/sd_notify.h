// Readiness and state for systemd (the unit is Type=notify): the sd_notify(3) protocol spoken
// directly — one datagram of "KEY=VALUE" lines to the unix socket named by $NOTIFY_SOCKET — so
// `systemctl start` returns once the agent serves HTTP and `systemctl status` shows its state,
// without linking libsystemd.
#pragma once

#include <string>

namespace rh::agent {

/// Sends `state` (e.g. "READY=1\nSTATUS=collecting") to $NOTIFY_SOCKET: a path, or "@name" for
/// the abstract namespace. Returns false when NOTIFY_SOCKET is unset or empty (not started by
/// systemd with Type=notify), too long for a socket address, or the send failed: never fatal,
/// the daemon runs either way.
bool sd_notify_state(const std::string& state);

}  // namespace rh::agent

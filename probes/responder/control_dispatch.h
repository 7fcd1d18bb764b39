// The dispatcher of every control command a `rocehealth responder` serves (json frames on its TCP
// port, probes/wire/oob_protocol.h). A connection's first json message picks the session (the
// incast coordinator and `rocehealth accept` send them):
//
//   hello           -> hello_reply {hostname, wall_ms, device, port, gid, gid_type, active_mtu,
//                      port_rate, port_rate_error, sampler}; the connection then takes another
//                      command (the coordinator measures its clock offset with it)
//   sample          -> counter passes until stop            (probes/incast/incast_sampling.h)
//   stream_open     -> receiving end of a stream session    (probes/wire/stream_protocol.h)
//   incast_prepare  -> sending role of an incast            (probes/incast/incast_sender.h)
//   inventory       -> this host's facts for `accept`       (probes/responder/control_inventory.h)
//   probe           -> a latency probe from here to a peer  (probes/responder/control_probe.h)
//   rkey_open       -> rkey revocation test, responder side (probes/responder/rkey_revocation.h)
//   fault           -> take this host's link down and up     (probes/responder/control_fault.h)
// Anything else gets {cmd: "error", error: "unknown command ..."}. Every command but hello
// needs a connection that proved the fabric key first (probes/auth/handshake.h); without it the
// answer is {cmd: "error", error: "peer did not prove the fabric key"} or, on a responder with
// no key, "this responder has no key configured: control commands are off". Before the key is
// proven, hello (once) and those refusals are answered by the accept loop
// (probes/responder/front_door.h); serve_control runs only for a connection that proved it, on
// its own thread in the keyed pool (--max-sessions), where hello may be repeated.
#pragma once

#include <atomic>
#include <string>

#include <nlohmann/json.hpp>

#include "probes/responder/responder.h"
#include "probes/verbs/device_select.h"
#include "probes/wire/tcp.h"

namespace rh {

struct ControlContext {
    const ResponderOptions& opts;
    const PortChoice& where;
    const std::atomic<bool>& stop;
    std::string peer;  ///< "peer HOST:PORT", for log lines
    /// The client proved the fabric key (probes/auth/handshake.h); every command but hello
    /// needs it.
    bool key_proven = false;
    /// One stderr line "rocehealth responder: <peer>: <what>".
    void log(const std::string& what) const;
};

/// Serves one control connection whose first message is `first`.
void serve_control(const tcp::Socket& s, const nlohmann::json& first, const ControlContext& cx);

/// This host's hello_reply (wall clock now, port rate read from sysfs now).
nlohmann::json hello_reply(const ControlContext& cx);

}  // namespace rh

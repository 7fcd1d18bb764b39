// The responder's "fault" control command (probes/responder/control_dispatch.h), for the acceptance
// stage `fault` (agent/accept/README.md): this host takes its own RDMA link down and up and
// measures, on its own clock, how long the link and then RDMA traffic to a peer take to come back.
// The host runs the whole sequence itself because the control connection usually shares the link:
// the runner's request waits (TCP retransmits) until the link is back.
//
// Refused unless the responder was started with --allow-fault (agent: responder.allow_fault):
// taking a link down is never done without the host's consent.
//
//   C -> R  {cmd: "fault", peer: "HOST[:PORT]" (a responder to send traffic to), down_ms
//            (100..600000, how long the link stays down), recovery_timeout_ms (1000..600000,
//            how long to wait for the link and the traffic to come back)}
//   R:      1. baseline: a 64 B RDMA WRITE probe to `peer` (new RC QP, 100 messages) must pass,
//              else the reply is an error and nothing is touched;
//           2. its routes and configured addresses are listed (probes/fault/net_setup.h: an admin
//              down deletes them, a cable pull would not), and its GID table read;
//              the netdev under the responder's RDMA port is set administratively down
//              (rtnetlink), kept down for down_ms, then set up; a guard process
//              (probes/fault/link_guard.h) sets it up on every other way out: an error, the
//              responder stopping, crashing or being killed, or 10 s past the planned up;
//              Once up, the routes and addresses that are missing are added back;
//           3. link recovery: from the up request until the RDMA port is ACTIVE and the
//              netdev's operstate is up (polled every 10 ms);
//           4. traffic recovery: from the up request until a new RC connection to `peer`
//              completes 10 RDMA WRITEs of 64 B (retried every 100 ms; an application's QPs
//              do not survive a link down that outlasts their retries, so traffic comes back
//              with a new connection).
//   R -> C  fault_reply (probes/wire/control_replies.h FaultReply): {device, port, netdev, down_ms,
//            down_at_s, up_at_s: seconds from the request's arrival to the down / up request,
//            port_left_active_s: down request -> port no longer ACTIVE (null: it never left),
//            link_recovery_s, traffic_recovery_s: from the up request (null: not back within
//            recovery_timeout_ms), traffic_attempts: connections tried after the link was back,
//            baseline_p50_us, recovered_p50_us: 64 B WRITE half round trip before / after
//            (null when not measured), last_error: why the last traffic attempt failed (""),
//            interrupted: "" or why the sequence was cut short (the responder stopping; the
//            guard had set the link up because this process was held up) — then the times
//            do not describe the fault asked for, saved: {addresses, routes} counts,
//            restored: ["route 10.200.0.0/24 via 10.99.0.11 table 254", ...] put back,
//            setup_changes: ["not restored: ...: why", "GID 2 fd00:... no longer ..."]}
//   or      {cmd: "error", error}: a bad request (the field is named), fault injection not
//            allowed, "busy: a fault is already in progress on this host" (one at a time), the
//            baseline failed, or the link could not be set down (nothing changed).
#pragma once

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "probes/responder/control_dispatch.h"

namespace rh {

/// A decoded "fault" request.
struct FaultRequest {
    std::string peer;
    unsigned down_ms = 5000;
    unsigned recovery_timeout_ms = 60000;
};

/// Decodes a "fault" message; the Error names the first bad field. Pure.
Result<FaultRequest> parse_fault_request(const nlohmann::json& msg);

/// Serves one "fault" request `msg` (blocks for the whole sequence) and returns.
void serve_fault(const tcp::Socket& s, const nlohmann::json& msg, const ControlContext& cx);

}  // namespace rh

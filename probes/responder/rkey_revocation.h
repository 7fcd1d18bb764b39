// rkey revocation test (acceptance stage `rkey_revocation`, issue 7): the responder registers a
// buffer, tells the client its rkey and address, deregisters it, and the client's RDMA WRITE or
// READ with that rkey must complete with IBV_WC_REM_ACCESS_ERR. A success means a remote peer
// can still reach memory the responder gave back: an acceptance failure.
//
// Control channel (json frames on the responder's port, probes/responder/control_dispatch.h):
//   C -> R  {cmd: "rkey_open", qpn, psn, gid (32 hex), active_mtu}
//   R -> C  {cmd: "rkey_ready", qpn, psn, gid, active_mtu, rkey, addr, size_bytes}
//   C: one RDMA READ of the buffer with that rkey must succeed (the rkey was valid: the check
//      below then proves revocation, not a wrong key)
//   C -> R  {cmd: "rkey_revoke"}
//   R -> C  {cmd: "rkey_revoked"}  after ibv_dereg_mr returned
//   C: one RDMA WRITE or READ with the old rkey/addr; its completion status is the result.
//   The client closes the connection; the responder then destroys its QP.
// One op per session: the access error puts both QPs in the error state.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "probes/responder/control_dispatch.h"

namespace rh {

struct RkeyOptions {
    std::string peer;    ///< HOST[:PORT] of the responder
    bool write = true;   ///< RDMA WRITE (else READ) after revocation
    std::string device;  ///< this host's device; empty = auto
    std::optional<unsigned> gid_index;
    int timeout_ms = 5000;  ///< each wait (connect, replies, each completion)
};

struct RkeyOutcome {
    std::string op;              ///< "write" | "read"
    std::string control_status;  ///< the READ before revocation ("IBV_WC_SUCCESS" expected)
    std::string got_status;      ///< after revocation: IBV_WC_* name, or "timeout"
    std::string detail;          ///< the completion text / why
    bool pass() const { return got_status == "IBV_WC_REM_ACCESS_ERR"; }
};

/// Runs one revocation session against `o.peer`. Error: could not run (no device, responder
/// unreachable or refusing, the control READ failed -> the test proves nothing).
Result<RkeyOutcome> run_rkey_revocation(const RkeyOptions& o);

/// Serves one "rkey_open" session (responder side).
void serve_rkey(const tcp::Socket& s, const nlohmann::json& msg, const ControlContext& cx);

}  // namespace rh

// Names for ibv_wc_status values ("IBV_WC_RETRY_EXC_ERR") and a one-line description of a failed
// work completion, for error reports.
#pragma once

#include <string>

#include <infiniband/verbs.h>

#include "core/result.h"
#include "core/wc_status.h"

namespace rh {

/// "IBV_WC_RETRY_EXC_ERR (transport retry counter exceeded), wr_id 17, vendor_err 0x81"
std::string describe_wc(const ibv_wc& wc);

/// Error::cause of a failure the peer's control connection reported (it closed or reset).
inline constexpr const char* kCausePeerClosed = "peer_closed";
/// Error::cause of a probe session this host could not set up on its own side (bad options, no
/// RDMA device or ACTIVE port, verbs resources): not the peer's fault.
inline constexpr const char* kCauseLocalSetup = "local_setup";

/// How a probe or stream failure is counted (the `status` label of probe_errors, incast errors by
/// status): Error::cause when set (an IBV_WC_* name from RcConnection::poll, kCausePeerClosed),
/// "timeout" for ETIMEDOUT (a wait that expired without a completion), else "other".
std::string cause_of(const Error& e);

/// The IBV_WC_* name a peer's error TEXT names (the responder reports a failure as text in its
/// phase_done frame; the fixed frame has no status field): the longest name of this build found
/// as a whole token, e.g. "IBV_WC_RNR_RETRY_EXC_ERR"; "other" when none.
std::string wc_status_in_text(const std::string& text);

}  // namespace rh

// The RC local ACK timeout every QP of this process uses, and where it comes from.
//
// IB encoding N (1..31): the requester retransmits when a message is not ACKed within
// 4.096 us * 2^N. Default kQpTimeout = 14 (67 ms, as perftest). ROCEHEALTH_QP_TIMEOUT overrides it
// for the whole process (every subcommand, the agent through its unit's Environment=), as UCX's
// UCX_RC_TIMEOUT does: fabrics with deep buffers or emulated NICs (Soft-RoCE under QEMU delivers a
// 1 MiB message in ~90 ms, so 14 causes spurious retransmits there) need a longer one.
// 0 (wait forever) is refused: a lost packet would then hang a probe instead of failing it.
#pragma once

#include <optional>
#include <string>

#include "core/result.h"

namespace rh {

inline constexpr unsigned kQpTimeout = 14;  ///< IB encoding: 4.096 us * 2^14 = 67 ms
inline constexpr const char* kQpTimeoutEnv = "ROCEHEALTH_QP_TIMEOUT";

/// Parses a QP timeout given as text (`value`, from `source` for the error): an integer 1..31.
/// Error (op "qp timeout", subject `source`) saying what is wrong and the allowed range.
Result<unsigned> parse_qp_timeout(const std::string& value, const std::string& source);

/// The process's QP timeout: ROCEHEALTH_QP_TIMEOUT when set (validated as parse_qp_timeout),
/// else kQpTimeout. Reads the environment on every call (cheap; called once per QP).
Result<unsigned> configured_qp_timeout();

/// 4.096 us * 2^n in milliseconds (for messages).
double qp_timeout_ms(unsigned n);

}  // namespace rh

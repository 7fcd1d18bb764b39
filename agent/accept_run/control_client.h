// One request/reply on a host's `rocehealth responder` control channel
// (probes/responder/control_dispatch.h) for the acceptance runner: connect, send one json command,
// receive one json reply.
#pragma once

#include <atomic>
#include <string>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace rh::accept {

/// Sends `msg` to the responder at `address` (HOST[:PORT], default port 18520) and returns the
/// reply whose cmd is `want`. Error: unreachable, timeout (`timeout_ms` for the reply), or the
/// responder answered {cmd: "error"} (its text is in the Error) or something else, or `stop`
/// (when given) became true while waiting for the reply (looked at every 200 ms; the connection
/// closes, which the responder takes as the end of the request).
Result<nlohmann::json> control_request(const std::string& address, const nlohmann::json& msg,
                                       const std::string& want, int timeout_ms,
                                       const std::atomic<bool>* stop = nullptr);

}  // namespace rh::accept

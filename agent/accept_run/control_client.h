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

/// control_request, then the reply read by `parse` (probes/wire/control_replies.h): a reply with a
/// field missing or of the wrong type is an Error naming the responder and the field.
template <typename T>
Result<T> control_call(const std::string& address, const nlohmann::json& msg,
                       const std::string& want, int timeout_ms,
                       Result<T> (*parse)(const nlohmann::json&, const std::string&),
                       const std::atomic<bool>* stop = nullptr) {
    auto r = control_request(address, msg, want, timeout_ms, stop);
    if (!r) return r.error();
    return parse(*r, "responder at " + address);
}

}  // namespace rh::accept

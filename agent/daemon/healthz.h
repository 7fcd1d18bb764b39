// GET /healthz: whether the agent is doing its job, from what the run loop last published.
#pragma once

#include <nlohmann/json.hpp>

#include "agent/daemon/board.h"

namespace rh::agent {

/// The HTTP status and JSON body of a /healthz answer.
struct HealthReply {
    int status = 200;
    nlohmann::json body;
};

/// /healthz for board `v` at CLOCK_MONOTONIC time `now_s` (seconds). The body always has
/// "status", "passes" and "devices" (RDMA devices at the last inventory), and
/// "last_pass_age_s" (seconds) once a pass ran, and "host_key_fingerprint" ("SHA256:" and 43
/// base64 characters, as `rocehealth keygen --host-key` prints) when responder.host_key_file is
/// set (the key loaded at start or the last reload). In order of precedence:
///  - 503 "starting": no collection pass yet;
///  - 503 "stale": no pass for 3 collect intervals (and at least 10 s);
///  - 503 "no_device": the last inventory (re-read every inventory_interval_s) found no RDMA
///    device, with "reason": "no RDMA device found at the last inventory (ROOT/class/infiniband
///    is empty)" — the agent then collects nothing the rules could use;
///  - 200 "ok".
HealthReply healthz(const BoardView& v, double now_s);

}  // namespace rh::agent

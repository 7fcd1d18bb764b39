// Messages of the incast roles on the control channel (json frames; the command list is in
// probes/responder/control_dispatch.h). Each struct has to_json and a parse_* that checks ranges
// and names the bad field (probes/wire/control_fields.h). Times are UTC milliseconds of the host
// that wrote them; the coordinator corrects them by each host's measured clock offset.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "probes/wire/stream_protocol.h"

namespace rh::incast {

inline constexpr std::uint32_t kMaxDurationMs = 3'600'000;  ///< 1 h of traffic

/// hello -> hello_reply: who a participant is and its clock.
struct Hello {
    std::string hostname;
    std::int64_t wall_ms = 0;
    std::string device;
    unsigned port = 0;
    std::string gid;       ///< compact text
    std::string gid_type;  ///< "RoCE v2", ...
    unsigned active_mtu = 0;
    std::string port_rate;  ///< ports/<p>/rate as sysfs prints it ("100 Gb/sec (4X EDR)"), or ""
    std::string port_rate_error;  ///< why port_rate is empty
    bool sampler = false;         ///< serves "sample" (counters via HostSampler)
};

/// C -> S: set up a stream to the receiver.
struct Prepare {
    std::string id;        ///< the coordinator's test id (logs)
    std::string receiver;  ///< HOST[:PORT] of the receiver's responder, as S should reach it
    stream::Op op = stream::Op::write;
    std::uint64_t size_bytes = 65536;
    unsigned qps = 1;
    unsigned queue_depth = 16;
    std::uint32_t duration_ms = 10000;
};

/// S -> C: ready to start (its stream to the receiver is set up).
struct Ready {
    std::string receiver_hostname;
    unsigned slots = 0;
    unsigned path_mtu = 0;
};

/// C -> S: when to start, in S's own clock.
struct Start {
    std::int64_t start_at_wall_ms = 0;
    std::uint32_t duration_ms = 0;
};

/// S -> C, about once a second while streaming.
struct Progress {
    double elapsed_s = 0;
    std::uint64_t completed_bytes = 0;
    std::uint64_t completed_messages = 0;
    std::uint64_t errors = 0;
};

/// One QP as the sender saw it.
struct QpResult {
    std::uint64_t posted = 0, completed = 0, failed = 0;
    std::map<std::string, std::uint64_t> errors;  ///< by IBV_WC_* name
    std::string error;
    std::int64_t first_post_wall_ms = 0;       ///< 0 = nothing posted
    std::int64_t last_completion_wall_ms = 0;  ///< 0 = nothing completed
};

/// S -> C at the end.
struct Outcome {
    std::int64_t scheduled_start_wall_ms = 0;  ///< the start it was told (its clock)
    std::int64_t started_wall_ms = 0;          ///< when it began posting (its clock)
    std::int64_t ended_wall_ms = 0;            ///< when it stopped (its clock)
    std::uint64_t size_bytes = 0;
    std::vector<QpResult> qps;
    bool receiver_ok = false;    ///< the receiver's stream_result arrived
    stream::Received receiver;   ///< ... and what it said
    std::string receiver_error;  ///< why not
    std::string note;            ///< e.g. "coordinator went away: stopped early"
};

nlohmann::json to_json(const Hello& m);
nlohmann::json to_json(const Prepare& m);
nlohmann::json to_json(const Ready& m);
nlohmann::json to_json(const Start& m);
nlohmann::json to_json(const Progress& m);
nlohmann::json to_json(const Outcome& m);

rh::Result<Hello> parse_hello(const nlohmann::json& j);
rh::Result<Prepare> parse_prepare(const nlohmann::json& j);
rh::Result<Ready> parse_ready(const nlohmann::json& j);
rh::Result<Start> parse_start(const nlohmann::json& j);
rh::Result<Progress> parse_progress(const nlohmann::json& j);
rh::Result<Outcome> parse_outcome(const nlohmann::json& j);

}  // namespace rh::incast

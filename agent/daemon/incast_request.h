// The body of POST /api/v1/incast (agent/daemon/README.md, "HTTP API"): a JSON object
//   {"senders": ["HOST[:PORT]", ...],  1..64 peers' responders, each once (required)
//    "size_bytes": 65536,              message size: a multiple of 8, 16 B .. 16 MiB
//    "duration_s": 5,                  traffic time, 0.1 .. incast.max_duration_s
//    "qps_per_sender": 1,              1..16
//    "queue_depth": 16,                1..64 outstanding messages per QP
//    "op": "write",                    "write" (RDMA WRITE with immediate) or "send"
//    "victim": false}                  also run the 64 B victim probe from this host
// Every field but senders is optional. Checked strictly: an unknown field, a wrong type or a
// value out of range is an error naming the field ("duration_s: 900 is out of range: expected
// 0.1 to 30 seconds"); all errors are reported together. The receiver is always this host.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace rh::agent {

struct IncastRequest {
    std::vector<std::string> senders;
    std::uint64_t size_bytes = 65536;
    double duration_s = 5;
    unsigned qps_per_sender = 1;
    unsigned queue_depth = 16;
    std::string op = "write";
    bool victim = false;
};

/// Senders a request may name.
inline constexpr std::size_t kMaxIncastSenders = 64;

/// Parses and checks a request body. Error: op "request", subject "POST /api/v1/incast",
/// detail one line per problem naming the field ("body: not valid JSON at line 1, column 9
/// (senders): ...", "body: duplicate key op ...",
/// "senders[1]: \"a b\" ...", "op: expected \"write\" or \"send\", got \"read\"").
Result<IncastRequest> parse_incast_request(std::string_view body, double max_duration_s);

}  // namespace rh::agent

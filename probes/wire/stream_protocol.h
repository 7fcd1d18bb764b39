// The stream session kind of the control channel (json frames, probes/wire/oob_protocol.h): one
// sender streams messages over 1..kMaxQps RC QPs into a receiver's `rocehealth responder`, which
// verifies every slot (probes/wire/stream_slots.h). On its own TCP connection to the receiver:
//
//   S -> R  stream_open   {op, size_bytes, queue_depth, seed, qps: [{qpn, psn}], gid,
//                          active_mtu, hostname, device, max_ms, verify_ppm}
//   R -> S  stream_ready  {slots, recv_depth, qps: [{qpn, psn, rkey, addr}], gid, active_mtu,
//                          hostname, device}     (receives posted, QPs ready to receive)
//           ... S streams: message n of a QP to ring slot n % slots, as RDMA WRITE with
//               immediate ("write") or SEND ("send"); each consumes one receive WQE at R ...
//   S -> R  stream_end    {completed: [per QP: messages that completed successfully at S]}
//   R -> S  stream_result {qps: [{messages, bytes, bad_slots, verified_messages, verified_bytes,
//                          bad: {kind: n}, errors: {IBV_WC_*: n}, first_wall_ms, last_wall_ms,
//                          error}], note}
//
// verify_ppm (optional; absent = slot::default_verify_fraction of size_bytes): parts per million
// of messages whose whole payload the receiver hashes; every message gets the trailer check.
//
// R waits for stream_end at most max_ms after stream_ready (a sender that vanished), then for
// its completed messages at most kDrainMs. Any message may instead be {cmd: "error", error}.
// Parsers check ranges and name the bad field (probes/wire/control_fields.h).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "probes/wire/probe_limits.h"

namespace rh::stream {

enum class Op { write, send };  ///< write = RDMA WRITE with immediate
const char* to_string(Op op);
std::optional<Op> parse_op(const std::string& s);

inline constexpr unsigned kMaxQps = 16;
inline constexpr std::uint32_t kMaxStreamMs = 3'600'000 + 120'000;  ///< 1 h of traffic + setup
inline constexpr int kDrainMs = 3000;  ///< receiver's wait for completed messages after the end

/// Receive ring bytes per QP at the receiver for a message size and queue depth.
std::uint64_t ring_bytes(std::uint64_t size, unsigned queue_depth);
/// Most ring bytes one stream session (all its QPs) may make a receiver register.
inline constexpr std::uint64_t kMaxSessionBytes = 256ull << 20;

struct QpEndpoint {
    std::uint32_t qpn = 0;
    std::uint32_t psn = 0;
    std::uint32_t rkey = 0;  ///< stream_ready only
    std::uint64_t addr = 0;  ///< stream_ready only: the QP's ring
};

struct Open {
    Op op = Op::write;
    std::uint64_t size_bytes = 65536;
    unsigned queue_depth = 16;
    std::uint32_t seed = 1;
    std::vector<QpEndpoint> qps;
    std::array<std::uint8_t, 16> gid{};
    unsigned active_mtu = 0;  ///< bytes
    std::string hostname;
    std::string device;
    std::uint32_t max_ms = 60000;
    /// Fully verified share of messages, parts per million (0..1'000'000); see verify_ppm above.
    std::uint32_t verify_ppm = 1'000'000;
};

inline constexpr std::uint32_t kPpm = 1'000'000;
/// verify_ppm of the default policy for a message size (slot::default_verify_fraction).
std::uint32_t default_verify_ppm(std::uint64_t size_bytes);

struct Ready {
    unsigned slots = 0;
    unsigned recv_depth = 0;
    std::vector<QpEndpoint> qps;
    std::array<std::uint8_t, 16> gid{};
    unsigned active_mtu = 0;
    std::string hostname;
    std::string device;
};

struct End {
    std::vector<std::uint64_t> completed;  ///< per QP
};

/// What the receiver saw on one QP.
struct QpReceived {
    std::uint64_t messages = 0;   ///< receive completions with success status
    std::uint64_t bytes = 0;      ///< of them, bytes of intact slots
    std::uint64_t bad_slots = 0;  ///< wrong length, seq, checksum or payload
    /// Of `messages`, how many (and their bytes, good or bad) got the full payload pass; the
    /// rest got the trailer check only (seq, checksum field, first slot::kPrefixBytes).
    std::uint64_t verified_messages = 0;
    std::uint64_t verified_bytes = 0;
    std::map<std::string, std::uint64_t> bad;     ///< by kind (stream_slots.h Bad)
    std::map<std::string, std::uint64_t> errors;  ///< error completions by IBV_WC_* name
    std::int64_t first_wall_ms = 0;  ///< first receive completion, receiver's UTC ms; 0 = none
    std::int64_t last_wall_ms = 0;
    std::string error;  ///< first error (completion, post), "" if none
};

struct Received {
    std::vector<QpReceived> qps;
    std::string note;  ///< e.g. "sender closed the stream without stream_end"
};

nlohmann::json to_json(const Open& m);
nlohmann::json to_json(const Ready& m);
nlohmann::json to_json(const End& m);
nlohmann::json to_json(const Received& m);
nlohmann::json to_json(const QpReceived& q);

/// Parse and check one message (cmd must match). Open: size a slot size <= 16 MiB, queue depth
/// 1..limits::kMaxQueueDepth, 1..kMaxQps QPs, ring_bytes <= 64 MiB and QPs x ring_bytes <=
/// kMaxSessionBytes, max_ms <= kMaxStreamMs, qpn/psn 24 bit, active_mtu 256..4096.
/// Ready/End/Received: the QP count must be `qps`.
Result<Open> parse_open(const nlohmann::json& j);
Result<Ready> parse_ready(const nlohmann::json& j, std::size_t qps);
Result<End> parse_end(const nlohmann::json& j, std::size_t qps);
Result<Received> parse_received(const nlohmann::json& j, std::size_t qps);

/// {cmd: "error", error: text}.
nlohmann::json error_message(const std::string& text);
/// When `j` is an error message: its text.
std::optional<std::string> error_text(const nlohmann::json& j);

}  // namespace rh::stream

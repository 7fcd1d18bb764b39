// Out-of-band handshake between `rocehealth probe`/query_peer and `rocehealth responder`, over
// TCP (pure encode/decode; no sockets). Every message is a fixed 320-byte frame, big-endian:
//
//   off size field            off size field
//     0  4  magic "RHOB"        72  8  max_msg_size (request) / msg size (phase)
//     4  2  version (4)         80  4  queue_depth
//     6  2  type                84  4  rd_atomic (max outstanding RDMA READs)
//     8  4  length (= 320)      88  4  count (phase: messages incl. warm-up)
//    12  4  ops (bits, below)   92  4  seq_base (phase: seq of the first message)
//    16  4  qpn (24 bit)        96  4  timeout_ms (per-wait deadline)
//    20  4  psn (24 bit)       100  4  recv_depth (probe_reply of a SEND session, else 0)
//    24 16  gid (raw)          104  8  checksum_errors (phase_done)
//    40  4  gid_index          112 32  device     (NUL-terminated, printable ASCII)
//    44  4  port               144 64  hostname   (ditto)
//    48  4  active_mtu bytes   208 16  gid_type   (ditto)
//    52  4  rkey               224 96  text       (ditto; error text)
//    56  8  addr
//    64  8  buf_len
//
// A session: C->S query, S->C query_reply, close. Or: C->S probe_request, S->C probe_reply (or
// error); then per phase C->S phase, S->C phase_ready, (C measures; S answers WRITE pings),
// S->C phase_done; finally C->S bye. Everything received is validated by decode().
//
// ops bits: 1 RDMA WRITE, 2 RDMA READ, 4 SEND/RECV. A session with SEND makes the responder post
// receive WQEs before it replies (how many it keeps posted is recv_depth in its probe_reply; 0 =
// none, so every SEND meets receiver-not-ready) and grants no remote access for SEND alone.
// Version history: 1 = WRITE/READ, offset 100 reserved; 2 = adds SEND and recv_depth; 3 = adds
// json frames (below; fixed frames stayed 2); 4 = message slots carry xxh3 checksums in a 16-byte
// trailer (probes/wire/slot.h layout 2) instead of FNV-1a in 8 bytes, fixed and json frames both 4;
// json 5 = control commands need the fabric-key handshake first (probes/auth/handshake.h);
// json 6 = the handshake binds the address the client dialled, and every frame after it (json or
// fixed) carries a 32-byte MAC trailer with a sequence number (probes/wire/frame_mac.h).
// Since a peer of another version would misread every slot, a frame of another version is
// refused by tcp::recv_any with "peer HOST:PORT: ... peer speaks protocol version N, this build
// speaks 4 ...".
//
// Json frames (version 6, type 10): the 12-byte header (magic, version 6, type json, length =
// 12 + N, 2 <= N <= kMaxJsonBytes) followed by N bytes of UTF-8 JSON, an object whose "cmd" is a
// string: the control channel of `rocehealth incast` (probes/responder/control_dispatch.h lists the
// commands).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "probes/wire/probe_limits.h"

namespace rh::oob {

inline constexpr std::uint32_t kMagic = 0x52484F42;     // "RHOB"
inline constexpr std::uint16_t kVersion = 4;            ///< version in the header of fixed frames
inline constexpr std::uint16_t kJsonVersion = 6;        ///< version in the header of json frames
inline constexpr std::size_t kMaxJsonBytes = 1u << 20;  ///< largest json body (1 MiB)
inline constexpr std::size_t kHeaderSize = 12;
inline constexpr std::size_t kMessageSize = 320;
inline constexpr std::uint16_t kDefaultPort = 18520;

inline constexpr std::uint64_t kMaxBufferBytes = 64ull << 20;  ///< largest exposed buffer
inline constexpr std::uint32_t kMaxTimeoutMs = 3'600'000;
/// Receive WQEs a responder keeps posted per SEND session (`responder --recv-depth`): default and
/// limit. A ping-pong needs 1 (see probes/latency/send_latency.h); 64 is headroom.
inline constexpr std::uint32_t kDefaultRecvDepth = 64;
inline constexpr std::uint32_t kMaxRecvDepth = 1024;

enum class Type : std::uint16_t {
    query = 1,
    query_reply = 2,
    probe_request = 3,
    probe_reply = 4,
    phase = 5,
    phase_ready = 6,
    phase_done = 7,
    bye = 8,
    error = 9,
    json = 10,  ///< variable length: header + JSON object
};
const char* to_string(Type t);

inline constexpr std::uint32_t kOpWrite = 1;
inline constexpr std::uint32_t kOpRead = 2;
inline constexpr std::uint32_t kOpSend = 4;
inline constexpr std::uint32_t kAllOps = kOpWrite | kOpRead | kOpSend;

struct Message {
    Type type = Type::error;
    std::uint32_t ops = 0;
    std::uint32_t qpn = 0;
    std::uint32_t psn = 0;
    std::array<std::uint8_t, 16> gid{};
    std::uint32_t gid_index = 0;
    std::uint32_t port = 0;
    std::uint32_t active_mtu = 0;  ///< bytes (256..4096), 0 = unknown
    std::uint32_t rkey = 0;
    std::uint64_t addr = 0;
    std::uint64_t buf_len = 0;
    std::uint64_t max_msg_size = 0;
    std::uint32_t queue_depth = 0;
    std::uint32_t rd_atomic = 0;
    std::uint32_t count = 0;
    std::uint32_t seq_base = 0;
    std::uint32_t timeout_ms = 0;
    std::uint32_t recv_depth = 0;  ///< probe_reply: receive WQEs kept posted for SEND (0..1024)
    std::uint64_t checksum_errors = 0;
    std::string device;    ///< <= 31 chars
    std::string hostname;  ///< <= 63 chars
    std::string gid_type;  ///< <= 15 chars
    std::string text;      ///< <= 95 chars
};

using Frame = std::array<std::byte, kMessageSize>;

/// Encodes; strings longer than their field are truncated, non-printable bytes become '?'.
Frame encode(const Message& m);

/// Validates the first kHeaderSize bytes (magic, version, length). Lets a reader reject garbage
/// before waiting for a whole frame. Fixed types: version kVersion, length kMessageSize; json:
/// version kJsonVersion, length 12 + 2 .. 12 + kMaxJsonBytes. Another version: detail "peer speaks
/// protocol version N, this build speaks V (...)" (the caller adds which peer, tcp::recv_any).
Status check_header(std::span<const std::byte> header);

/// Total frame length in bytes that a valid header announces (check_header first).
Result<std::size_t> frame_length(std::span<const std::byte> header);

/// True when a valid header is that of a json frame.
bool is_json_header(std::span<const std::byte> header);

/// Encodes a json frame: header + body.dump() (ASCII-escaped, so any string is valid UTF-8 on
/// the wire). Error (op "encode") when the body is not an object with a string "cmd" or its text
/// exceeds kMaxJsonBytes.
Result<std::vector<std::byte>> encode_json(const nlohmann::json& body);

/// Decodes a whole json frame: header, then a JSON object with a string "cmd". Errors have op
/// "decode" and say what is wrong (truncated, not JSON at byte N, not an object, no "cmd").
Result<nlohmann::json> decode_json(std::span<const std::byte> frame);

/// Decodes and validates a whole frame: header, type, 24-bit qpn/psn, active_mtu value, ops bits,
/// size limits (recv_depth <= kMaxRecvDepth), NUL-terminated printable strings. Errors have op
/// "decode".
Result<Message> decode(std::span<const std::byte> frame);

/// Semantic checks of a probe_request / probe_reply / phase beyond decode(): ops non-empty,
/// message size a valid slot size, buffer large enough for the ops, queue depth in range,
/// recv_depth only in the reply of a SEND session, a phase names exactly one negotiated op.
Status check_probe_request(const Message& m);
Status check_probe_reply(const Message& request, const Message& reply);
Status check_phase(const Message& phase, const Message& request);

/// Bytes the side that owns a buffer registers: WRITE and SEND need 2 receive slots + 2 send
/// slots, READ needs queue_depth slots, of max_msg_size each (phases share the buffer).
std::uint64_t buffer_bytes(std::uint32_t ops, std::uint64_t max_msg_size,
                           std::uint32_t queue_depth);

}  // namespace rh::oob

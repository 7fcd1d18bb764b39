// TCP sockets with deadlines (poll-based; no call blocks past its deadline). Used only for the
// out-of-band handshake and the control channel. Errors name the peer. A socket protected after
// the fabric-key handshake (Socket::protect) MACs every frame it sends and checks every frame it
// receives (probes/wire/frame_mac.h) inside send_msg, send_json and recv_any.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "core/result.h"
#include "probes/wire/frame_mac.h"
#include "probes/wire/oob_protocol.h"

namespace rh::tcp {

using Clock = std::chrono::steady_clock;
using Deadline = Clock::time_point;
inline Deadline deadline_in(int ms) {
    return Clock::now() + std::chrono::milliseconds(ms);
}

/// An owned socket descriptor.
class Socket {
  public:
    Socket() = default;
    explicit Socket(int fd) : fd_(fd) {}
    Socket(Socket&& o) noexcept
        : fd_(o.fd_),
          peer_(std::move(o.peer_)),
          auth_(std::move(o.auth_)),
          max_frame_(o.max_frame_) {
        o.fd_ = -1;
    }
    Socket& operator=(Socket&& o) noexcept;
    Socket(const Socket&) = delete;
    Socket& operator=(const Socket&) = delete;
    ~Socket();
    int fd() const { return fd_; }
    bool valid() const { return fd_ >= 0; }
    /// "peer HOST:PORT", remembered at connect/accept so errors name the peer even after it
    /// closed (getpeername fails then).
    const std::string& peer() const { return peer_; }
    void set_peer(std::string p) { peer_ = std::move(p); }
    /// From now on every frame sent and received is MAC'd (the handshake calls this after
    /// auth_ok, both ends); nullptr for an unprotected socket (latency sessions, query, hello).
    void protect(std::shared_ptr<FrameAuth> a) { auth_ = std::move(a); }
    FrameAuth* frame_auth() const { return auth_.get(); }
    /// Largest frame recv_any takes on this socket, header included (0: the protocol's own,
    /// 12 + oob::kMaxJsonBytes). A responder sets 4 KiB until the peer proves the fabric key.
    std::size_t max_frame() const { return max_frame_; }
    void set_max_frame(std::size_t bytes) { max_frame_ = bytes; }

  private:
    int fd_ = -1;
    std::string peer_;
    std::shared_ptr<FrameAuth> auth_;  ///< shared_ptr: the counters change under a const Socket&
    std::size_t max_frame_ = 0;
};

struct HostPort {
    std::string host;
    std::uint16_t port = oob::kDefaultPort;
    std::string str() const;  ///< "host:port" ("[v6]:port")
};
/// "host", "host:port", "[v6]" or "[v6]:port".
Result<HostPort> parse_host_port(const std::string& s, std::uint16_t default_port);

/// Error op "cannot reach", subject "responder at HOST:PORT" — e.g.
/// "cannot reach responder at 10.0.0.2:18520: Connection refused".
Result<Socket> connect(const HostPort& peer, Deadline deadline);

/// The address a connected socket goes to (getpeername) or arrives at (getsockname), as
/// "IP:PORT" or "[IPv6]:PORT" in canonical form, an IPv4-mapped IPv6 address as plain IPv4 (a
/// dual-stack listener sees IPv4 clients so) and without an IPv6 scope (interface numbers differ
/// between hosts). Error (op "address") for a socket that is not IP or not connected.
Result<std::string> peer_address(const Socket& s);
Result<std::string> local_address(const Socket& s);
/// The same form for an "IP:PORT" / "[IPv6]:PORT" text from a peer (a literal address, no
/// name; at most 64 characters). Error (op "parse") saying what is wrong.
Result<std::string> canonical_address(const std::string& text);

/// Listening socket on addr ("" or "0.0.0.0" = any IPv4, "::" = any IPv6).
Result<Socket> listen(const std::string& addr, std::uint16_t port);
/// Waits up to `wait_ms` for a connection; nullopt when none arrived.
Result<std::optional<Socket>> accept(const Socket& listener, int wait_ms, std::string& peer_name);

/// Non-blocking: true when the peer closed the connection (EOF or reset pending, not a message
/// waiting to be read).
bool peer_closed(int fd);

/// True when data (or EOF) is ready within wait_ms.
Result<bool> wait_readable(const Socket& s, int wait_ms);

Status send_all(const Socket& s, std::span<const std::byte> data, Deadline deadline);
/// Reads exactly data.size() bytes. A peer that closes early gives detail
/// "peer closed the connection after N of M bytes", and cause kCauseClosedBeforeFirstByte when
/// N is 0.
Status recv_all(const Socket& s, std::span<std::byte> data, Deadline deadline);

/// Error::cause of recv_all, and of recv_any/recv_msg, when the peer closed the connection
/// before the first byte: between messages, the end of a connection rather than a frame cut
/// short (a frame whose header arrived and whose body did not has no such cause).
inline constexpr const char* kCauseClosedBeforeFirstByte = "closed_before_first_byte";

/// True when `e` is a clean close between messages (kCauseClosedBeforeFirstByte).
inline bool closed_between_messages(const Error& e) {
    return e.cause == kCauseClosedBeforeFirstByte;
}

/// One validated protocol message (header checked before waiting for the rest). recv_msg
/// refuses a json frame ("unexpected json frame"). On a protected socket each frame carries its
/// MAC trailer (see recv_any).
Status send_msg(const Socket& s, const oob::Message& m, Deadline deadline);
Result<oob::Message> recv_msg(const Socket& s, Deadline deadline);

/// One json frame (oob::encode_json).
Status send_json(const Socket& s, const nlohmann::json& body, Deadline deadline);

/// A validated frame of either kind: `json` is set for a json frame, `fixed` otherwise.
/// `deadline` bounds the wait for a frame to begin (ETIMEDOUT, nothing consumed: safe to call
/// again); a frame that has begun gets at least 10 s more to finish, and one cut short is an
/// EPROTO error after which the connection is unusable. A header announcing more than
/// s.max_frame() bytes is an EMSGSIZE error before any of the body is read. On a protected socket
/// the frame's MAC trailer is read and checked before the frame is decoded; a frame that fails it
/// ("recv frame N from PEER: MAC does not verify: injected, replayed or altered ...") or has none
/// ("... no MAC trailer ...") is an error and the connection is shut down.
struct Received {
    std::optional<oob::Message> fixed;
    std::optional<nlohmann::json> json;
};
Result<Received> recv_any(const Socket& s, Deadline deadline);
/// The same, giving up (EINTR, "shutting down") once `stop` becomes true; looks every 200 ms.
Result<Received> recv_any(const Socket& s, Deadline deadline, const std::atomic<bool>& stop);
/// A whole frame already read (header checked) decoded as recv_any does; errors op "decode".
Result<Received> decode_frame(std::span<const std::byte> frame);

}  // namespace rh::tcp

// Per-frame protection of a control connection after the fabric-key handshake
// (probes/auth/handshake.h derives the keys; tcp::Socket carries this state, so send_json,
// send_msg and recv_any protect every frame without their callers knowing).
//
// On the wire each frame (json or fixed, exactly as oob_protocol.h lays it out) is followed by a
// 32-byte trailer: HMAC-SHA256(direction key, seq as 8 bytes big-endian | frame bytes). Each
// direction has its own key and its own sequence number, 0 for the first frame after auth_ok and
// one more for each frame after it; neither is sent, both ends count. So a frame injected,
// replayed (an old frame and its trailer sent again), reordered, dropped (the next one arrives
// with the wrong number) or altered fails its MAC, and the connection is closed. Frames are
// authenticated, not encrypted: an on-path host can still read them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "core/result.h"

struct evp_mac_ctx_st;  // OpenSSL's EVP_MAC_CTX

namespace rh::tcp {

inline constexpr std::size_t kFrameMacBytes = 32;  ///< the trailer after every protected frame
using FrameKey = std::array<std::uint8_t, 32>;
using FrameTrailer = std::array<std::byte, kFrameMacBytes>;

/// The trailer of frame number `seq` under `key` (HMAC-SHA256 via OpenSSL EVP_MAC).
FrameTrailer frame_mac(const FrameKey& key, std::uint64_t seq, std::span<const std::byte> frame);

/// One connection's two directions. One thread may send while another receives (each counter
/// belongs to one direction); two concurrent senders would interleave frames anyway. A copy
/// continues from the same counters (tests use one to forge what the original would send next).
class FrameAuth {
  public:
    FrameAuth(const FrameKey& send_key, const FrameKey& recv_key);

    /// The trailer for the next frame this side sends; counts it.
    FrameTrailer seal(std::span<const std::byte> frame);

    /// Checks the trailer of the next frame received and counts it when it verifies. Error:
    /// "recv frame N from PEER: MAC does not verify: injected, replayed or altered (...)", N the
    /// sequence number the frame should have had, PEER `peer` ("peer HOST:PORT"); after one
    /// failure every later frame fails too ("connection refused after frame N failed its MAC":
    /// the stream can no longer be trusted). Compared in constant time (CRYPTO_memcmp).
    Status open(std::span<const std::byte> frame, std::span<const std::byte> trailer,
                const std::string& peer);

    std::uint64_t sent() const { return send_seq_; }      ///< frames sealed so far
    std::uint64_t received() const { return recv_seq_; }  ///< frames verified so far
    bool broken() const { return failed_at_ != kNone; }   ///< a frame failed its MAC

  private:
    static constexpr std::uint64_t kNone = ~std::uint64_t{0};
    /// HMAC contexts keyed once and copied for each frame (keying is half the cost of a small
    /// frame's MAC); never changed after construction, so copies of this object share them.
    std::shared_ptr<const evp_mac_ctx_st> send_, recv_;
    std::uint64_t send_seq_ = 0, recv_seq_ = 0;
    std::uint64_t failed_at_ = kNone;
};

}  // namespace rh::tcp

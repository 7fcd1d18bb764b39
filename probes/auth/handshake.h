// Mutual challenge-response on a responder's control port: before any control command
// (probes/responder/control_dispatch.h) the client and the responder each prove the fabric key
// (probes/auth/fabric_key.h) without sending it. Three json frames (probes/wire/oob_protocol.h):
//
//   C->S {"cmd":"auth", "nonce": Nc}                       Nc, Ns: 32 random bytes, 64 hex digits
//   S->C {"cmd":"auth_challenge", "nonce": Ns, "proof": HMAC(K, T("responder"))}
//   C->S {"cmd":"auth_proof", "proof": HMAC(K, T("client"))}
//   S->C {"cmd":"auth_ok"}   or   {"cmd":"error", "error": "peer did not prove the fabric key"}
//
// T(role) = "rocehealth fabric auth" 0x00 | json protocol version (2 bytes, big-endian) | role |
// 0x00 | Nc | Ns; HMAC-SHA256. Both nonces make every transcript new (a recorded session replayed
// later meets another Ns and fails); the role keeps one side's proof from serving as the other's
// (no reflection); the version keeps a proof from meaning anything to another protocol. MACs are
// compared in constant time. The handshake authenticates the connection's ends; it does not
// encrypt or MAC the frames after it (the control channel carries no secrets, and a TCP hijack
// needs an on-path attacker, which the fabric's own network prevents).
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "probes/auth/fabric_key.h"
#include "probes/wire/tcp.h"

namespace rh::auth {

using Nonce = std::array<std::uint8_t, 32>;

/// What a responder says when the client does not hold its key, or it has none; the same words
/// whatever failed (a wrong proof, a truncated one, garbage), so a failure reveals nothing.
inline constexpr const char* kNotProven = "peer did not prove the fabric key";
inline constexpr const char* kNoKeyHere =
    "this responder has no key configured: control commands are off";

/// What an address that failed FailureLimiter::kMaxFailures proofs within a minute is told.
inline constexpr const char* kTooManyFailures =
    "too many failed fabric-key proofs from this address: control connections refused for 60 s";

/// The MAC of one side: HMAC(K, T(role)) as above; role "client" or "responder".
Mac proof_of(const FabricKey& key, const std::string& role, const Nonce& client_nonce,
             const Nonce& server_nonce);

/// Messages, built and read (errors: op "auth", detail naming the field).
nlohmann::json auth_request(const Nonce& client_nonce);
nlohmann::json auth_challenge(const Nonce& server_nonce, const Mac& responder_proof);
nlohmann::json auth_proof(const Mac& client_proof);
Result<Nonce> parse_auth_request(const nlohmann::json& j);
struct Challenge {
    Nonce server_nonce{};
    Mac proof{};
};
Result<Challenge> parse_auth_challenge(const nlohmann::json& j);
Result<Mac> parse_auth_proof(const nlohmann::json& j);

/// Client side, on a connected socket before its first command. Errors (op "auth", subject the
/// responder): "responder did not prove the fabric key" (it holds another key, or is not ours),
/// the responder's own refusal (kNotProven, kNoKeyHere), or the transport's error.
Status prove_to_responder(const tcp::Socket& s, const FabricKey& key, tcp::Deadline deadline);

/// Responder side: `first` is the client's {"cmd":"auth"}; `key` nullptr when none is
/// configured. Sends the challenge, checks the proof, answers auth_ok or an error frame. The
/// Error's detail is what was sent (kNotProven, kNoKeyHere) or the transport's error.
Status verify_client(const tcp::Socket& s, const nlohmann::json& first, const FabricKey* key,
                     tcp::Deadline deadline);

/// tcp::connect to a responder's control port, then prove_to_responder with the process key
/// (process_key()) when there is one. Every control client connects through here.
Result<tcp::Socket> connect_control(const tcp::HostPort& peer, tcp::Deadline deadline);

}  // namespace rh::auth

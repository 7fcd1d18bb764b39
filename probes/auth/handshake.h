// Mutual challenge-response on a responder's control port: before any control command
// (probes/responder/control_dispatch.h) the client and the responder each prove the fabric key
// (probes/auth/fabric_key.h) without sending it. Three json frames (probes/wire/oob_protocol.h):
//
//   C->S {"cmd":"auth", "nonce": Nc, "to": A}              Nc, Ns: 32 random bytes, 64 hex digits
//   S->C {"cmd":"auth_challenge", "nonce": Ns, "proof": HMAC(K, T("responder"))}
//   C->S {"cmd":"auth_proof", "proof": HMAC(K, T("client"))}
//   S->C {"cmd":"auth_ok"}   or   {"cmd":"error", "error": "peer did not prove the fabric key"}
//
// A, the responder the client meant to reach: the address its socket is connected to
// (getpeername after connect, so a DNS name counts as what it resolved to), "IP:PORT" or
// "[IPv6]:PORT" (tcp::peer_address). The responder compares it with the address the connection
// arrived at (getsockname) and refuses another one by name (kRelayed) before proving anything.
// T(role) = "rocehealth fabric auth" 0x00 | json protocol version (2 bytes, big-endian) | role |
// 0x00 | A | 0x00 | Nc | Ns; HMAC-SHA256. Both nonces make every transcript new (a recorded
// session replayed later meets another Ns and fails); the role keeps one side's proof from
// serving as the other's (no reflection); A keeps a relay from passing one responder's proof off
// as another's (a host the client dials and that forwards to responder R: R sees A is not its
// address, and a forged A makes R prove for the wrong address, which the client refuses); the
// version keeps a proof from meaning anything to another protocol. MACs are compared in
// constant time.
//
// After auth_ok both ends derive per-connection keys (session_keys: HKDF-SHA256 of K, salt
// Nc | Ns, info naming the version, A and the direction) and protect the socket: every later
// frame, either way and of either kind, carries a MAC with a sequence number
// (probes/wire/frame_mac.h), so a frame injected, replayed, reordered, dropped or altered on the
// path is refused by name and ends the connection. Frames are not encrypted. Limits: a NAT or
// port forward between client and responder changes A and breaks the handshake (connect to the
// responder's own address).
//
// Key shares and host keys (optional fields; without them the frames and keys are as above):
//   C->S {"cmd":"auth", ..., "kx": Xc}                    Xc, Xs: ephemeral X25519 public keys
//   S->C {"cmd":"auth_challenge", ..., "kx": Xs, "host_sig": SIG}
// A client sends Xc; a responder that got Xc answers Xs, and when it has a host key
// (probes/auth/host_key.h) SIG = Ed25519(host key, H), H = "rocehealth host key" 0x00 | version |
// A | 0x00 | Nc | Ns | Xc | Xs. With both shares the frame keys derive from K | X25519(Xc, Xs)
// instead of K alone: a host on the path that holds the fabric key but only watches cannot
// compute them. A client whose known_hosts (probes/auth/known_hosts.h) names the responder
// requires SIG and checks it with that key before proving anything itself: another key holder
// posing as the responder, or relaying and re-handshaking both sides, cannot sign H (it names the
// client's nonce, its share and the address it dialled), so it is refused by name. Without host
// keys, with one fabric key shared by every host, any key holder can still pose as any responder
// (and, actively on the path, read and inject frames); a responder without a host key, or older
// than the fields, sends no SIG and a client that requires one refuses it. Old peers ignore the
// fields (json protocol version unchanged): an old client sends no Xc and gets the handshake
// above, an old responder sends no Xs.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "probes/auth/fabric_key.h"
#include "probes/auth/host_key.h"
#include "probes/wire/tcp.h"

namespace rh::auth {

using Nonce = std::array<std::uint8_t, 32>;

/// What a responder says when the client does not hold its key, or it has none; the same words
/// whatever failed (a wrong proof, a truncated one, garbage), so a failure reveals nothing.
inline constexpr const char* kNotProven = "peer did not prove the fabric key";
inline constexpr const char* kNoKeyHere =
    "this responder has no key configured: control commands are off";

/// What a responder says when the client dialled another address (relay, NAT, port forward);
/// the full text adds both addresses: "the client dialled A, this responder is B: ...".
inline constexpr const char* kRelayed = "a relayed handshake?";

/// What a responder logs when the client closes after the responder's proof without sending its
/// own: the client found that proof wrong, so the two hold different keys (a rotation half done,
/// or a wrong key file). Not a guess at the key, so not counted against the address.
inline constexpr const char* kClientHoldsAnotherKey =
    "the client closed the connection after this responder's proof: the two hold different "
    "fabric keys (compare the fingerprints that keygen and each responder print at start)";

/// What an address that failed FailureLimiter::kMaxFailures proofs within a minute is told.
inline constexpr const char* kTooManyFailures =
    "too many failed fabric-key proofs from this address: control connections refused for 60 s";

/// What a client says of a responder that did not sign with the key its known_hosts gives:
/// "responder NAME did not prove its host key: ...".
inline constexpr const char* kNoHostProof = "did not prove its host key";
/// What a client with a known_hosts file says, before proving anything, of a responder the file
/// does not name (fail closed): "no known host key for NAME in FILE ...".
inline constexpr const char* kNoKnownHost = "no known host key for";

/// The MAC of one side: HMAC(K, T(role)) as above; role "client" or "responder", `to` the
/// responder's address A as tcp::peer_address writes it.
Mac proof_of(const FabricKey& key, const std::string& role, const std::string& to,
             const Nonce& client_nonce, const Nonce& server_nonce);

/// The two directions' frame keys of one connection: HKDF-SHA256 (OpenSSL EVP_KDF) of K with
/// salt Nc | Ns and info "rocehealth frame key" 0x00 | version | A | 0x00 | direction.
struct SessionKeys {
    tcp::FrameKey client_to_responder{};
    tcp::FrameKey responder_to_client{};
};
/// With both key shares, `dh` is their X25519 secret and the key material is K | dh; empty: K.
SessionKeys session_keys(const FabricKey& key, const std::string& to, const Nonce& client_nonce,
                         const Nonce& server_nonce, std::span<const std::uint8_t> dh = {});

/// H, what a responder's host key signs (see above).
std::vector<std::uint8_t> host_transcript(const std::string& to, const Nonce& client_nonce,
                                          const Nonce& server_nonce, const PublicKey& client_share,
                                          const PublicKey& server_share);

/// Messages, built and read (errors: op "auth", detail naming the field).
/// `share`, `sig`: the optional fields, left out when nullptr.
nlohmann::json auth_request(const Nonce& client_nonce, const std::string& to,
                            const PublicKey* share = nullptr);
nlohmann::json auth_challenge(const Nonce& server_nonce, const Mac& responder_proof,
                              const PublicKey* share = nullptr, const Signature* sig = nullptr);
nlohmann::json auth_proof(const Mac& client_proof);
struct AuthRequest {
    Nonce nonce{};
    std::string to;  ///< canonical (tcp::canonical_address)
    std::optional<PublicKey> share;
};
Result<AuthRequest> parse_auth_request(const nlohmann::json& j);
struct Challenge {
    Nonce server_nonce{};
    Mac proof{};
    std::optional<PublicKey> share;
    std::optional<Signature> host_sig;  ///< only with a share
};
Result<Challenge> parse_auth_challenge(const nlohmann::json& j);
Result<Mac> parse_auth_proof(const nlohmann::json& j);

/// The host key a client requires of the responder it dials: `name` as dialled (for messages),
/// `source` where the key came from ("FILE:LINE").
struct ExpectedHost {
    std::string name;
    PublicKey key{};
    std::string source;
};

/// Client side, on a connected socket before its first command; on success `s` is protected
/// (every later frame MAC'd). With `expect`, the responder must sign H with that key before the
/// client proves anything. Errors (op "auth", subject the responder): "responder did not prove
/// the fabric key" (it holds another key, is not ours, or a relay rewrote the address), "responder
/// NAME did not prove its host key: ..." (kNoHostProof: no signature, or one that does not verify
/// with `expect`'s key), the responder's own refusal (kNotProven, kNoKeyHere, the kRelayed text),
/// or the transport's error.
Status prove_to_responder(tcp::Socket& s, const FabricKey& key, tcp::Deadline deadline,
                          const ExpectedHost* expect = nullptr);

/// Responder side: `first` is the client's {"cmd":"auth"}; `key` nullptr when none is
/// configured; `host_key` (may be nullptr) signs H when the client sent a share. Checks the
/// client's address A against the socket's local address, sends the challenge, checks the proof,
/// answers auth_ok or an error frame; on success `s` is protected. The Error's detail is what was
/// sent (kNotProven, kNoKeyHere, "the client dialled A, this responder is B: a relayed handshake?
/// ..."), kClientHoldsAnotherKey, or the transport's error. err_no is EACCES only when the client
/// sent a proof that does not verify: the one failure that is a guess at the key, which the caller
/// counts against the address (FailureLimiter); a key mismatch found by the client, a relay or NAT,
/// and garbage are not.
Status verify_client(tcp::Socket& s, const nlohmann::json& first, const FabricKey* key,
                     tcp::Deadline deadline, const HostKey* host_key = nullptr);

/// tcp::connect to a responder's control port, then prove_to_responder with the process key
/// (process_key()) when there is one. Every control client connects through here, so every
/// keyed control connection is protected frame by frame. With process_known_hosts() set, the
/// responder's entry (by the name dialled, else by the address it resolved to) is required:
/// none is an error "no known host key for NAME in FILE" (kNoKnownHost) without a handshake, and
/// a known_hosts file without a fabric key is an error too (host keys add to the fabric key).
Result<tcp::Socket> connect_control(const tcp::HostPort& peer, tcp::Deadline deadline);

}  // namespace rh::auth

// HKDF-SHA256 (RFC 5869): the one key derivation of the fabric key's uses, the per-connection
// frame keys (handshake.h, session_keys) and the key's fingerprint (fabric_key.h), through
// OpenSSL's EVP_KDF (a well-kept library: no derivation of our own).
#pragma once

#include <cstdint>
#include <span>

namespace rh::auth {

/// Fills `out` (1 to 8160 bytes) with HKDF-SHA256 of `ikm` with `salt` (empty: RFC 5869's
/// hash-length zeros) and `info`. False when libcrypto cannot derive (no HKDF in its provider, or
/// `out` too long); `out` is then unspecified and must not be used.
bool hkdf_sha256(std::span<const std::uint8_t> ikm, std::span<const std::uint8_t> salt,
                 std::span<const std::uint8_t> info, std::span<std::uint8_t> out);

}  // namespace rh::auth

// A responder's own identity (optional, issue 27): an Ed25519 key pair per host. With one fabric
// key shared by every host, any holder of it can pose as any responder; a host key closes that.
// The responder signs each handshake with its private key (probes/auth/handshake.h), and a client
// that has the responder's public key in its known_hosts file (probes/auth/known_hosts.h)
// requires that signature. The private key is a PEM PKCS#8 file (what `rocehealth keygen
// --host-key FILE` and `openssl genpkey -algorithm ed25519` write), read as the fabric key is
// (probes/auth/secret_file.h: no symlinks, owner, mode 0600). A public key is written as the
// 44 characters of base64 of its 32 raw bytes, its fingerprint as "SHA256:" and the unpadded
// base64 of SHA-256 of those bytes (the form ssh-keygen -l prints).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <openssl/types.h>

#include "core/result.h"

namespace rh::auth {

/// A raw 32-byte public key (Ed25519 or X25519).
using PublicKey = std::array<std::uint8_t, 32>;
/// An Ed25519 signature (64 bytes).
using Signature = std::array<std::uint8_t, 64>;

/// Where `responder --host-key-file` and the agent's responder.host_key_file point by default in
/// the docs; nothing reads it unless configured (host keys are an option).
inline constexpr const char* kExampleHostKeyFile = "/etc/rocehealth/host.key";

/// An Ed25519 private key (OpenSSL EVP_PKEY; freed, and so wiped, with the last copy).
class HostKey {
  public:
    /// A new random key (OpenSSL's CSPRNG).
    static HostKey generate();
    /// Reads `path` (read_secret_file, at most 16 KiB). Errors (op "host key", subject the path):
    /// the file checks; "its folder DIR is writable by group or others ...: chmod go-w DIR" for
    /// any folder on the way without the sticky bit; "is not a PEM private key (rocehealth keygen
    /// --host-key writes one)" (text before the key too); "holds more than one PEM private key";
    /// "holds text after its PEM private key" (blank lines may follow); "is a KIND key, not
    /// Ed25519".
    static Result<HostKey> load(const std::string& path);

    PublicKey public_key() const;
    /// The Ed25519 signature of `message`.
    Signature sign(std::span<const std::uint8_t> message) const;
    /// PEM PKCS#8 text of the private key (secret: for writing the file only).
    std::string private_pem() const;
    const std::string& path() const { return path_; }

  private:
    std::shared_ptr<EVP_PKEY> pkey_;
    std::string path_;
};

/// True when `sig` is `key`'s Ed25519 signature of `message`.
bool verify_signature(const PublicKey& key, std::span<const std::uint8_t> message,
                      const Signature& sig);

/// Base64 of the 32 bytes (44 characters, one '=').
std::string public_key_text(const PublicKey& key);
/// The inverse, strict: exactly 44 base64 characters that encode 32 bytes canonically; nullopt
/// otherwise.
std::optional<PublicKey> parse_public_key_text(std::string_view text);
/// "SHA256:" + unpadded base64 of SHA-256(key).
std::string host_key_fingerprint(const PublicKey& key);

/// Writes a new host key to `path` (write_new_secret_file: 0600, new folders 0700, no symlink,
/// never over an existing file) and returns it.
Result<HostKey> write_new_host_key_file(const std::string& path);

/// This process's host key, which its responder signs handshakes with; nullptr when none is
/// configured (set at startup and on SIGHUP, like process_key()).
std::shared_ptr<const HostKey> process_host_key();
void set_process_host_key(std::shared_ptr<const HostKey> key);

}  // namespace rh::auth

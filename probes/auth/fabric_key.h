// The fabric key: a secret shared by the hosts of one fabric, which proves to a responder that a
// control connection comes from one of them (probes/auth/handshake.h). One file per host, owned
// by the user that runs rocehealth (or root), mode 0600, reached without symlinks
// (probes/auth/secret_file.h), 32..4096 random bytes used as they are (`rocehealth keygen`
// writes 32; `head -c 32 /dev/urandom` does too). Text (a passphrase, hex, base64) and keys of
// few distinct bytes are refused: a guessable key can be found offline from one handshake.
// Its fingerprint (key_fingerprint) tells hosts that hold the same key without showing it.
// Distribute it as any host secret (configuration management, scp as root); rotating it means
// replacing the file everywhere and sending SIGHUP.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/result.h"

namespace rh::auth {

/// Where every command looks when no --key-file (or `responder.key_file`) is given.
inline constexpr const char* kDefaultKeyFile = "/etc/rocehealth/fabric.key";
inline constexpr std::size_t kMinKeyBytes = 32;
inline constexpr std::size_t kMaxKeyBytes = 4096;

/// HMAC-SHA256 output (32 bytes).
using Mac = std::array<std::uint8_t, 32>;

/// Key bytes that are wiped (OPENSSL_cleanse) when destroyed: a vector of bytes in every other
/// way (built from one implicitly, so `FabricKey{random_bytes(32), "x"}` still reads).
class KeyBytes : public std::vector<std::uint8_t> {
  public:
    KeyBytes() = default;
    KeyBytes(std::vector<std::uint8_t> v) : std::vector<std::uint8_t>(std::move(v)) {}  // NOLINT
    KeyBytes(const KeyBytes&) = default;
    KeyBytes(KeyBytes&&) = default;
    KeyBytes& operator=(const KeyBytes&) = default;
    KeyBytes& operator=(KeyBytes&&) = default;
    ~KeyBytes();
};

/// The key's bytes and the file they came from (for log lines); never printed (its
/// key_fingerprint is). The bytes are wiped when the key is destroyed.
struct FabricKey {
    KeyBytes bytes;
    std::string path;
};

/// Reads a key file (read_secret_file: no symlinks, owner, mode). Errors (op "fabric key",
/// subject the path) name the fault and what to run: cannot be opened (errno), a symlink in the
/// path, not a regular file, owned by another user ("chown UID PATH"), "is readable or writable
/// by group or others (mode 0644): chmod 600 PATH", "is empty", "holds N bytes, fewer than 32",
/// "holds more than 4096 bytes", "is text ..." or "has only N distinct byte values ..." (not
/// random bytes: run rocehealth keygen).
Result<FabricKey> load_fabric_key(const std::string& path);

/// Why `bytes` cannot be a random key, or "" when they can: all printable text (32 random bytes
/// are all printable with probability 3e-14), or fewer than 16 distinct byte values (32 random
/// bytes have ~30). A heuristic: it refuses passphrases and patterns, it cannot prove
/// randomness.
std::string weak_key_reason(std::span<const std::uint8_t> bytes);

/// 16 hex digits naming the key: the first 8 bytes of HKDF-SHA256(key, info "rocehealth fabric
/// key fingerprint v1"). One-way and apart from the handshake's uses of the key; with at least
/// 128 random bits in the key (load_fabric_key refuses less) it gives nothing to guess from.
std::string key_fingerprint(std::span<const std::uint8_t> key);

/// The key for a command: `path` when given (errors as above); else kDefaultKeyFile when it
/// exists (a bad one is an error too, never silently ignored); else nullptr (no key: control
/// commands are off on a responder, and a client sends none).
Result<std::shared_ptr<const FabricKey>> key_for_command(const std::string& path);

/// Writes 32 random bytes (OpenSSL RAND_bytes) to a new file of mode 0600, creating missing
/// parent folders with mode 0700 and following no symlink. Refuses an existing file (EEXIST) so
/// a key in use is never overwritten.
Status write_new_key_file(const std::string& path);

/// HMAC-SHA256 (OpenSSL libcrypto) of `data` under `key`.
Mac hmac_sha256(std::span<const std::uint8_t> key, std::span<const std::uint8_t> data);

/// Constant-time equality of two MACs (CRYPTO_memcmp): how long it takes says nothing of where
/// they differ.
bool same_mac(const Mac& a, const Mac& b);

/// `n` bytes from OpenSSL's CSPRNG; aborts the process if it cannot be seeded (nothing secure
/// can be done then).
std::vector<std::uint8_t> random_bytes(std::size_t n);

/// The key this process's control clients prove (incast, accept, the responder's own stream
/// sender): set once at startup by the command and replaced on SIGHUP. A process speaks for one
/// host, so one key per process; nullptr when none is configured.
std::shared_ptr<const FabricKey> process_key();
void set_process_key(std::shared_ptr<const FabricKey> key);

}  // namespace rh::auth

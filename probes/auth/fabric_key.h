// The fabric key: a secret shared by the hosts of one fabric, which proves to a responder that a
// control connection comes from one of them (probes/auth/handshake.h). One file per host,
// readable by root only, 32..4096 bytes used as they are (`rocehealth keygen` writes 32 random
// bytes; `head -c 32 /dev/urandom` does too). Distribute it as any host secret (configuration
// management, scp as root); rotating it means replacing the file everywhere and sending SIGHUP.
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

/// The key's bytes and the file they came from (for log lines); never printed.
struct FabricKey {
    std::vector<std::uint8_t> bytes;
    std::string path;
};

/// Reads a key file. Errors (op "fabric key", subject the path) name the fault: cannot be
/// opened (errno), not a regular file, "is readable or writable by group or others (mode 0644):
/// chmod 600 it", "is empty", "holds N bytes, fewer than 32", "holds more than 4096 bytes".
Result<FabricKey> load_fabric_key(const std::string& path);

/// The key for a command: `path` when given (errors as above); else kDefaultKeyFile when it
/// exists (a bad one is an error too, never silently ignored); else nullptr (no key: control
/// commands are off on a responder, and a client sends none).
Result<std::shared_ptr<const FabricKey>> key_for_command(const std::string& path);

/// Writes 32 random bytes (OpenSSL RAND_bytes) to a new file of mode 0600. Refuses an existing
/// file (EEXIST) so a key in use is never overwritten.
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

#include "probes/auth/fabric_key.h"

#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "probes/auth/hkdf.h"
#include "probes/auth/secret_file.h"

namespace rh::auth {

namespace {

Error key_error(const std::string& path, int err_no, const std::string& detail) {
    return Error{"fabric key", path, err_no, detail};
}

// Read by every control connection's thread, replaced whole on SIGHUP: an atomic shared_ptr,
// so a reader holds the old value while a reload installs the new.
std::atomic<std::shared_ptr<const FabricKey>> g_key;

}  // namespace

KeyBytes::~KeyBytes() {
    if (!empty()) OPENSSL_cleanse(data(), size());
}

std::string weak_key_reason(std::span<const std::uint8_t> bytes) {
    bool text = true;
    std::array<bool, 256> seen{};
    std::size_t distinct = 0;
    for (const std::uint8_t b : bytes) {
        if (!(b >= 0x20 && b < 0x7f) && b != '\n' && b != '\r' && b != '\t') text = false;
        if (!seen[b]) {
            seen[b] = true;
            ++distinct;
        }
    }
    const char* fix =
        ": a key must be random bytes; run rocehealth keygen --out FILE (or head -c 32 "
        "/dev/urandom > FILE) and copy that file to every host";
    if (text)
        return std::string(
                   "is text (a passphrase, or hex or base64), not random bytes: a "
                   "guessable key can be found offline from one handshake") +
               fix;
    if (distinct < 16)
        return "has only " + std::to_string(distinct) +
               " distinct byte values (32 random bytes have about 30): a pattern, not a random "
               "key" +
               fix;
    return "";
}

std::string key_fingerprint(std::span<const std::uint8_t> key) {
    static constexpr char kInfo[] = "rocehealth fabric key fingerprint v1";
    std::array<std::uint8_t, 8> out{};
    const auto* info = reinterpret_cast<const std::uint8_t*>(kInfo);
    if (!hkdf_sha256(key, {}, {info, sizeof kInfo - 1}, out)) return "unavailable";
    static constexpr char kHex[] = "0123456789abcdef";
    std::string hex;
    for (const std::uint8_t b : out) {
        hex += kHex[b >> 4];
        hex += kHex[b & 15];
    }
    return hex;
}

Result<FabricKey> load_fabric_key(const std::string& path) {
    auto file = read_secret_file("fabric key", path, kMaxKeyBytes);
    if (!file) return file.error();
    FabricKey k;
    k.path = path;
    k.bytes = file->release();
    const std::size_t got = k.bytes.size();
    if (got == 0) return key_error(path, 0, "is empty");
    if (got < kMinKeyBytes)
        return key_error(path, 0,
                         "holds " + std::to_string(got) + " bytes, fewer than " +
                             std::to_string(kMinKeyBytes) +
                             " (rocehealth keygen, or head -c 32 /dev/urandom)");
    if (got > kMaxKeyBytes)
        return key_error(path, 0, "holds more than " + std::to_string(kMaxKeyBytes) + " bytes");
    if (const std::string weak = weak_key_reason(k.bytes); !weak.empty())
        return key_error(path, 0, weak);
    return k;
}

Result<std::shared_ptr<const FabricKey>> key_for_command(const std::string& path) {
    std::string p = path;
    if (p.empty()) {
        struct stat st {};
        // Absent: no key. Anything else there is read, so a bad file is never ignored.
        if (::lstat(kDefaultKeyFile, &st) != 0) return std::shared_ptr<const FabricKey>{};
        p = kDefaultKeyFile;
    }
    auto k = load_fabric_key(p);
    if (!k) return k.error();
    return std::make_shared<const FabricKey>(std::move(*k));
}

Status write_new_key_file(const std::string& path) {
    auto bytes = random_bytes(kMinKeyBytes);
    Status st = write_new_secret_file("fabric key", path, bytes);
    OPENSSL_cleanse(bytes.data(), bytes.size());
    return st;
}

Mac hmac_sha256(std::span<const std::uint8_t> key, std::span<const std::uint8_t> data) {
    Mac out{};
    unsigned len = 0;
    ::HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), data.data(), data.size(),
           out.data(), &len);
    return out;
}

bool same_mac(const Mac& a, const Mac& b) {
    return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::vector<std::uint8_t> random_bytes(std::size_t n) {
    std::vector<std::uint8_t> b(n);
    if (RAND_bytes(b.data(), static_cast<int>(n)) != 1) {
        std::fputs("rocehealth: OpenSSL RAND_bytes failed: no secure randomness\n", stderr);
        std::abort();
    }
    return b;
}

std::shared_ptr<const FabricKey> process_key() {
    return g_key.load();
}

void set_process_key(std::shared_ptr<const FabricKey> key) {
    g_key.store(std::move(key));
}

}  // namespace rh::auth

#include "probes/auth/host_key.h"

#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "probes/auth/secret_file.h"

namespace rh::auth {

namespace {

constexpr std::size_t kMaxHostKeyFileBytes = 16 * 1024;
constexpr const char* kPemBlank = " \t\r\n";

/// "" unless a folder on the way to `path` can be written by group or others without the sticky
/// bit (ssh refuses such key paths too): whoever can write it can swap the key file for their
/// own. A sticky folder (/tmp, 1777) lets nobody rename or remove another user's file.
std::string open_folder(const std::string& path) {
    std::error_code ec;
    std::filesystem::path dir = std::filesystem::absolute(path, ec).parent_path();
    for (; !ec && !dir.empty(); dir = dir.parent_path()) {
        struct stat st {};
        if (::stat(dir.c_str(), &st) == 0 && (st.st_mode & (S_IWGRP | S_IWOTH)) != 0 &&
            (st.st_mode & S_ISVTX) == 0)
            return "its folder " + dir.string() +
                   " is writable by group or others (they could put their own key in its place): "
                   "chmod go-w " +
                   dir.string();
        if (dir == dir.root_path()) break;
    }
    return "";
}

// Read by every control connection's thread, replaced whole on SIGHUP: an atomic shared_ptr,
// so a reader holds the old value while a reload installs the new.
std::atomic<std::shared_ptr<const HostKey>> g_host_key;

[[noreturn]] void host_key_crypto_failed(const char* what) {
    std::fprintf(stderr, "rocehealth: OpenSSL %s failed (libcrypto without Ed25519?)\n", what);
    std::abort();
}

std::string host_key_base64(std::span<const std::uint8_t> bytes) {
    std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
    const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), bytes.data(),
                                  static_cast<int>(bytes.size()));
    out.resize(static_cast<std::size_t>(n));
    return out;
}

std::shared_ptr<EVP_PKEY> own_pkey(EVP_PKEY* p) {
    return {p, EVP_PKEY_free};
}

}  // namespace

HostKey HostKey::generate() {
    EVP_PKEY* p = EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519");
    if (!p) host_key_crypto_failed("Ed25519 key generation");
    HostKey k;
    k.pkey_ = own_pkey(p);
    return k;
}

Result<HostKey> HostKey::load(const std::string& path) {
    auto file = read_secret_file("host key", path, kMaxHostKeyFileBytes);
    if (!file) return file.error();
    const auto& b = file->bytes();
    if (b.size() > kMaxHostKeyFileBytes)
        return Error{"host key", path, 0, "holds more than 16 KiB: not a host key"};
    if (const std::string why = open_folder(path); !why.empty())
        return Error{"host key", path, 0, why};
    const std::string_view text(reinterpret_cast<const char*>(b.data()), b.size());
    const auto first = text.find_first_not_of(kPemBlank);
    BIO* bio = BIO_new_mem_buf(b.data(), static_cast<int>(b.size()));
    EVP_PKEY* p = bio && first != text.npos && text.substr(first).starts_with("-----BEGIN ")
                      ? PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr)
                      : nullptr;
    BIO_free(bio);
    // After the first key's END line only blank space may follow.
    const auto end = text.find("-----END ");
    const auto eol = end == text.npos ? text.npos : text.find('\n', end);
    const std::string_view rest = eol == text.npos ? "" : text.substr(eol + 1);
    if (!p)
        return Error{"host key", path, 0,
                     "is not a PEM private key (rocehealth keygen --host-key FILE writes one)"};
    if (rest.find_first_not_of(kPemBlank) != rest.npos) {
        EVP_PKEY_free(p);
        return Error{"host key", path, 0,
                     rest.find("-----BEGIN ") != rest.npos
                         ? "holds more than one PEM private key (which one would sign?): keep the "
                           "one key rocehealth keygen --host-key FILE wrote"
                         : "holds text after its PEM private key: keep the key alone, as "
                           "rocehealth keygen --host-key FILE writes it"};
    }
    HostKey k;
    k.pkey_ = own_pkey(p);
    k.path_ = path;
    if (EVP_PKEY_get_id(p) != EVP_PKEY_ED25519)
        return Error{"host key", path, 0,
                     std::string("is a ") + EVP_PKEY_get0_type_name(p) +
                         " key, not Ed25519 (rocehealth keygen --host-key FILE writes one)"};
    return k;
}

PublicKey HostKey::public_key() const {
    PublicKey out{};
    std::size_t len = out.size();
    if (EVP_PKEY_get_raw_public_key(pkey_.get(), out.data(), &len) != 1 || len != out.size())
        host_key_crypto_failed("Ed25519 public key");
    return out;
}

Signature HostKey::sign(std::span<const std::uint8_t> message) const {
    Signature sig{};
    std::size_t len = sig.size();
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    const bool ok = ctx && EVP_DigestSignInit(ctx, nullptr, nullptr, nullptr, pkey_.get()) == 1 &&
                    EVP_DigestSign(ctx, sig.data(), &len, message.data(), message.size()) == 1 &&
                    len == sig.size();
    EVP_MD_CTX_free(ctx);
    if (!ok) host_key_crypto_failed("Ed25519 signing");
    return sig;
}

std::string HostKey::private_pem() const {
    BIO* bio = BIO_new(BIO_s_mem());
    std::string out;
    if (bio && PEM_write_bio_PrivateKey(bio, pkey_.get(), nullptr, nullptr, 0, nullptr, nullptr)) {
        char* data = nullptr;
        const long n = BIO_get_mem_data(bio, &data);
        out.assign(data, static_cast<std::size_t>(n));
    }
    BIO_free(bio);  // a memory BIO: its buffer is cleared on free
    if (out.empty()) host_key_crypto_failed("PEM encoding");
    return out;
}

bool verify_signature(const PublicKey& key, std::span<const std::uint8_t> message,
                      const Signature& sig) {
    EVP_PKEY* p = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, key.data(), key.size());
    if (!p) return false;
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    const bool ok =
        ctx && EVP_DigestVerifyInit(ctx, nullptr, nullptr, nullptr, p) == 1 &&
        EVP_DigestVerify(ctx, sig.data(), sig.size(), message.data(), message.size()) == 1;
    EVP_MD_CTX_free(ctx);
    EVP_PKEY_free(p);
    return ok;
}

std::string public_key_text(const PublicKey& key) {
    return host_key_base64(key);
}

std::optional<PublicKey> parse_public_key_text(std::string_view text) {
    if (text.size() != 44) return std::nullopt;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        const bool b64 = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                         (c >= '0' && c <= '9') || c == '+' || c == '/';
        if (!(i == 43 ? c == '=' : b64)) return std::nullopt;
    }
    std::array<std::uint8_t, 33> raw{};  // EVP_DecodeBlock counts the padding as a 0 byte
    if (EVP_DecodeBlock(raw.data(), reinterpret_cast<const unsigned char*>(text.data()), 44) != 33)
        return std::nullopt;
    PublicKey key{};
    std::copy_n(raw.begin(), key.size(), key.begin());
    // Canonical only: the last character's unused bits must be zero, so one key has one text.
    if (public_key_text(key) != text) return std::nullopt;
    return key;
}

std::string host_key_fingerprint(const PublicKey& key) {
    std::array<std::uint8_t, 32> digest{};
    unsigned len = 0;
    if (EVP_Digest(key.data(), key.size(), digest.data(), &len, EVP_sha256(), nullptr) != 1)
        host_key_crypto_failed("SHA-256");
    std::string b = host_key_base64(digest);
    while (!b.empty() && b.back() == '=') b.pop_back();
    return "SHA256:" + b;
}

Result<HostKey> write_new_host_key_file(const std::string& path) {
    const HostKey k = HostKey::generate();
    std::string pem = k.private_pem();
    const Status st = write_new_secret_file(
        "host key", path, std::span(reinterpret_cast<const std::uint8_t*>(pem.data()), pem.size()));
    OPENSSL_cleanse(pem.data(), pem.size());
    if (!st) return st.error();
    return HostKey::load(path);  // read back as the responder will: proves the file is usable
}

std::shared_ptr<const HostKey> process_host_key() {
    return g_host_key.load();
}

void set_process_host_key(std::shared_ptr<const HostKey> key) {
    g_host_key.store(std::move(key));
}

}  // namespace rh::auth

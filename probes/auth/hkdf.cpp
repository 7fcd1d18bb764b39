#include "probes/auth/hkdf.h"

#include <openssl/core_names.h>
#include <openssl/kdf.h>
#include <openssl/params.h>

namespace rh::auth {

bool hkdf_sha256(std::span<const std::uint8_t> ikm, std::span<const std::uint8_t> salt,
                 std::span<const std::uint8_t> info, std::span<std::uint8_t> out) {
    // Fetched once: the fetch costs more than a derivation.
    static EVP_KDF* const kdf = EVP_KDF_fetch(nullptr, "HKDF", nullptr);
    EVP_KDF_CTX* ctx = kdf ? EVP_KDF_CTX_new(kdf) : nullptr;
    if (!ctx || out.empty()) {
        EVP_KDF_CTX_free(ctx);
        return false;
    }
    char digest[] = "SHA256";
    const auto octets = [](const char* name, std::span<const std::uint8_t> b) {
        return OSSL_PARAM_construct_octet_string(name, const_cast<std::uint8_t*>(b.data()),
                                                 b.size());
    };
    OSSL_PARAM params[5];
    std::size_t n = 0;
    params[n++] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest, 0);
    params[n++] = octets(OSSL_KDF_PARAM_KEY, ikm);
    // No salt parameter for an empty salt: RFC 5869 then uses hash-length zeros.
    if (!salt.empty()) params[n++] = octets(OSSL_KDF_PARAM_SALT, salt);
    params[n++] = octets(OSSL_KDF_PARAM_INFO, info);
    params[n] = OSSL_PARAM_construct_end();
    const bool ok = EVP_KDF_derive(ctx, out.data(), out.size(), params) == 1;
    EVP_KDF_CTX_free(ctx);
    return ok;
}

}  // namespace rh::auth

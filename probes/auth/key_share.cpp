#include "probes/auth/key_share.h"

#include <openssl/evp.h>

#include <cstdio>
#include <cstdlib>

namespace rh::auth {

KeyShare KeyShare::generate() {
    EVP_PKEY* p = EVP_PKEY_Q_keygen(nullptr, nullptr, "X25519");
    if (!p) {
        std::fputs("rocehealth: OpenSSL X25519 key generation failed\n", stderr);
        std::abort();
    }
    KeyShare s;
    s.pkey_ = {p, EVP_PKEY_free};
    return s;
}

PublicKey KeyShare::public_key() const {
    PublicKey out{};
    std::size_t len = out.size();
    (void)EVP_PKEY_get_raw_public_key(pkey_.get(), out.data(), &len);
    return out;
}

Result<KeyBytes> KeyShare::agree(const PublicKey& peer) const {
    EVP_PKEY* theirs =
        EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, nullptr, peer.data(), peer.size());
    EVP_PKEY_CTX* ctx = theirs ? EVP_PKEY_CTX_new(pkey_.get(), nullptr) : nullptr;
    KeyBytes secret(std::vector<std::uint8_t>(32));
    std::size_t len = secret.size();
    // OpenSSL refuses an all-zero result (a low-order point from the peer) in derive.
    const bool ok = ctx && EVP_PKEY_derive_init(ctx) == 1 &&
                    EVP_PKEY_derive_set_peer(ctx, theirs) == 1 &&
                    EVP_PKEY_derive(ctx, secret.data(), &len) == 1 && len == 32;
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(theirs);
    if (!ok) return Error{"auth", "message", 0, "key share: not a usable X25519 public key"};
    return secret;
}

}  // namespace rh::auth

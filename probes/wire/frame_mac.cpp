#include "probes/wire/frame_mac.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <cstdlib>
#include <memory>

namespace rh::tcp {

namespace {

/// OpenSSL's HMAC, fetched once (the fetch is the costly part of a one-shot MAC).
EVP_MAC* hmac() {
    static EVP_MAC* m = [] {
        EVP_MAC* f = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
        if (!f) std::abort();  // libcrypto without HMAC: nothing can be protected
        return f;
    }();
    return m;
}

struct CtxFree {
    void operator()(EVP_MAC_CTX* c) const { EVP_MAC_CTX_free(c); }
};
using Ctx = std::unique_ptr<EVP_MAC_CTX, CtxFree>;

/// An HMAC-SHA256 context keyed with `key`, ready for update.
std::shared_ptr<const EVP_MAC_CTX> keyed(const FrameKey& key) {
    Ctx ctx(EVP_MAC_CTX_new(hmac()));
    char digest[] = "SHA256";
    const OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
                                 OSSL_PARAM_END};
    if (!ctx || EVP_MAC_init(ctx.get(), key.data(), key.size(), params) != 1)
        std::abort();  // only on allocation failure inside libcrypto
    return std::shared_ptr<const EVP_MAC_CTX>(ctx.release(), CtxFree{});
}

FrameTrailer mac_with(const EVP_MAC_CTX* base, std::uint64_t seq,
                      std::span<const std::byte> frame) {
    Ctx ctx(EVP_MAC_CTX_dup(base));
    std::array<unsigned char, 8> n{};
    for (int i = 0; i < 8; ++i) n[i] = static_cast<unsigned char>(seq >> (8 * (7 - i)));
    FrameTrailer out{};
    std::size_t len = 0;
    if (!ctx || EVP_MAC_update(ctx.get(), n.data(), n.size()) != 1 ||
        EVP_MAC_update(ctx.get(), reinterpret_cast<const unsigned char*>(frame.data()),
                       frame.size()) != 1 ||
        EVP_MAC_final(ctx.get(), reinterpret_cast<unsigned char*>(out.data()), &len, out.size()) !=
            1 ||
        len != out.size())
        std::abort();  // only on allocation failure inside libcrypto
    return out;
}

}  // namespace

FrameTrailer frame_mac(const FrameKey& key, std::uint64_t seq, std::span<const std::byte> frame) {
    return mac_with(keyed(key).get(), seq, frame);
}

FrameAuth::FrameAuth(const FrameKey& send_key, const FrameKey& recv_key)
    : send_(keyed(send_key)), recv_(keyed(recv_key)) {}

FrameTrailer FrameAuth::seal(std::span<const std::byte> frame) {
    return mac_with(send_.get(), send_seq_++, frame);
}

Status FrameAuth::open(std::span<const std::byte> frame, std::span<const std::byte> trailer,
                       const std::string& peer) {
    if (failed_at_ != kNone)
        return Error{
            "recv", peer, 0,
            "connection refused after frame " + std::to_string(failed_at_) + " failed its MAC"};
    const FrameTrailer want = mac_with(recv_.get(), recv_seq_, frame);
    if (trailer.size() != want.size() ||
        CRYPTO_memcmp(trailer.data(), want.data(), want.size()) != 0) {
        failed_at_ = recv_seq_;
        return Error{"recv", "frame " + std::to_string(recv_seq_) + " from " + peer, 0,
                     "MAC does not verify: injected, replayed or altered (it did not come, in "
                     "this order, from the key holder that proved itself); connection closed"};
    }
    ++recv_seq_;
    return ok_status();
}

}  // namespace rh::tcp

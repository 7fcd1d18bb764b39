// A self-signed certificate and its key made with libcrypto (no openssl CLI), for the HTTPS
// tests (tests/agent/test_http_tls.cpp) and bench/http_tls_bench.cpp.
#pragma once

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <stdexcept>
#include <string>
#include <utility>

namespace rh::test {

/// A key and a self-signed certificate for 127.0.0.1 (CN and subjectAltName IP), valid
/// from now for a day, as PEM text.
struct SelfSigned {
    std::string cert_pem, key_pem;
};

inline std::string bio_text(BIO* b) {
    char* p = nullptr;
    const long n = BIO_get_mem_data(b, &p);
    std::string s(p, static_cast<std::size_t>(n));
    BIO_free(b);
    return s;
}

/// `rsa`: an RSA 2048 key instead of P-256.
inline SelfSigned make_self_signed(bool rsa = false) {
    EVP_PKEY* key = rsa ? EVP_RSA_gen(2048) : EVP_EC_gen("P-256");
    if (!key) throw std::runtime_error("EVP key generation failed");
    X509* x = X509_new();
    X509_set_version(x, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
    X509_gmtime_adj(X509_getm_notBefore(x), -60);
    X509_gmtime_adj(X509_getm_notAfter(x), 86400);
    X509_set_pubkey(x, key);
    X509_NAME* name = X509_get_subject_name(x);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>("127.0.0.1"), -1, -1, 0);
    X509_set_issuer_name(x, name);
    X509V3_CTX v3;
    X509V3_set_ctx_nodb(&v3);
    X509V3_set_ctx(&v3, x, x, nullptr, nullptr, 0);
    for (const auto& [nid, value] : {std::pair{NID_subject_alt_name, "IP:127.0.0.1"},
                                     std::pair{NID_basic_constraints, "critical,CA:TRUE"}}) {
        X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &v3, nid, value);
        if (!ext) throw std::runtime_error("X509V3_EXT_conf_nid failed");
        X509_add_ext(x, ext, -1);
        X509_EXTENSION_free(ext);
    }
    if (X509_sign(x, key, EVP_sha256()) <= 0) throw std::runtime_error("X509_sign failed");
    BIO* cb = BIO_new(BIO_s_mem());
    PEM_write_bio_X509(cb, x);
    BIO* kb = BIO_new(BIO_s_mem());
    PEM_write_bio_PrivateKey(kb, key, nullptr, nullptr, 0, nullptr, nullptr);
    X509_free(x);
    EVP_PKEY_free(key);
    return {bio_text(cb), bio_text(kb)};
}

/// A store holding `pem`'s certificate as the only trust anchor (SSLClient takes it over).
inline X509_STORE* trust_only(const std::string& pem) {
    BIO* b = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
    X509* x = PEM_read_bio_X509(b, nullptr, nullptr, nullptr);
    BIO_free(b);
    X509_STORE* st = X509_STORE_new();
    X509_STORE_add_cert(st, x);
    X509_free(x);
    return st;
}

}  // namespace rh::test

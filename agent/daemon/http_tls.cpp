#include "agent/daemon/http_tls.h"

#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <cerrno>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <optional>
#include <sstream>

#include "probes/auth/secret_file.h"

namespace rh::agent {

namespace {

/// The newest OpenSSL error as text ("" when none), and the queue emptied.
std::string tls_error_text() {
    const unsigned long e = ERR_peek_last_error();
    ERR_clear_error();
    if (e == 0) return "";
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    return buf;
}

constexpr std::size_t kMaxTlsPemBytes = 1 << 20;
const std::string kCertOp = "http.tls_cert_file";
const std::string kKeyOp = "http.tls_key_file";

/// The certificate chain's PEM text: public, an ordinary read, at most 1 MiB.
Result<std::string> read_cert_pem(const std::string& cert_file) {
    std::ifstream in(cert_file, std::ios::binary);
    if (!in) return Error{kCertOp, cert_file, errno, ""};
    std::ostringstream ss;
    ss << in.rdbuf();
    std::string pem = ss.str();
    if (pem.size() > kMaxTlsPemBytes) return Error{kCertOp, cert_file, 0, "larger than 1 MiB"};
    return pem;
}

/// TLS 1.2 and up, no renegotiation, compression, tickets or session cache.
void set_server_options(SSL_CTX* ctx) {
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION |
                                 SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_NO_TICKET);
    // Writes resume from where a partial one stopped; the gate's buffer may grow in between.
    // An idle kept-alive connection holds no 16 KiB record buffers (up to 4096 connections).
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
                              SSL_MODE_RELEASE_BUFFERS);
    // No resumption: Prometheus keeps its connection alive, and nothing is kept per client.
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
    SSL_CTX_set_num_tickets(ctx, 0);
}

/// Puts the leaf certificate of `pem` and the intermediates after it into `ctx`; `leaf` is set
/// to the leaf (the caller frees it) unless an error is returned.
std::optional<Error> use_chain(SSL_CTX* ctx, const std::string& pem, const std::string& cert_file,
                               X509*& leaf) {
    BIO* cb = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
    leaf = PEM_read_bio_X509(cb, nullptr, nullptr, nullptr);
    if (!leaf) {
        BIO_free(cb);
        ERR_clear_error();
        return Error{kCertOp, cert_file, 0,
                     "no PEM certificate in it (-----BEGIN CERTIFICATE-----)"};
    }
    bool ok = SSL_CTX_use_certificate(ctx, leaf) == 1;
    // The intermediates after the leaf, sent with it.
    while (ok) {
        X509* extra = PEM_read_bio_X509(cb, nullptr, nullptr, nullptr);
        if (!extra) break;
        ok = SSL_CTX_add0_chain_cert(ctx, extra) == 1;
        if (!ok) X509_free(extra);
    }
    BIO_free(cb);
    ERR_clear_error();  // the end of the PEM stream is reported as an error
    if (ok) return std::nullopt;
    X509_free(leaf);
    leaf = nullptr;
    return Error{kCertOp, cert_file, 0, "certificate refused: " + tls_error_text()};
}

/// SHA-256 of the certificate (DER), lower-case hex without colons.
std::string sha256_hex(X509* cert) {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned md_len = 0;
    X509_digest(cert, EVP_sha256(), md, &md_len);
    std::string out;
    for (unsigned i = 0; i < md_len; ++i) {
        char hex[3];
        std::snprintf(hex, sizeof hex, "%02x", md[i]);
        out += hex;
    }
    return out;
}

/// The private key into `ctx`, checked against its certificate. The key is a secret, read as
/// the token files are; its bytes wiped after parsing.
std::optional<Error> use_private_key(SSL_CTX* ctx, const std::string& key_file,
                                     const std::string& cert_file) {
    auto key = auth::read_secret_file(kKeyOp, key_file, kMaxTlsPemBytes);
    if (!key) return key.error();
    const auto& kb = key->bytes();
    if (kb.size() > kMaxTlsPemBytes) return Error{kKeyOp, key_file, 0, "larger than 1 MiB"};
    BIO* kbio = BIO_new_mem_buf(kb.data(), static_cast<int>(kb.size()));
    EVP_PKEY* pkey = PEM_read_bio_PrivateKey(kbio, nullptr, nullptr, nullptr);
    BIO_free(kbio);
    if (!pkey) {
        ERR_clear_error();
        return Error{kKeyOp, key_file, 0,
                     "no unencrypted PEM private key in it (-----BEGIN PRIVATE KEY-----)"};
    }
    const bool ok = SSL_CTX_use_PrivateKey(ctx, pkey) == 1 && SSL_CTX_check_private_key(ctx) == 1;
    EVP_PKEY_free(pkey);
    if (ok) return std::nullopt;
    ERR_clear_error();
    return Error{kKeyOp, key_file, 0,
                 "does not match the certificate of http.tls_cert_file (" + cert_file + ")"};
}

}  // namespace

TlsContext::~TlsContext() {
    SSL_CTX_free(ctx_);
}

Result<std::shared_ptr<const TlsContext>> TlsContext::load(const std::string& cert_file,
                                                           const std::string& key_file) {
    ERR_clear_error();
    const auto pem = read_cert_pem(cert_file);
    if (!pem) return pem.error();
    std::shared_ptr<TlsContext> t(new TlsContext());
    t->ctx_ = SSL_CTX_new(TLS_server_method());
    if (!t->ctx_) return Error{"SSL_CTX_new", cert_file, 0, tls_error_text()};
    set_server_options(t->ctx_);
    X509* leaf = nullptr;
    if (auto e = use_chain(t->ctx_, *pem, cert_file, leaf)) return *e;
    t->sha256_ = sha256_hex(leaf);
    tm end{};
    if (ASN1_TIME_to_tm(X509_get0_notAfter(leaf), &end) == 1)
        t->not_after_ = static_cast<long long>(timegm(&end));
    X509_free(leaf);
    if (auto e = use_private_key(t->ctx_, key_file, cert_file)) return *e;
    return std::shared_ptr<const TlsContext>(std::move(t));
}

ssl_st* tls_session(const TlsContext& ctx, int fd) {
    SSL* s = SSL_new(ctx.ctx());
    if (!s) return nullptr;
    if (SSL_set_fd(s, fd) != 1) {
        SSL_free(s);
        return nullptr;
    }
    SSL_set_accept_state(s);
    return s;
}

void tls_close(ssl_st* s) {
    if (!s) return;
    ERR_clear_error();
    if (SSL_is_init_finished(s)) SSL_shutdown(s);  // non-blocking socket: never waits
    ERR_clear_error();
    SSL_free(s);
}

void tls_free(ssl_st* s) {
    SSL_free(s);
}

bool tls_established(ssl_st* s) {
    return s && SSL_is_init_finished(s);
}

bool tls_pending(ssl_st* s) {
    return s && SSL_has_pending(s);
}

namespace {

TlsStep tls_step(SSL* s, int r, std::size_t n) {
    if (r > 0) return {TlsIo::done, n};
    const int e = SSL_get_error(s, r);
    TlsStep out;
    if (e == SSL_ERROR_WANT_READ) {
        out.what = TlsIo::want_read;
    } else if (e == SSL_ERROR_WANT_WRITE) {
        out.what = TlsIo::want_write;
    } else if (e == SSL_ERROR_ZERO_RETURN) {
        out.what = TlsIo::closed;
    } else if (e == SSL_ERROR_SSL && ERR_GET_REASON(ERR_peek_last_error()) == SSL_R_HTTP_REQUEST) {
        out.what = TlsIo::plain_http;  // OpenSSL saw "GET ", "POST ", "HEAD " or "PUT "
    } else if (e == SSL_ERROR_SYSCALL && errno == 0) {
        out.what = TlsIo::closed;  // end of stream without close_notify
    } else {
        out.what = TlsIo::failed;
    }
    ERR_clear_error();
    return out;
}

}  // namespace

TlsStep tls_read(ssl_st* s, char* buf, std::size_t size) {
    ERR_clear_error();
    errno = 0;
    std::size_t n = 0;
    const int r = SSL_read_ex(s, buf, size, &n);
    return tls_step(s, r, n);
}

TlsStep tls_write(ssl_st* s, const char* buf, std::size_t size) {
    ERR_clear_error();
    errno = 0;
    std::size_t n = 0;
    const int r = SSL_write_ex(s, buf, size, &n);
    return tls_step(s, r, n);
}

}  // namespace rh::agent

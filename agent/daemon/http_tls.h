// HTTPS for the agent's endpoint (agent/daemon/README.md, "HTTPS"): the certificate and key of
// http.tls_cert_file / http.tls_key_file loaded into an OpenSSL server context (TLS 1.2 and
// 1.3 only, no renegotiation, no compression), and the non-blocking TLS steps the HTTP gate
// (http_gate.h) runs on its connections. TLS is terminated in the gate, not by cpp-httplib's
// SSLServer: the gate owns accept and every socket read and write (per-address caps, the total
// request deadline, /healthz in the gate thread, answers written by the gate), and
// SSLServer would take the socket from it and give each connection a thread again.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <memory>
#include <string>

#include "core/result.h"

struct ssl_ctx_st;
struct ssl_st;

namespace rh::agent {

/// An OpenSSL server context holding one certificate chain and its private key.
class TlsContext {
  public:
    /// `cert_file`: PEM, the server certificate first, then any intermediates (not a secret:
    /// read as a normal file). `key_file`: its PEM private key, read as the token file is
    /// (probes/auth/secret_file.h: no symlink in its path, owned by this user or root, mode
    /// 0600), its bytes wiped after use. Errors name the field and the file: "http.tls_cert_file
    /// PATH: no PEM certificate in it", "http.tls_key_file PATH: is readable ... chmod 600 PATH",
    /// "http.tls_key_file PATH: does not match the certificate of http.tls_cert_file".
    static Result<std::shared_ptr<const TlsContext>> load(const std::string& cert_file,
                                                          const std::string& key_file);
    ~TlsContext();
    TlsContext(const TlsContext&) = delete;
    TlsContext& operator=(const TlsContext&) = delete;

    ssl_ctx_st* ctx() const { return ctx_; }
    /// SHA-256 of the server certificate (DER), lower-case hex: what `openssl x509 -noout
    /// -fingerprint -sha256` prints, without colons. Logged in http_listening; a reload
    /// restarts the endpoint when it changes (a renewed certificate).
    const std::string& cert_sha256() const { return sha256_; }
    /// The certificate's notAfter as UTC seconds since the epoch.
    long long not_after() const { return not_after_; }

  private:
    TlsContext() = default;
    ssl_ctx_st* ctx_ = nullptr;
    std::string sha256_;
    long long not_after_ = 0;
};

/// What one non-blocking TLS read or write did.
enum class TlsIo {
    done,        ///< `n` bytes read or written (> 0)
    want_read,   ///< try again when the socket is readable
    want_write,  ///< try again when the socket is writable
    closed,      ///< the peer closed (close_notify or end of stream)
    failed,      ///< a TLS or socket error: close the connection
    plain_http,  ///< a plain HTTP request came to the TLS port (first bytes "GET ", "POST "...)
};
struct TlsStep {
    TlsIo what = TlsIo::failed;
    std::size_t n = 0;
};

/// A server-side TLS session on connected socket `fd` (the handshake runs inside the first
/// reads). nullptr when OpenSSL cannot allocate one.
ssl_st* tls_session(const TlsContext& ctx, int fd);
/// Sends close_notify without waiting for the peer's (best effort), then frees the session.
void tls_close(ssl_st* s);
/// Frees the session without a close_notify.
void tls_free(ssl_st* s);
/// Whether the handshake is done (an answer can be sent through the session).
bool tls_established(ssl_st* s);
/// Whether the session holds received bytes not yet read (poll() cannot see them).
bool tls_pending(ssl_st* s);
TlsStep tls_read(ssl_st* s, char* buf, std::size_t size);
TlsStep tls_write(ssl_st* s, const char* buf, std::size_t size);

}  // namespace rh::agent

// HTTPS for the agent's endpoint (issue 27, "Actions apart from reading"; agent/daemon/
// http_tls.h): a self-signed certificate made here with libcrypto (no openssl CLI), the real
// server on loopback with it. /metrics and /healthz over TLS with cpp-httplib's SSLClient
// checking the certificate; plain HTTP to the TLS port refused by name (and counted); the
// token needed over TLS as over HTTP; TLS 1.2/1.3 only; silent handshakes held to the gate's
// per-address cap and request deadline while /healthz answers; the config errors (one of the pair
// alone, a key file others can read or reached by a symlink, a key of another certificate); the
// warning for a token in clear on a non-loopback address, and none with TLS.
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <httplib.h>

#include <boost/test/unit_test.hpp>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "agent/daemon/agent_loop.h"
#include "agent/daemon/board.h"
#include "agent/daemon/config.h"
#include "agent/daemon/http.h"
#include "agent/daemon/http_tls.h"
#include "core/clock.h"
#include "tests/agent/loopback_client.h"
#include "tests/agent/self_signed.h"

BOOST_AUTO_TEST_SUITE(test_agent_http_tls)

using namespace rh::agent;
namespace fs = std::filesystem;
using rh::test::connect_from;
using rh::test::make_self_signed;
using rh::test::SelfSigned;

namespace {

const std::string kRead = "read-token-0123456789abcdef";

/// A folder of its own with cert.pem (0644) and key.pem (0600) of one self-signed pair.
struct TlsFiles {
    fs::path dir;
    SelfSigned pair = make_self_signed();
    std::string cert, key;
    TlsFiles() {
        char tmpl[] = "/tmp/rh_tls_XXXXXX";
        BOOST_REQUIRE(::mkdtemp(tmpl));
        dir = tmpl;
        cert = write("cert.pem", pair.cert_pem, 0644);
        key = write("key.pem", pair.key_pem, 0600);
    }
    ~TlsFiles() { fs::remove_all(dir); }
    std::string write(const std::string& name, const std::string& text, unsigned mode) {
        const fs::path p = dir / name;
        std::FILE* f = std::fopen(p.c_str(), "wb");
        BOOST_REQUIRE(f);
        std::fwrite(text.data(), 1, text.size(), f);
        std::fclose(f);
        ::chmod(p.c_str(), mode);
        return p.string();
    }
};

/// An SSLClient to 127.0.0.1:port that checks the server's certificate against `ca_pem`.
std::unique_ptr<httplib::SSLClient> tls_client(int port, const std::string& ca_pem) {
    auto c = std::make_unique<httplib::SSLClient>("127.0.0.1", port);
    c->set_ca_cert_store(rh::test::trust_only(ca_pem));
    c->enable_server_certificate_verification(true);
    c->set_connection_timeout(5);
    c->set_read_timeout(5);
    return c;
}

void publish(Board& board) {
    board.update([](BoardView& v) {
        v.passes = 1;
        v.last_pass_mono_s = rh::monotonic_now_s() + 3600;
        v.devices = 1;
        v.collect_interval_s = 1;
        v.metrics = std::make_shared<const LazyDoc<std::string>>(
            [] { return std::string("rocehealth_up 1\n"); });
    });
}

HttpConfig loopback_config() {
    HttpConfig c;
    c.listen_port = 0;
    return c;
}

std::shared_ptr<const TlsContext> load(const TlsFiles& f) {
    auto t = TlsContext::load(f.cert, f.key);
    BOOST_REQUIRE_MESSAGE(static_cast<bool>(t), (t ? std::string() : t.error().message()));
    return *t;
}

/// The error text of loading cert/key ("" when it loads).
std::string load_error(const std::string& cert, const std::string& key) {
    auto t = TlsContext::load(cert, key);
    return t ? "" : t.error().message();
}

/// Whether a TLS client limited to `version` at most (TLS1_1_VERSION, ...) completes a
/// handshake with 127.0.0.1:port (certificate not checked: only the protocol is).
bool handshake_up_to(int port, int version) {
    SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
    SSL_CTX_set_security_level(ctx, 0);  // let this client offer TLS 1.0/1.1 at all
    SSL_CTX_set_min_proto_version(ctx, TLS1_VERSION);
    SSL_CTX_set_max_proto_version(ctx, version);
    SSL* ssl = SSL_new(ctx);
    const int fd = connect_from("127.0.0.2", port);
    SSL_set_fd(ssl, fd);
    const bool ok = SSL_connect(ssl) == 1;
    SSL_free(ssl);
    SSL_CTX_free(ctx);
    ::close(fd);
    return ok;
}

/// The real server on loopback with HTTPS from a new self-signed pair, a board after a pass.
struct TlsServer {
    TlsFiles f;
    Board board;
    GateCounters counters;
    std::unique_ptr<HttpServer> srv;
    explicit TlsServer(HttpConfig cfg = loopback_config(), const std::string& token = "") {
        ::signal(SIGPIPE, SIG_IGN);  // as the agent does: OpenSSL writes with write(2)
        publish(board);
        srv = std::make_unique<HttpServer>(cfg, token, "", board, counters, HttpServer::Action{},
                                           load(f));
        BOOST_REQUIRE(srv->start());
    }
    int port() const { return srv->port(); }
};

}  // namespace

BOOST_AUTO_TEST_CASE(metrics_and_healthz_over_tls_with_the_certificate_checked) {
    TlsServer t;
    const auto& f = t.f;
    auto c = tls_client(t.port(), f.pair.cert_pem);
    const auto m = c->Get("/metrics");
    BOOST_REQUIRE_MESSAGE(m, "GET /metrics over TLS: " << httplib::to_string(m.error()));
    BOOST_TEST(m->status == 200);
    BOOST_TEST(m->body == "rocehealth_up 1\n");
    // /healthz, answered by the gate thread, on the same kept-alive TLS connection.
    const auto h = c->Get("/healthz");
    BOOST_REQUIRE(h);
    BOOST_TEST(h->status == 200);
    BOOST_TEST(h->body.find("\"status\":\"ok\"") != std::string::npos, h->body);
    // A client that trusts another certificate refuses this server.
    TlsFiles other;
    auto wrong = tls_client(t.port(), other.pair.cert_pem);
    const auto r = wrong->Get("/metrics");
    BOOST_TEST(!r);
    BOOST_TEST(httplib::to_string(r.error()) ==
               httplib::to_string(httplib::Error::SSLServerVerification));
}

BOOST_AUTO_TEST_CASE(plain_http_to_the_tls_port_is_refused_by_name) {
    TlsServer t;
    const auto& f = t.f;
    const auto& counters = t.counters;
    httplib::Client plain("127.0.0.1", t.port());
    plain.set_read_timeout(5);
    const auto r = plain.Get("/metrics");
    BOOST_REQUIRE(r);  // answered in clear, so the client can read why
    BOOST_TEST(r->status == 400);
    BOOST_TEST(r->body.find("speaks HTTPS") != std::string::npos, r->body);
    BOOST_TEST(r->body.find("rocehealth_up") == std::string::npos);
    BOOST_TEST(counters.snapshot().at("tls_handshake") == 1u);
    // Bytes that are neither TLS nor HTTP: closed without an answer, counted.
    const int fd = connect_from("127.0.0.2", t.port());
    const char junk[] = "\x16\x03\x01\x00\x05junk!";
    ::send(fd, junk, sizeof junk - 1, MSG_NOSIGNAL);
    pollfd p{fd, POLLIN, 0};
    BOOST_TEST(::poll(&p, 1, 5000) == 1);
    char buf[256];
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    BOOST_TEST((n <= 0 || buf[0] == 0x15), "an answer to junk: " << n);  // at most a TLS alert
    ::close(fd);
    // Counted by the gate thread just after its alert went out.
    for (int i = 0; i < 200 && counters.snapshot().at("tls_handshake") < 2u; ++i) ::usleep(10000);
    BOOST_TEST(counters.snapshot().at("tls_handshake") == 2u);
    // TLS still serves afterwards.
    const auto ok = tls_client(t.port(), f.pair.cert_pem)->Get("/metrics");
    BOOST_REQUIRE(ok);
    BOOST_TEST(ok->status == 200);
}

BOOST_AUTO_TEST_CASE(a_silent_or_stalled_handshake_holds_no_thread_and_ends_at_the_deadline) {
    // The gate's bounds hold before and during the handshake: silent connections from one
    // address fill its cap (the next one is closed at once, no handshake spent on it), /healthz
    // from another address is answered meanwhile, and the silent ones are closed at
    // http.request_timeout_s, counted.
    HttpConfig cfg = loopback_config();
    cfg.request_timeout_s = 1;
    cfg.max_connections_per_address = 2;
    TlsServer t(cfg);
    const int a = connect_from("127.0.0.5", t.port());
    const int b = connect_from("127.0.0.5", t.port());
    const int over = connect_from("127.0.0.5", t.port());
    pollfd p{over, POLLIN, 0};
    BOOST_TEST(::poll(&p, 1, 2000) == 1);  // closed without an answer, before any deadline
    char buf[64];
    BOOST_TEST(::recv(over, buf, sizeof buf, 0) <= 0);
    const double t0 = rh::monotonic_now_s();
    const auto h = tls_client(t.port(), t.f.pair.cert_pem)->Get("/healthz");
    BOOST_REQUIRE(h);
    BOOST_TEST(h->status == 200);
    BOOST_TEST(rh::monotonic_now_s() - t0 < 0.9);
    for (int fd : {a, b}) {
        pollfd q{fd, POLLIN, 0};
        BOOST_TEST(::poll(&q, 1, 3000) == 1);
        BOOST_TEST(::recv(fd, buf, sizeof buf, 0) <= 0);  // no 408 in clear inside TLS
        ::close(fd);
    }
    ::close(over);
    const auto n = t.counters.snapshot();
    BOOST_TEST(n.at("per_address_cap") == 1u);
    BOOST_TEST(n.at("request_timeout") == 2u);
}

BOOST_AUTO_TEST_CASE(only_tls_1_2_and_1_3_are_spoken) {
    TlsServer t;
    BOOST_TEST(handshake_up_to(t.port(), TLS1_3_VERSION));
    BOOST_TEST(handshake_up_to(t.port(), TLS1_2_VERSION));
    BOOST_TEST(!handshake_up_to(t.port(), TLS1_1_VERSION));
    BOOST_TEST(!handshake_up_to(t.port(), TLS1_VERSION));
}

BOOST_AUTO_TEST_CASE(the_token_is_needed_over_tls_as_over_http) {
    HttpConfig cfg = loopback_config();
    cfg.protect_read = true;
    TlsServer t(cfg, kRead);
    const auto& f = t.f;
    auto c = tls_client(t.port(), f.pair.cert_pem);
    const auto none = c->Get("/metrics");
    BOOST_REQUIRE(none);
    BOOST_TEST(none->status == 401);
    BOOST_TEST(none->get_header_value("WWW-Authenticate").find("Bearer") == 0u);
    c->set_bearer_token_auth("wrong-token-0123456789");
    const auto wrong = c->Get("/metrics");
    BOOST_REQUIRE(wrong);
    BOOST_TEST(wrong->status == 401);
    c->set_bearer_token_auth(kRead);
    const auto right = c->Get("/metrics");
    BOOST_REQUIRE(right);
    BOOST_TEST(right->status == 200);
    BOOST_TEST(right->body == "rocehealth_up 1\n");
    // /healthz stays open.
    const auto h = tls_client(t.port(), f.pair.cert_pem)->Get("/healthz");
    BOOST_REQUIRE(h);
    BOOST_TEST(h->status == 200);
}

BOOST_AUTO_TEST_CASE(a_token_in_clear_is_warned_about_and_not_with_tls) {
    TlsFiles f;
    Board board;
    GateCounters counters;
    HttpConfig c = loopback_config();
    c.listen_host = "0.0.0.0";
    c.protect_read = true;
    const auto clear = HttpServer(c, kRead, "", board, counters).warnings();
    BOOST_TEST_REQUIRE(clear.size() == 1u);
    BOOST_TEST(clear[0].find("in clear") != std::string::npos);
    BOOST_TEST(clear[0].find("http.tls_cert_file") != std::string::npos, clear[0]);
    BOOST_TEST(HttpServer(c, kRead, "", board, counters, {}, load(f)).warnings().empty());
}

BOOST_AUTO_TEST_CASE(cert_and_key_come_together) {
    auto only_cert = parse_agent_config(
        nlohmann::json::parse(R"({"http": {"tls_cert_file": "/etc/rocehealth/cert.pem"}})"), "a");
    BOOST_REQUIRE(!only_cert);
    BOOST_TEST(only_cert.error().message().find("http.tls_key_file: missing") != std::string::npos,
               only_cert.error().message());
    auto only_key = parse_agent_config(
        nlohmann::json::parse(R"({"http": {"tls_key_file": "/etc/rocehealth/key.pem"}})"), "a");
    BOOST_REQUIRE(!only_key);
    BOOST_TEST(only_key.error().message().find("http.tls_cert_file: missing") != std::string::npos,
               only_key.error().message());
    auto both = parse_agent_config(
        nlohmann::json::parse(R"({"http": {"tls_cert_file": "c", "tls_key_file": "k"}})"), "a");
    BOOST_REQUIRE(both);
    BOOST_TEST(both->http.tls_cert_file == "c");
    BOOST_TEST(both->http.tls_key_file == "k");
}

BOOST_AUTO_TEST_CASE(the_key_file_is_read_as_a_secret_and_must_match) {
    TlsFiles f;
    BOOST_TEST(load_error(f.cert, f.key) == "");
    BOOST_TEST(load(f)->cert_sha256().size() == 64u);
    // Readable by others: refused with the command to run.
    ::chmod(f.key.c_str(), 0644);
    std::string e = load_error(f.cert, f.key);
    BOOST_TEST(e.find("http.tls_key_file") != std::string::npos, e);
    BOOST_TEST(e.find("chmod 600 " + f.key) != std::string::npos, e);
    ::chmod(f.key.c_str(), 0600);
    // Reached through a symlink: refused.
    const std::string link = (f.dir / "link.pem").string();
    fs::create_symlink(f.key, link);
    e = load_error(f.cert, link);
    BOOST_TEST(e.find("symbolic link") != std::string::npos, e);
    // The key of another certificate.
    TlsFiles other;
    e = load_error(f.cert, other.key);
    BOOST_TEST(e.find("does not match the certificate of http.tls_cert_file") != std::string::npos,
               e);
    // Not a certificate; not a key; missing.
    e = load_error(f.key, f.key);
    BOOST_TEST(e.find("http.tls_cert_file") != std::string::npos, e);
    BOOST_TEST(e.find("no PEM certificate") != std::string::npos, e);
    const std::string junk = f.write("junk.pem", "not a key\n", 0600);
    e = load_error(f.cert, junk);
    BOOST_TEST(e.find("no unencrypted PEM private key") != std::string::npos, e);
    e = load_error((f.dir / "none.pem").string(), f.key);
    BOOST_TEST(e.find("http.tls_cert_file") != std::string::npos, e);
}

BOOST_AUTO_TEST_CASE(check_config_loads_the_pair_and_refuses_a_mismatch) {
    // What --check-config and a reload run (prepare_runtime): the pair loads, or the error names
    // the field.
    TlsFiles f, other;
    const auto config = [&](const std::string& key) {
        nlohmann::json j = {{"sysfs_root", RH_FIXTURES_DIR "/mlx5_pfc_ofed/sys"},
                            {"rules_file", RH_SOURCE_DIR "/rules/rocehealth-rules.json"},
                            {"http", {{"tls_cert_file", f.cert}, {"tls_key_file", key}}}};
        auto c = parse_agent_config(j, "agent.json");
        BOOST_REQUIRE(c);
        return prepare_runtime(std::move(*c));
    };
    auto good = config(f.key);
    BOOST_REQUIRE_MESSAGE(static_cast<bool>(good), (good ? "" : good.error().message()));
    BOOST_REQUIRE(good->tls);
    BOOST_TEST(good->tls->cert_sha256().size() == 64u);
    BOOST_TEST(good->tls->not_after() > 0);
    auto bad = config(other.key);
    BOOST_REQUIRE(!bad);
    BOOST_TEST(bad.error().message().find("http.tls_key_file " + other.key + ": does not match") !=
                   std::string::npos,
               bad.error().message());
}

BOOST_AUTO_TEST_SUITE_END()  // test_agent_http_tls

// rocehealth_http_tls_bench: what HTTPS costs a scrape of the agent's endpoint (agent/daemon/
// http_tls.h), on loopback in one process: the real HttpServer (gate, handler threads) serving a
// /metrics of the size of an 8-port host's, and cpp-httplib clients.
//   new connection + GET /metrics: plain HTTP, TLS with a P-256 certificate, TLS with RSA 2048
//   (a handshake each time: what a scraper without keep-alive pays)
//   GET /metrics on a kept-alive connection: plain and TLS (what Prometheus pays: it keeps its
//   connection)
// Prints wall time per request (mean, p50, p99) and the process CPU per request (client and
// server together: both are in this process). Asserts nothing.
//   usage: rocehealth_http_tls_bench [REQUESTS]   (default 300)
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <httplib.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "agent/daemon/board.h"
#include "agent/daemon/http.h"
#include "agent/daemon/http_tls.h"
#include "core/clock.h"
#include "tests/agent/self_signed.h"

using namespace rh::agent;

namespace {

double cpu_s() {
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

void write_file(const std::string& path, const std::string& text, unsigned mode) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
    ::chmod(path.c_str(), mode);
}

std::shared_ptr<const TlsContext> context(const rh::test::SelfSigned& pair,
                                          const std::string& dir) {
    write_file(dir + "/cert.pem", pair.cert_pem, 0644);
    write_file(dir + "/key.pem", pair.key_pem, 0600);
    auto t = TlsContext::load(dir + "/cert.pem", dir + "/key.pem");
    if (!t) {
        std::fprintf(stderr, "%s\n", t.error().message().c_str());
        std::exit(2);
    }
    return *t;
}

/// Runs `one` `n` times; prints the row.
void measure(const char* what, int n, const std::function<bool()>& one) {
    std::vector<double> t;
    t.reserve(static_cast<std::size_t>(n));
    const double cpu0 = cpu_s();
    for (int i = 0; i < n; ++i) {
        const double t0 = rh::monotonic_now_s();
        if (!one()) {
            std::fprintf(stderr, "%s: request %d failed\n", what, i);
            std::exit(1);
        }
        t.push_back(rh::monotonic_now_s() - t0);
    }
    const double cpu = cpu_s() - cpu0;
    std::sort(t.begin(), t.end());
    double sum = 0;
    for (double v : t) sum += v;
    std::printf("%-44s %8.3f %8.3f %8.3f %10.3f\n", what, sum / n * 1e3, t[t.size() / 2] * 1e3,
                t[std::min(t.size() - 1, t.size() * 99 / 100)] * 1e3, cpu / n * 1e3);
}

}  // namespace

int main(int argc, char** argv) {
    ::signal(SIGPIPE, SIG_IGN);  // as the agent does: OpenSSL writes with write(2)
    const int n = argc > 1 ? std::atoi(argv[1]) : 300;
    char tmpl[] = "/tmp/rh_tls_bench_XXXXXX";
    if (!::mkdtemp(tmpl)) return 2;
    const std::string dir = tmpl;
    std::filesystem::create_directories(dir + "/ec");
    std::filesystem::create_directories(dir + "/rsa");
    // A /metrics the size of an 8-port host's (~60 KB of text).
    std::string metrics;
    while (metrics.size() < 60000)
        metrics += "rocehealth_port_rcv_data_bytes_total{device=\"mlx5_0\",port=\"1\"} 1234567\n";
    Board board;
    board.update([&](BoardView& v) {
        v.passes = 1;
        v.last_pass_mono_s = rh::monotonic_now_s() + 3600;
        v.devices = 1;
        v.metrics = std::make_shared<const LazyDoc<std::string>>([&] { return metrics; });
    });
    GateCounters counters;
    HttpConfig cfg;
    cfg.listen_port = 0;
    const auto ec = rh::test::make_self_signed(false);
    const auto rsa = rh::test::make_self_signed(true);
    HttpServer plain(cfg, "", "", board, counters);
    HttpServer tls_ec(cfg, "", "", board, counters, {}, context(ec, dir + "/ec"));
    HttpServer tls_rsa(cfg, "", "", board, counters, {}, context(rsa, dir + "/rsa"));
    if (!plain.start() || !tls_ec.start() || !tls_rsa.start()) return 2;

    const auto ok = [&](const httplib::Result& r) {
        return r && r->status == 200 && r->body.size() == metrics.size();
    };
    const auto tls_client = [&](int port, const std::string& ca) {
        auto c = std::make_unique<httplib::SSLClient>("127.0.0.1", port);
        c->set_ca_cert_store(rh::test::trust_only(ca));
        c->enable_server_certificate_verification(true);
        c->set_tcp_nodelay(true);
        return c;
    };
    std::printf("%d requests each, /metrics %zu bytes; ms per request, CPU of client + server\n", n,
                metrics.size());
    std::printf("%-44s %8s %8s %8s %10s\n", "", "mean", "p50", "p99", "CPU");
    // One client object a row (its SSL_CTX made once, as a scraper's); without keep-alive each
    // request is a new connection and, with TLS, a full handshake (the server keeps no
    // sessions). TCP_NODELAY as Go's (Prometheus') connections have it.
    httplib::Client fresh("127.0.0.1", plain.port());
    fresh.set_tcp_nodelay(true);
    measure("plain HTTP, new connection", n, [&] { return ok(fresh.Get("/metrics")); });
    auto fresh_ec = tls_client(tls_ec.port(), ec.cert_pem);
    measure("TLS P-256, new connection (handshake)", n,
            [&] { return ok(fresh_ec->Get("/metrics")); });
    auto fresh_rsa = tls_client(tls_rsa.port(), rsa.cert_pem);
    measure("TLS RSA 2048, new connection (handshake)", n,
            [&] { return ok(fresh_rsa->Get("/metrics")); });
    httplib::Client kept("127.0.0.1", plain.port());
    kept.set_tcp_nodelay(true);
    kept.set_keep_alive(true);
    measure("plain HTTP, kept-alive connection", n, [&] { return ok(kept.Get("/metrics")); });
    auto kept_tls = tls_client(tls_ec.port(), ec.cert_pem);
    kept_tls->set_keep_alive(true);
    measure("TLS P-256, kept-alive connection", n, [&] { return ok(kept_tls->Get("/metrics")); });
    plain.stop();
    tls_ec.stop();
    tls_rsa.stop();
    std::filesystem::remove_all(dir);
    return 0;
}

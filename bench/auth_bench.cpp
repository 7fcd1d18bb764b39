// rocehealth_auth_bench: what the fabric-key handshake (probes/auth/handshake.h) adds to a
// control connection, on loopback TCP with no NIC: wall time and CPU (both ends, this process)
// per connection, plain (connect + hello round trip) vs authenticated (connect + handshake +
// hello). Prints figures and the ratio; not a test.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

#include "probes/auth/handshake.h"
#include "probes/wire/tcp.h"

using namespace rh;

namespace {

double cpu_s() {
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

struct Figures {
    double wall_us = 0, cpu_us = 0;
};

/// `n` connections to a loopback server that answers {"cmd":"hello"} (after verifying the
/// handshake when `authenticated`).
Figures run(int n, bool authenticated, const auth::FabricKey& key) {
    auto l = tcp::listen("127.0.0.1", 0);
    if (!l) {
        std::fprintf(stderr, "listen: %s\n", l.error().message().c_str());
        std::exit(2);
    }
    sockaddr_in a{};
    socklen_t len = sizeof a;
    ::getsockname(l->fd(), reinterpret_cast<sockaddr*>(&a), &len);
    const std::uint16_t port = ntohs(a.sin_port);
    std::thread server([&] {
        for (int i = 0; i < n; ++i) {
            std::string peer;
            auto s = tcp::accept(*l, 5000, peer);
            if (!s || !*s) std::exit(3);
            auto first = tcp::recv_any(**s, tcp::deadline_in(5000));
            if (!first || !first->json) std::exit(4);
            nlohmann::json cmd = *first->json;
            if (authenticated) {
                if (!auth::verify_client(**s, cmd, &key, tcp::deadline_in(5000))) std::exit(5);
                cmd = *tcp::recv_any(**s, tcp::deadline_in(5000))->json;
            }
            (void)tcp::send_json(**s, {{"cmd", "hello_reply"}}, tcp::deadline_in(5000));
        }
    });
    const double c0 = cpu_s();
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) {
        auto s = tcp::connect({"127.0.0.1", port}, tcp::deadline_in(5000));
        if (!s) std::exit(6);
        if (authenticated && !auth::prove_to_responder(*s, key, tcp::deadline_in(5000)))
            std::exit(7);
        (void)tcp::send_json(*s, {{"cmd", "hello"}}, tcp::deadline_in(5000));
        if (!tcp::recv_any(*s, tcp::deadline_in(5000))) std::exit(8);
    }
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    server.join();
    return {1e6 * wall / n, 1e6 * (cpu_s() - c0) / n};
}

}  // namespace

int main() {
    const auth::FabricKey key{auth::random_bytes(32), "bench"};
    const int n = 2000;
    (void)run(200, true, key);  // warm-up
    const Figures plain = run(n, false, key), keyed = run(n, true, key);
    std::printf(
        "control connection on loopback, %d connections each (client and responder in "
        "one process)\n",
        n);
    std::printf("  plain (connect + hello):              %7.1f us wall, %7.1f us CPU\n",
                plain.wall_us, plain.cpu_us);
    std::printf("  with the fabric-key handshake:        %7.1f us wall, %7.1f us CPU\n",
                keyed.wall_us, keyed.cpu_us);
    std::printf(
        "  added by the handshake:               %7.1f us wall, %7.1f us CPU (x%.2f wall)\n",
        keyed.wall_us - plain.wall_us, keyed.cpu_us - plain.cpu_us, keyed.wall_us / plain.wall_us);
    std::printf(
        "  anchor: one mesh round to a peer costs one latency session (fixed frames, no "
        "handshake); a control connection opens once per incast/accept stage and host\n");
    return 0;
}

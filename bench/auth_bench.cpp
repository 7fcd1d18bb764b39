// rocehealth_auth_bench: what the fabric-key handshake (probes/auth/handshake.h) adds to a
// control connection, on loopback TCP with no NIC: wall time and CPU (both ends, this process)
// per connection, plain (connect + hello round trip) vs authenticated (connect + handshake +
// hello); and what the per-frame MAC after it (probes/wire/frame_mac.h) costs: seal + verify
// alone, and a stream of frames sent and received on loopback, plain vs protected, for a large
// and a small sample_pass-like frame; and the optional per-host keys (probes/auth/host_key.h):
// a connection whose responder signs with its host key and whose client checks it, beside the
// fabric key alone (which carries X25519 key shares either way), and each primitive alone.
// Prints figures and ratios; not a test.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <optional>
#include <thread>

#include "probes/auth/handshake.h"
#include "probes/auth/host_key.h"
#include "probes/auth/key_share.h"
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
/// handshake when `authenticated`; signed with `host_key` and checked by the client when given).
Figures run(int n, bool authenticated, const auth::FabricKey& key,
            const auth::HostKey* host_key = nullptr) {
    std::optional<auth::ExpectedHost> expect;
    if (host_key) expect = auth::ExpectedHost{"bench", host_key->public_key(), "bench"};
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
                if (!auth::verify_client(**s, cmd, &key, tcp::deadline_in(5000), host_key))
                    std::exit(5);
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
        if (authenticated &&
            !auth::prove_to_responder(*s, key, tcp::deadline_in(5000), expect ? &*expect : nullptr))
            std::exit(7);
        (void)tcp::send_json(*s, {{"cmd", "hello"}}, tcp::deadline_in(5000));
        if (!tcp::recv_any(*s, tcp::deadline_in(5000))) std::exit(8);
    }
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    server.join();
    return {1e6 * wall / n, 1e6 * (cpu_s() - c0) / n};
}

/// A json frame of about `bytes` bytes, shaped like a sample_pass reply.
nlohmann::json frame_of(std::size_t bytes) {
    return {{"cmd", "sample_pass"}, {"counters", std::string(bytes > 40 ? bytes - 40 : 1, '7')}};
}

/// ns per frame of seal (sender) + open (receiver) for one frame of `f`'s size, no socket.
double mac_ns(const std::vector<std::byte>& f, int n) {
    tcp::FrameKey k{};
    k.fill(3);
    tcp::FrameAuth tx(k, k), rx(k, k);
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) {
        const auto t = tx.seal(f);
        if (!rx.open(f, t, "bench")) std::exit(9);
    }
    return 1e9 * std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / n;
}

/// ns per frame of `n` frames sent by one end (send_json) and received by the other (recv_any,
/// which also decodes the JSON) on a loopback pair, protected or not.
double stream_ns(const nlohmann::json& body, int n, bool protect) {
    auto l = tcp::listen("127.0.0.1", 0);
    if (!l) std::exit(2);
    const auto here = tcp::local_address(*l);
    const auto port = static_cast<std::uint16_t>(std::stoi(here->substr(here->rfind(':') + 1)));
    auto c = tcp::connect({"127.0.0.1", port}, tcp::deadline_in(5000));
    std::string peer;
    auto a = tcp::accept(*l, 5000, peer);
    if (!c || !a || !*a) std::exit(3);
    tcp::Socket& s = **a;
    if (protect) {
        tcp::FrameKey up{}, down{};
        up.fill(1);
        down.fill(2);
        c->protect(std::make_shared<tcp::FrameAuth>(up, down));
        s.protect(std::make_shared<tcp::FrameAuth>(down, up));
    }
    std::thread reader([&] {
        for (int i = 0; i < n; ++i)
            if (!tcp::recv_any(s, tcp::deadline_in(5000))) std::exit(10);
    });
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i)
        if (!tcp::send_json(*c, body, tcp::deadline_in(5000))) std::exit(11);
    reader.join();
    return 1e9 * std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / n;
}

/// us per call of `f`, over `n` calls.
template <typename F>
double us_per(int n, F&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) f();
    return 1e6 * std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / n;
}

/// The primitives a handshake with host keys adds, each alone.
void primitive_figures() {
    const int n = 2000;
    const auto hk = auth::HostKey::generate();
    const auth::PublicKey pub = hk.public_key();
    const std::vector<std::uint8_t> h(250, 7);  // about the size of a signed transcript
    const auto sig = hk.sign(h);
    const auto peer = auth::KeyShare::generate().public_key();
    volatile bool sink = false;
    const double kx = us_per(n, [&] {
        const auto mine = auth::KeyShare::generate();
        sink = mine.agree(peer).ok();
    });
    const double sign = us_per(n, [&] { sink = hk.sign(h)[0] == 0; });
    const double verify = us_per(n, [&] { sink = auth::verify_signature(pub, h, sig); });
    (void)sink;
    std::printf("\nprimitives (one end, %d calls each)\n", n);
    std::printf(
        "  X25519 share + shared secret:         %7.1f us (each end, every keyed "
        "connection)\n",
        kx);
    std::printf("  Ed25519 sign (responder, host key):   %7.1f us\n", sign);
    std::printf("  Ed25519 verify (client, known_hosts): %7.1f us\n", verify);
}

void frame_figures() {
    std::printf("\nper frame after the handshake (HMAC-SHA256 trailer with a sequence number)\n");
    for (std::size_t size : {std::size_t{20480}, std::size_t{300}}) {
        const auto body = frame_of(size);
        const auto f = *oob::encode_json(body);
        const int n = size > 1000 ? 20000 : 100000;
        (void)mac_ns(f, n / 10);  // warm-up
        const double mac = mac_ns(f, n);
        const double plain = stream_ns(body, n, false), keyed = stream_ns(body, n, true);
        const auto mib_s = [&f](double ns) {
            return static_cast<double>(f.size()) / (ns * 1e-9) / (1024.0 * 1024.0);
        };
        std::printf("  %6zu B frame (%d frames):\n", f.size(), n);
        std::printf("    MAC alone (seal + verify):          %9.0f ns  %8.0f MiB/s\n", mac,
                    mib_s(mac));
        std::printf("    send + recv, plain:                 %9.0f ns  %8.0f MiB/s\n", plain,
                    mib_s(plain));
        std::printf("    send + recv, protected:             %9.0f ns  %8.0f MiB/s  (x%.2f)\n",
                    keyed, mib_s(keyed), keyed / plain);
    }
}

}  // namespace

int main() {
    const auth::FabricKey key{auth::random_bytes(32), "bench"};
    const int n = 2000;
    (void)run(200, true, key);  // warm-up
    const auto hk = auth::HostKey::generate();
    const Figures plain = run(n, false, key), keyed = run(n, true, key),
                  host = run(n, true, key, &hk);
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
        "  with fabric key + host key (signed, checked): %7.1f us wall, %7.1f us CPU "
        "(x%.2f wall of the fabric key alone)\n",
        host.wall_us, host.cpu_us, host.wall_us / keyed.wall_us);
    std::printf(
        "  anchor: one mesh round to a peer costs one latency session (fixed frames, no "
        "handshake); a control connection opens once per incast/accept stage and host\n");
    primitive_figures();
    frame_figures();
    return 0;
}

#define BOOST_TEST_MODULE tcp
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <thread>

#include "probes/latency_phases.h"
#include "probes/peer_query.h"
#include "probes/tcp.h"
#include "tests/support/loopback_listener.h"

using namespace rh;

using test::listen_on_free_port;

BOOST_AUTO_TEST_CASE(parse_host_port) {
    auto a = tcp::parse_host_port("10.0.0.2", 18520);
    BOOST_REQUIRE(a.ok());
    BOOST_TEST(a->host == "10.0.0.2");
    BOOST_TEST(a->port == 18520);
    auto b = tcp::parse_host_port("g1:9000", 18520);
    BOOST_REQUIRE(b.ok());
    BOOST_TEST(b->port == 9000);
    auto c = tcp::parse_host_port("[fe80::1]:7", 18520);
    BOOST_REQUIRE(c.ok());
    BOOST_TEST(c->host == "fe80::1");
    BOOST_TEST(c->str() == "[fe80::1]:7");
    BOOST_TEST(tcp::parse_host_port("fe80::1", 1)->host == "fe80::1");
    BOOST_TEST(!tcp::parse_host_port("h:0", 1).ok());
    BOOST_TEST(!tcp::parse_host_port("h:99999", 1).ok());
    BOOST_TEST(!tcp::parse_host_port(":5", 1).ok());
    BOOST_TEST(!tcp::parse_host_port("h:x", 1).ok());
}

BOOST_AUTO_TEST_CASE(refused_connection_is_named) {
    // Bind then close to find a port nobody listens on.
    const std::uint16_t port = listen_on_free_port().second;
    auto r = query_peer("127.0.0.1:" + std::to_string(port), 1000);
    BOOST_REQUIRE(!r.ok());
    BOOST_TEST(r.error().message() == "cannot reach responder at 127.0.0.1:" +
                                          std::to_string(port) + ": Connection refused");
}

BOOST_AUTO_TEST_CASE(silent_peer_times_out_within_deadline) {
    // Listens (the kernel completes the handshake) but never answers.
    const auto [l, port] = listen_on_free_port();
    const auto t0 = std::chrono::steady_clock::now();
    auto r = query_peer("127.0.0.1:" + std::to_string(port), 300);
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
            .count();
    BOOST_REQUIRE(!r.ok());
    BOOST_TEST(r.error().message().find("timed out") != std::string::npos, r.error().message());
    BOOST_TEST(ms < 1500);
}

BOOST_AUTO_TEST_CASE(closed_peer_is_named_and_seen_during_a_phase) {
    const auto [l, port] = listen_on_free_port();
    auto c = tcp::connect({"127.0.0.1", port}, tcp::deadline_in(1000));
    BOOST_REQUIRE(c.ok());
    BOOST_TEST(c->peer() == "peer 127.0.0.1:" + std::to_string(port));
    std::string name;
    auto a = tcp::accept(l, 1000, name);
    BOOST_REQUIRE(a.ok());
    BOOST_REQUIRE(a->has_value());
    BOOST_TEST((*a)->peer() == name);

    PhaseSpec p;
    p.size = 64;
    p.control_fd = c->fd();
    p.peer_role = "responder";
    BOOST_TEST(!control_closed(p, "WRITE", 7).has_value());  // open and quiet
    oob::Message m;
    m.type = oob::Type::phase_done;
    BOOST_REQUIRE(tcp::send_msg(**a, m, tcp::deadline_in(1000)).ok());
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    BOOST_TEST(!control_closed(p, "WRITE", 7).has_value());  // a message waiting is not EOF

    *a = std::nullopt;  // the responder's end goes away
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    BOOST_REQUIRE(tcp::recv_msg(*c, tcp::deadline_in(1000)).ok());  // the message still arrives
    auto e = control_closed(p, "WRITE", 7);
    BOOST_REQUIRE(e.has_value());
    BOOST_TEST(e->message() ==
               "responder closed the control connection (process ended or "
               "crashed) during WRITE 64 B message 7");
    BOOST_TEST(is_control_closed(*e));
    // Errors after the close still name the peer (getpeername fails by then).
    auto r = tcp::recv_msg(*c, tcp::deadline_in(1000));
    BOOST_REQUIRE(!r.ok());
    BOOST_TEST(r.error().message().find("recv peer 127.0.0.1:" + std::to_string(port) +
                                        ": peer closed the connection") == 0u,
               r.error().message());
}

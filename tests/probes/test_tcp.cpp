#include <boost/test/unit_test.hpp>

#include <chrono>
#include <thread>

#include "probes/latency/latency_phases.h"
#include "probes/latency/peer_query.h"
#include "probes/wire/tcp.h"
#include "tests/support/loopback_listener.h"

BOOST_AUTO_TEST_SUITE(test_tcp)

using namespace rh;

using test::listen_on_free_port;

namespace {

/// A connection to the listener `l` on `port` and its accepted end: (client, server).
std::pair<tcp::Socket, tcp::Socket> connected(const tcp::Socket& l, std::uint16_t port) {
    auto c = tcp::connect({"127.0.0.1", port}, tcp::deadline_in(1000));
    BOOST_REQUIRE(c.ok());
    std::string name;
    auto a = tcp::accept(l, 1000, name);
    BOOST_REQUIRE(a.ok());
    BOOST_REQUIRE(a->has_value());
    return {std::move(*c), std::move(**a)};
}

}  // namespace

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
    BOOST_TEST(tcp::closed_between_messages(r.error()));  // nothing of a frame had come
}

BOOST_AUTO_TEST_CASE(a_frame_cut_after_its_header_is_no_close_between_messages) {
    // The responder, handshake and incast code end a session quietly on a close between
    // messages; a peer gone mid-frame must still be an error they report.
    const auto [l, port] = listen_on_free_port();
    auto [c, a] = connected(l, port);
    oob::Message m;
    m.type = oob::Type::phase_done;
    const oob::Frame f = oob::encode(m);
    BOOST_REQUIRE(f.size() > oob::kHeaderSize);
    BOOST_REQUIRE(
        tcp::send_all(a, std::span(f).first(oob::kHeaderSize), tcp::deadline_in(1000)).ok());
    a = tcp::Socket();  // the server's end closes
    auto r = tcp::recv_msg(c, tcp::deadline_in(1000));
    BOOST_REQUIRE(!r.ok());
    BOOST_TEST(r.error().detail.find("peer closed the connection after 0 of") == 0u,
               r.error().detail);  // the body's read got none of its bytes ...
    BOOST_TEST(!tcp::closed_between_messages(r.error()));  // ... but the frame had begun
}

BOOST_AUTO_TEST_CASE(old_protocol_peer_is_refused_by_name_with_both_versions) {
    // A peer of protocol 2 (FNV-1a slots) answers; its frame must be refused, not misread, and
    // the error must say who and which versions (slots would fail every checksum otherwise).
    const auto [l, port] = listen_on_free_port();
    auto [c, a] = connected(l, port);
    oob::Message m;
    m.type = oob::Type::query_reply;
    oob::Frame old = oob::encode(m);
    old[4] = std::byte{0};
    old[5] = std::byte{2};
    BOOST_REQUIRE(tcp::send_all(a, old, tcp::deadline_in(1000)).ok());
    auto r = tcp::recv_msg(c, tcp::deadline_in(1000));
    BOOST_REQUIRE(!r.ok());
    const std::string e = r.error().message();
    BOOST_TEST(e.find("peer 127.0.0.1:" + std::to_string(port)) != std::string::npos, e);
    BOOST_TEST(e.find("peer speaks protocol version 2") != std::string::npos, e);
    BOOST_TEST(e.find("this build speaks 4") != std::string::npos, e);
    BOOST_TEST(e.find("upgrade rocehealth on the peer") != std::string::npos, e);

    // A protocol-3 incast peer's json frame likewise (new connection: the refused frame's body
    // is still unread on the old one).
    auto [c2, a2] = connected(l, port);
    auto j = oob::encode_json({{"cmd", "stream_ready"}});
    BOOST_REQUIRE(j.ok());
    (*j)[5] = std::byte{3};
    BOOST_REQUIRE(tcp::send_all(a2, *j, tcp::deadline_in(1000)).ok());
    auto r2 = tcp::recv_any(c2, tcp::deadline_in(1000));
    BOOST_REQUIRE(!r2.ok());
    const std::string e2 = r2.error().message();
    BOOST_TEST(e2.find("peer 127.0.0.1:" + std::to_string(port)) != std::string::npos, e2);
    BOOST_TEST(
        e2.find("protocol version 3 in a json frame, this build speaks 6") != std::string::npos,
        e2);
}

BOOST_AUTO_TEST_SUITE_END()  // test_tcp

#define BOOST_TEST_MODULE tcp
#include <boost/test/unit_test.hpp>

#include <chrono>

#include "probes/peer_query.h"
#include "probes/tcp.h"

using namespace rh;

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
    std::uint16_t port = 0;
    for (std::uint16_t p = 47001; p < 47100 && !port; ++p)
        if (tcp::listen("127.0.0.1", p).ok()) port = p;
    BOOST_REQUIRE(port != 0);
    auto r = query_peer("127.0.0.1:" + std::to_string(port), 1000);
    BOOST_REQUIRE(!r.ok());
    BOOST_TEST(r.error().message() ==
               "cannot reach responder at 127.0.0.1:" + std::to_string(port) + ": Connection refused");
}

BOOST_AUTO_TEST_CASE(silent_peer_times_out_within_deadline) {
    auto l = tcp::listen("127.0.0.1", 47123);
    BOOST_REQUIRE(l.ok());  // listens (kernel completes the handshake) but never answers
    const auto t0 = std::chrono::steady_clock::now();
    auto r = query_peer("127.0.0.1:47123", 300);
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::steady_clock::now() - t0).count();
    BOOST_REQUIRE(!r.ok());
    BOOST_TEST(r.error().message().find("timed out") != std::string::npos, r.error().message());
    BOOST_TEST(ms < 1500);
}

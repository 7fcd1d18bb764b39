// A TCP listener on 127.0.0.1 at a port the kernel picks, for unit tests (header-only). Fixed
// ports collide when ctest runs tests in parallel (-j2 in tests/run.sh).
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdint>
#include <string>
#include <utility>

#include <boost/test/unit_test.hpp>

#include "probes/wire/tcp.h"

namespace rh::test {

/// The listening socket and its port (host order). Fails the test when it cannot listen.
inline std::pair<tcp::Socket, std::uint16_t> listen_on_free_port() {
    auto l = tcp::listen("127.0.0.1", 0);
    BOOST_REQUIRE_MESSAGE(l.ok(), (l.ok() ? "" : l.error().message()));
    sockaddr_in a{};
    socklen_t len = sizeof a;
    BOOST_REQUIRE(::getsockname(l->fd(), reinterpret_cast<sockaddr*>(&a), &len) == 0);
    return {std::move(*l), ntohs(a.sin_port)};
}

/// A connected TCP pair on loopback: {client, server}, the client's peer name "peer
/// 127.0.0.1:PORT" and the server's the client's address, as tcp::connect and tcp::accept set them.
inline std::pair<tcp::Socket, tcp::Socket> loopback_pair() {
    auto [l, port] = listen_on_free_port();
    auto c = tcp::connect({"127.0.0.1", port}, tcp::deadline_in(2000));
    BOOST_REQUIRE_MESSAGE(c.ok(), (c.ok() ? "" : c.error().message()));
    std::string name;
    auto a = tcp::accept(l, 2000, name);
    BOOST_REQUIRE(a.ok() && a->has_value());
    return {std::move(*c), std::move(**a)};
}

}  // namespace rh::test

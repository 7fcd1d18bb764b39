// A test client on loopback for the agent's HTTP tests (test_http_gate, test_http_server): a
// socket bound to a chosen source address (127.0.0.0/8 gives many "client addresses" on one
// host), connected to 127.0.0.1:PORT.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <boost/test/unit_test.hpp>
#include <cstdint>

namespace rh::test {

/// A connected socket from `source` (an IPv4 loopback address) to 127.0.0.1:`port`; the test
/// fails when it cannot bind or connect.
inline int connect_from(const char* source, int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    ::inet_pton(AF_INET, source, &a.sin_addr);
    BOOST_REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    ::inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    BOOST_REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    return fd;
}

}  // namespace rh::test

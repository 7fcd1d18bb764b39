// Readiness for systemd (agent/daemon/sd_notify.h): the state arrives as one datagram on the
// socket $NOTIFY_SOCKET names (a path or "@abstract"), and without NOTIFY_SOCKET nothing is sent.
#include <boost/test/unit_test.hpp>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "agent/daemon/sd_notify.h"

BOOST_AUTO_TEST_SUITE(test_agent_sd_notify)

namespace {

/// A datagram socket bound to `name` (a path, or "@name": abstract), as systemd's.
struct Listener {
    int fd = -1;
    explicit Listener(const std::string& name) {
        fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        sockaddr_un a{};
        a.sun_family = AF_UNIX;
        std::memcpy(a.sun_path, name.data(), name.size());
        if (name[0] == '@') a.sun_path[0] = '\0';
        const auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + name.size() +
                                                (name[0] == '@' ? 0 : 1));
        BOOST_REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), len) == 0);
    }
    ~Listener() { ::close(fd); }
    std::string receive() const {
        char buf[512];
        const auto n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
        return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
    }
};

}  // namespace

BOOST_AUTO_TEST_CASE(state_reaches_a_path_socket) {
    const auto dir =
        std::filesystem::temp_directory_path() / ("rh-sdnotify-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::string path = (dir / "notify").string();
    Listener l(path);
    ::setenv("NOTIFY_SOCKET", path.c_str(), 1);
    BOOST_TEST(rh::agent::sd_notify_state("READY=1\nSTATUS=collecting from 8 RDMA device(s)"));
    BOOST_TEST(l.receive() == "READY=1\nSTATUS=collecting from 8 RDMA device(s)");
    std::filesystem::remove_all(dir);
}

BOOST_AUTO_TEST_CASE(state_reaches_an_abstract_socket) {
    const std::string name = "@rh-sdnotify-" + std::to_string(::getpid());
    Listener l(name);
    ::setenv("NOTIFY_SOCKET", name.c_str(), 1);
    BOOST_TEST(rh::agent::sd_notify_state("STOPPING=1"));
    BOOST_TEST(l.receive() == "STOPPING=1");
}

BOOST_AUTO_TEST_CASE(nothing_without_notify_socket) {
    ::unsetenv("NOTIFY_SOCKET");
    BOOST_TEST(!rh::agent::sd_notify_state("READY=1"));
    ::setenv("NOTIFY_SOCKET", "/nonexistent/notify", 1);  // systemd gone: false, no crash
    BOOST_TEST(!rh::agent::sd_notify_state("READY=1"));
}

BOOST_AUTO_TEST_SUITE_END()  // test_agent_sd_notify

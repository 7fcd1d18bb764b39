#include "agent/daemon/sd_notify.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>

namespace rh::agent {

bool sd_notify_state(const std::string& state) {
    const char* env = std::getenv("NOTIFY_SOCKET");
    if (env == nullptr || env[0] == '\0') return false;
    const std::string path = env;
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (path.size() >= sizeof addr.sun_path) return false;
    std::memcpy(addr.sun_path, path.data(), path.size());
    if (path[0] == '@') addr.sun_path[0] = '\0';  // abstract namespace
    const auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + path.size() +
                                            (path[0] == '@' ? 0 : 1));
    const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    const auto sent = ::sendto(fd, state.data(), state.size(), MSG_NOSIGNAL,
                               reinterpret_cast<const sockaddr*>(&addr), len);
    ::close(fd);
    return sent == static_cast<ssize_t>(state.size());
}

}  // namespace rh::agent

#include "probes/fault/link_guard.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "probes/fault/link_admin.h"

extern char** environ;

namespace rh {

namespace {

constexpr int kGuardFd = 3;
constexpr char kRestored = 'r';
volatile sig_atomic_t g_term = 0;

void on_term(int) {
    g_term = 1;
}

}  // namespace

Result<LinkGuard> LinkGuard::start(const std::string& netdev, int deadline_ms) {
    int p[2];
    if (::pipe2(p, O_CLOEXEC) != 0) return Error{"pipe2", "link guard for " + netdev, errno, {}};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, p[0], kGuardFd);  // dup2 clears O_CLOEXEC on fd 3
    const std::string deadline = std::to_string(deadline_ms);
    char* argv[] = {const_cast<char*>("rocehealth"), const_cast<char*>("_link-guard"),
                    const_cast<char*>(netdev.c_str()), const_cast<char*>(deadline.c_str()),
                    nullptr};
    // Its own session: a signal to the responder's process group (a shell's job control, a
    // supervisor killing the group) does not reach the guard.
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
    pid_t pid = -1;
    const int e = ::posix_spawn(&pid, "/proc/self/exe", &fa, &attr, argv, environ);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&fa);
    ::close(p[0]);
    if (e != 0) {
        ::close(p[1]);
        return Error{"posix_spawn", "link guard for " + netdev, e, {}};
    }
    return LinkGuard(pid, p[1]);
}

LinkGuard::LinkGuard(LinkGuard&& o) noexcept : pid_(o.pid_), fd_(o.fd_) {
    o.pid_ = -1;
    o.fd_ = -1;
}

LinkGuard::~LinkGuard() {
    finish(false);
}

void LinkGuard::disarm() {
    finish(true);
}

void LinkGuard::finish(bool restored) {
    if (fd_ >= 0) {
        if (restored) (void)!::write(fd_, &kRestored, 1);
        ::close(fd_);  // EOF: without the byte, the guard sets the link up now
        fd_ = -1;
    }
    if (pid_ > 0) {
        int st = 0;
        while (::waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
        }
        pid_ = -1;
    }
}

int run_link_guard(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "rocehealth _link-guard: internal command (NETDEV DEADLINE_MS)\n");
        return 2;
    }
    const std::string netdev = argv[2];
    const int deadline_ms = std::atoi(argv[3]);
    struct sigaction sa {};
    sa.sa_handler = on_term;  // no SA_RESTART: poll returns EINTR
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, nullptr);
    sigaction(SIGINT, &sa, nullptr);
    pollfd pfd{kGuardFd, POLLIN, 0};
    const int r = ::poll(&pfd, 1, deadline_ms);
    char c = 0;
    if (r == 1 && !g_term && ::read(kGuardFd, &c, 1) == 1 && c == kRestored) return 0;
    // EOF without the byte (the responder died), the deadline, or a signal: restore the link.
    auto s = set_link_admin_up(netdev, true);
    std::fprintf(stderr, "rocehealth _link-guard: %s; set %s up: %s\n",
                 r == 0 ? "deadline passed" : (g_term ? "signalled" : "the responder went away"),
                 netdev.c_str(), s ? "done" : s.error().message().c_str());
    return s ? 0 : 1;
}

}  // namespace rh

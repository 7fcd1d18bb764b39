#include "collectors/command_output.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>

extern char** environ;

namespace rh {

namespace {

constexpr std::size_t kMaxStderr = 4096;

/// Both ends of a pipe, closed when the owner goes.
struct Pipe {
    int fd[2] = {-1, -1};
    ~Pipe() {
        for (int f : fd)
            if (f >= 0) ::close(f);
    }
    void close_end(int i) {
        if (fd[i] >= 0) ::close(fd[i]);
        fd[i] = -1;
    }
};

std::string first_line(const std::string& s) {
    const auto end = s.find('\n');
    return s.substr(0, end);
}

/// Starts argv with stdin /dev/null and stdout/stderr on the write ends of `out` and `err`.
Result<pid_t> spawn(const std::vector<std::string>& argv, const Pipe& out, const Pipe& err) {
    const std::string& prog = argv[0];
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, out.fd[1], 1);
    posix_spawn_file_actions_adddup2(&fa, err.fd[1], 2);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = -1;
    const int e = ::posix_spawnp(&pid, prog.c_str(), &fa, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (e != 0)
        return Error{"run", prog, e,
                     e == ENOENT
                         ? (prog.find('/') == std::string::npos ? "not found (looked up in PATH)"
                                                                : "not found")
                         : ""};
    return pid;
}

/// What the child wrote, and why the reading stopped early, if it did.
struct Output {
    std::string stdout_text, stderr_text;
    bool too_big = false, timed_out = false;
};

/// Reads the child's stdout (up to `max_bytes`) and stderr (up to kMaxStderr) until both end,
/// the deadline passes or stdout overflows.
Output read_output(int out_fd, int err_fd, double timeout_s, std::size_t max_bytes) {
    Output o;
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(timeout_s));
    pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
    while (fds[0].fd >= 0 || fds[1].fd >= 0) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            o.timed_out = true;
            break;
        }
        const int n = ::poll(fds, 2, static_cast<int>(left.count()));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) break;
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            char buf[4096];
            const ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
            if (got <= 0) {
                fds[i].fd = -1;  // EOF (the Pipe closes it)
                continue;
            }
            std::string& to = i == 0 ? o.stdout_text : o.stderr_text;
            const std::size_t cap = i == 0 ? max_bytes : kMaxStderr;
            if (to.size() + static_cast<std::size_t>(got) > cap) {
                if (i == 0) o.too_big = true;
                to.append(buf, std::min(cap - to.size(), static_cast<std::size_t>(got)));
            } else {
                to.append(buf, static_cast<std::size_t>(got));
            }
        }
        if (o.too_big) break;
    }
    return o;
}

/// The child's stdout, or why there is none: the deadline, the size bound, a signal or a
/// non-zero exit status (with the first line of its stderr).
Result<std::string> outcome(const std::string& prog, Output o, int status, double timeout_s,
                            std::size_t max_bytes) {
    if (o.timed_out) {
        char secs[32];
        std::snprintf(secs, sizeof secs, "%g", timeout_s);
        return Error{"run", prog, 0, std::string("no answer within ") + secs + " s (killed)"};
    }
    if (o.too_big)
        return Error{"run", prog, 0,
                     "more than " + std::to_string(max_bytes) + " bytes of output (killed)"};
    if (WIFSIGNALED(status))
        return Error{"run", prog, 0, "killed by signal " + std::to_string(WTERMSIG(status))};
    if (WEXITSTATUS(status) != 0)
        return Error{"run", prog, 0,
                     "exit status " + std::to_string(WEXITSTATUS(status)) +
                         (o.stderr_text.empty() ? "" : ": " + first_line(o.stderr_text))};
    return std::move(o.stdout_text);
}

}  // namespace

Result<std::string> command_output(const std::vector<std::string>& argv, double timeout_s,
                                   std::size_t max_bytes) {
    if (argv.empty()) return Error{"run", "(no program)", EINVAL, {}};
    const std::string& prog = argv[0];
    Pipe out, err;
    if (::pipe2(out.fd, O_CLOEXEC) != 0 || ::pipe2(err.fd, O_CLOEXEC) != 0)
        return errno_error("run", prog, "pipe");
    const Result<pid_t> pid = spawn(argv, out, err);
    if (!pid) return pid.error();
    out.close_end(1);
    err.close_end(1);
    Output o = read_output(out.fd[0], err.fd[0], timeout_s, max_bytes);
    if (o.timed_out || o.too_big) ::kill(*pid, SIGKILL);
    int status = 0;
    while (::waitpid(*pid, &status, 0) < 0 && errno == EINTR) {
    }
    return outcome(prog, std::move(o), status, timeout_s, max_bytes);
}

}  // namespace rh

// A safety net for the acceptance `fault` stage (probes/responder/control_fault.h): before a host
// takes its own RDMA link down, it starts a small separate process (`rocehealth _link-guard`, this
// binary re-executed) that sets the link up again unless told, through a pipe, that the link was
// restored. So the link comes back even when the responder dies while it is down (SIGKILL, a
// crash, the OOM killer) or hangs past the deadline; a SIGTERM to the guard (systemd stopping
// the unit's processes) also restores the link first. The guard restores the link only: routes
// and addresses the down removed (probes/fault/net_setup.h) are put back by the responder, which
// the guard acting means is gone or stuck.
#pragma once

#include <sys/types.h>

#include <string>

#include "core/result.h"

namespace rh {

class LinkGuard {
  public:
    /// Starts the guard for `netdev`: it sets the link up after `deadline_ms` (or at once when
    /// this process goes away) unless disarm() was called. Error: pipe/spawn failed (then the
    /// fault must not be applied).
    static Result<LinkGuard> start(const std::string& netdev, int deadline_ms);
    LinkGuard(LinkGuard&& o) noexcept;
    LinkGuard& operator=(LinkGuard&&) = delete;
    LinkGuard(const LinkGuard&) = delete;
    LinkGuard& operator=(const LinkGuard&) = delete;
    /// Not disarmed: the guard restores the link at once.
    ~LinkGuard();

    /// The link is restored: the guard exits without touching it. Waits for it.
    void disarm();

  private:
    LinkGuard(pid_t pid, int fd) : pid_(pid), fd_(fd) {}
    void finish(bool restored);
    pid_t pid_ = -1;
    int fd_ = -1;  ///< write end of the pipe
};

/// The guard process: `rocehealth _link-guard NETDEV DEADLINE_MS` with the pipe's read end on
/// fd 3. Reads one byte 'r' (restored: exit 0 untouched); on EOF without it, the deadline or
/// SIGTERM/SIGINT, sets NETDEV up (exit 0 when that worked, 1 otherwise, with a stderr line).
int run_link_guard(int argc, char** argv);

}  // namespace rh

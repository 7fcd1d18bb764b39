// What taking a netdev administratively down destroys and the kernel does not bring back on
// its own: routes through it (every table; static, policy-routing or otherwise configured ones)
// and its IPv6 addresses (removed on down unless keep_addr_on_down). The acceptance `fault`
// stage (probes/responder/control_fault.h) saves them before the link goes down and puts back what
// is missing once it is up, so a host's network setup survives the test; what could not be put back
// is reported, never silently lost.
#pragma once

#include <string>
#include <vector>

#include "collectors/netlink/nl_handles.h"
#include "core/result.h"

namespace rh {

/// The routes and addresses of one netdev, as rtnetlink listed them.
class NetSetup {
  public:
    /// Lists `netdev`'s configured addresses (IFA_F_PERMANENT: given by an administrator or a
    /// network manager, not autoconfigured) and the routes whose next hop leaves through it,
    /// in every table except `local`, except those the kernel derives itself (protocol
    /// kernel, router advertisements). Error: netlink failed (then the fault must not run).
    static Result<NetSetup> save(const std::string& netdev);

    struct Restored {
        std::vector<std::string> restored;      ///< "route 10.200.0.0/24 via 10.99.0.11 table 254"
        std::vector<std::string> not_restored;  ///< the same, ": why"
    };
    /// Adds back every saved address, then every saved route, that is missing now (an object
    /// that exists is left alone). Call with the link up.
    Restored restore() const;

    std::size_t addresses() const { return addrs_.size(); }
    std::size_t routes() const { return routes_.size(); }

  private:
    std::string netdev_;
    nl::Cache addr_cache_, route_cache_;  ///< own the objects below
    std::vector<nl_object*> addrs_, routes_;
};

}  // namespace rh

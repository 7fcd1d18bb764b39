// Owner types for libnl handles (unique_ptr + deleter). nl_socket_free, nl_cache_free and
// rtnl_link_put may appear only here.
#pragma once

#include <memory>

#include <netlink/cache.h>
#include <netlink/route/link.h>
#include <netlink/socket.h>

namespace rh::nl {

struct SockDeleter {
    void operator()(nl_sock* s) const { nl_socket_free(s); }  // also closes the socket
};
struct CacheDeleter {
    void operator()(nl_cache* c) const { nl_cache_free(c); }
};
struct LinkDeleter {
    void operator()(rtnl_link* l) const { rtnl_link_put(l); }
};

using Sock = std::unique_ptr<nl_sock, SockDeleter>;
using Cache = std::unique_ptr<nl_cache, CacheDeleter>;
using Link = std::unique_ptr<rtnl_link, LinkDeleter>;

}  // namespace rh::nl

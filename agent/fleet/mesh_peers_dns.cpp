#include "agent/fleet/mesh_peers_dns.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>

#include <memory>
#include <set>

#include "probes/wire/tcp.h"

namespace rh {

namespace {

struct AddrinfoFree {
    void operator()(addrinfo* a) const { freeaddrinfo(a); }
};

std::string numeric(const sockaddr* sa) {
    char buf[INET6_ADDRSTRLEN] = {};
    const void* src =
        sa->sa_family == AF_INET
            ? static_cast<const void*>(&reinterpret_cast<const sockaddr_in*>(sa)->sin_addr)
            : static_cast<const void*>(&reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr);
    return inet_ntop(sa->sa_family, src, buf, sizeof buf) ? std::string(buf) : std::string();
}

}  // namespace

Result<std::vector<std::string>> resolve_addresses(const std::string& name) {
    if (name.empty()) return Error{"mesh.peers_dns", "(empty name)", 0, "no name to resolve"};
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* raw = nullptr;
    const int rc = getaddrinfo(name.c_str(), nullptr, &hints, &raw);
    std::unique_ptr<addrinfo, AddrinfoFree> list(raw);
    if (rc != 0) {
        const std::string why = gai_strerror(rc);
        return Error{"mesh.peers_dns", name, 0,
                     rc == EAI_NONAME ? "no such name (" + why + ")" : why};
    }
    std::set<std::string> seen;
    for (const addrinfo* a = list.get(); a; a = a->ai_next) {
        if (a->ai_family != AF_INET && a->ai_family != AF_INET6) continue;
        if (std::string text = numeric(a->ai_addr); !text.empty()) seen.insert(std::move(text));
        if (seen.size() > kMaxDnsFleetHosts)
            return Error{"mesh.peers_dns", name, 0,
                         "more than " + std::to_string(kMaxDnsFleetHosts) + " addresses"};
    }
    if (seen.empty()) return Error{"mesh.peers_dns", name, 0, "no IPv4 or IPv6 address"};
    return std::vector<std::string>(seen.begin(), seen.end());
}

std::vector<FleetHost> fleet_from_addresses(const std::vector<std::string>& addresses,
                                            std::uint16_t port) {
    std::vector<FleetHost> out;
    out.reserve(addresses.size());
    for (const std::string& a : addresses)
        out.push_back(FleetHost{a, tcp::HostPort{a, port}.str(), kUnknownTor});
    return out;
}

}  // namespace rh

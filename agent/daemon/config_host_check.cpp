#include "agent/daemon/config_host_check.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "core/hostname.h"
#include "core/sysfs.h"
#include "probes/verbs/device_select.h"
#include "probes/wire/tcp.h"

namespace rh::agent {

namespace {

/// "" when a TCP socket binds `host` (an IP literal) on a free port, else the reason.
std::string bind_problem(const std::string& host) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICHOST | AI_PASSIVE;
    addrinfo* res = nullptr;
    if (const int rc = getaddrinfo(host.c_str(), "0", &hints, &res); rc != 0)
        return gai_strerror(rc);
    std::string problem;
    const int fd = socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC, res->ai_protocol);
    if (fd < 0)
        problem = std::strerror(errno);
    else if (bind(fd, res->ai_addr, res->ai_addrlen) != 0)
        problem = std::strerror(errno);
    if (fd >= 0) close(fd);
    freeaddrinfo(res);
    return problem;
}

/// "" unless `host` (an IP literal) is a multicast or broadcast address: Linux binds a TCP
/// socket there without complaint, and it never takes a connection.
std::string listen_cast_problem(const std::string& host) {
    in_addr v4{};
    in6_addr v6{};
    if (inet_pton(AF_INET6, host.c_str(), &v6) == 1)
        return v6.s6_addr[0] == 0xff ? host + " is a multicast address: TCP cannot listen there"
                                     : "";
    if (inet_pton(AF_INET, host.c_str(), &v4) != 1) return "";
    if (IN_MULTICAST(ntohl(v4.s_addr)))
        return host + " is a multicast address: TCP cannot listen there";
    if (v4.s_addr == INADDR_BROADCAST)
        return host + " is the broadcast address: TCP cannot listen there";
    ifaddrs* list = nullptr;
    if (getifaddrs(&list) != 0) return "";
    std::string problem;
    for (const ifaddrs* i = list; i && problem.empty(); i = i->ifa_next)
        if (i->ifa_broadaddr && (i->ifa_flags & IFF_BROADCAST) && i->ifa_addr &&
            i->ifa_addr->sa_family == AF_INET &&
            reinterpret_cast<const sockaddr_in*>(i->ifa_broadaddr)->sin_addr.s_addr == v4.s_addr)
            problem =
                host + " is the broadcast address of " + i->ifa_name + ": TCP cannot listen there";
    freeifaddrs(list);
    return problem;
}

/// "" when `address` (HOST or HOST:PORT; HOST a name or an IP literal) is one of this host's:
/// an address literal binds, or one of a name's addresses does. Else why not.
std::string own_address_problem(const std::string& address) {
    auto hp = tcp::parse_host_port(address, 18520);
    if (!hp) return hp.error().message();
    addrinfo hints{};
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    if (const int rc = getaddrinfo(hp->host.c_str(), nullptr, &hints, &res); rc != 0)
        return "cannot resolve " + hp->host + ": " + gai_strerror(rc);
    std::string first_problem;
    bool own = false;
    for (const addrinfo* a = res; a && !own; a = a->ai_next) {
        char text[INET6_ADDRSTRLEN] = {};
        const void* raw = a->ai_family == AF_INET
                              ? static_cast<const void*>(
                                    &reinterpret_cast<const sockaddr_in*>(a->ai_addr)->sin_addr)
                              : &reinterpret_cast<const sockaddr_in6*>(a->ai_addr)->sin6_addr;
        if (!inet_ntop(a->ai_family, raw, text, sizeof text)) continue;
        const std::string p = bind_problem(text);
        own = p.empty();
        if (!own && first_problem.empty()) first_problem = std::string(text) + ": " + p;
    }
    freeaddrinfo(res);
    return own ? "" : "not an address of this host (" + first_problem + ")";
}

/// "" when <sysfs_root>/class/infiniband/<device> exists, else the sentence naming what does.
std::string device_problem(const std::string& sysfs_root, const std::string& device) {
    const std::filesystem::path dir = std::filesystem::path(sysfs_root) / "class" / "infiniband";
    std::error_code ec;
    if (std::filesystem::exists(dir / device, ec)) return "";
    std::vector<std::string> present;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec))
        present.push_back(e.path().filename().string());
    std::sort(present.begin(), present.end());
    std::string list;
    for (const std::string& p : present) list += (list.empty() ? "" : ", ") + p;
    return "no RDMA device " + device + " under " + dir.string() +
           " (present: " + (list.empty() ? "none" : list) + ")";
}

}  // namespace

Status check_config_on_host(const AgentConfig& cfg) {
    std::vector<std::string> problems;
    const auto address = [&](const std::string& field, const std::string& host) {
        if (const std::string p = listen_cast_problem(host); !p.empty())
            problems.push_back(field + ": " + p + "; give one of this host's addresses");
        else if (const std::string b = bind_problem(host); !b.empty())
            problems.push_back(field + ": cannot bind " + host + " on this host: " + b);
    };
    address("http.listen", cfg.http.listen_host);
    if (cfg.responder.enabled) address("responder.listen", cfg.responder.listen);
    const auto device = [&](const std::string& field, const std::string& name) {
        if (name.empty()) return true;
        const std::string p = device_problem(cfg.sysfs_root, name);
        if (!p.empty()) problems.push_back(field + ": " + p);
        return p.empty();
    };
    device("device", cfg.device);
    // The responder serves from a device with an ACTIVE Ethernet port and a GID (it picks as
    // it will at start); without one it cannot start, so the agent would run without it.
    if (device("responder.device", cfg.responder.device) && cfg.responder.enabled)
        if (auto p = choose_port(SysfsRoot(cfg.sysfs_root), cfg.responder.device,
                                 cfg.responder.gid_index);
            !p)
            problems.push_back("responder.enabled: true, but this host has no port to serve: " +
                               p.error().message());
    // Where peers reach this host must be this host: else they probe another one.
    const std::string me = cfg.host.empty() ? host_name() : cfg.host;
    for (const FleetHost& h : cfg.mesh.fleet) {
        if (h.host != me) continue;
        const std::string where = "mesh.peers_file: this host (" + me + ") is listed at " +
                                  h.address + " in " + cfg.mesh.peers_file;
        const auto hp = tcp::parse_host_port(h.address, 18520);
        if (const std::string p = own_address_problem(h.address); !p.empty())
            problems.push_back(where + ", " + p);
        else if (hp && cfg.responder.enabled && hp->port != cfg.responder.port)
            problems.push_back(where + ", but responder.port is " +
                               std::to_string(cfg.responder.port));
    }
    if (!cfg.incast.receiver_address.empty())
        if (const std::string p = own_address_problem(cfg.incast.receiver_address); !p.empty())
            problems.push_back("incast.receiver_address: " + cfg.incast.receiver_address + " is " +
                               p);
    if (problems.empty()) return ok_status();
    std::string detail;
    for (const std::string& p : problems)  // one line each, as parse_agent_config's
        detail += (detail.empty() ? "" : "\n  ") + p;
    return Error{"config", cfg.source, 0, detail};
}

}  // namespace rh::agent

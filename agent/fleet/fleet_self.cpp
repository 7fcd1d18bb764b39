#include "agent/fleet/fleet_self.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>

#include <algorithm>
#include <cctype>

namespace rh::agent {

namespace {

bool iequals(const std::string& a, const std::string& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

/// "gpu07" is the first label of "gpu07.example.net".
bool first_label_of(const std::string& short_name, const std::string& fqdn) {
    return fqdn.size() > short_name.size() && fqdn[short_name.size()] == '.' &&
           iequals(short_name, fqdn.substr(0, short_name.size()));
}

}  // namespace

SelfIdentity local_identity(const std::string& host) {
    SelfIdentity me{host, {}};
    ifaddrs* list = nullptr;
    if (getifaddrs(&list) != 0) return me;
    for (const ifaddrs* a = list; a; a = a->ifa_next) {
        if (!a->ifa_addr) continue;
        char buf[INET6_ADDRSTRLEN] = {};
        const int family = a->ifa_addr->sa_family;
        const void* src = nullptr;
        if (family == AF_INET)
            src = &reinterpret_cast<const sockaddr_in*>(a->ifa_addr)->sin_addr;
        else if (family == AF_INET6)
            src = &reinterpret_cast<const sockaddr_in6*>(a->ifa_addr)->sin6_addr;
        if (src && inet_ntop(family, src, buf, sizeof buf)) me.addresses.insert(buf);
    }
    freeifaddrs(list);
    return me;
}

bool is_self_by_name(const std::string& fleet_host, const SelfIdentity& me) {
    if (me.host.empty()) return false;
    return iequals(fleet_host, me.host) || first_label_of(me.host, fleet_host) ||
           first_label_of(fleet_host, me.host);
}

bool is_self(const std::string& fleet_host, const SelfIdentity& me) {
    return me.addresses.count(fleet_host) || is_self_by_name(fleet_host, me);
}

Result<FleetAnswer> place_self(std::vector<FleetHost> fleet, const SelfIdentity& me,
                               const std::string& source) {
    std::sort(fleet.begin(), fleet.end(),
              [](const FleetHost& a, const FleetHost& b) { return a.host < b.host; });
    // By name first: a fleet that names this host by name means that entry, whatever other
    // entries hold one of its addresses (a test fleet of loopback addresses). Only without a
    // name match is it the first entry holding one of its addresses, and the others holding one
    // are dropped (a dual-stack host listed by both addresses).
    const bool by_name = std::any_of(fleet.begin(), fleet.end(), [&me](const FleetHost& h) {
        return is_self_by_name(h.host, me);
    });
    FleetAnswer out;
    for (FleetHost& h : fleet) {
        const bool mine = by_name ? is_self_by_name(h.host, me) : is_self(h.host, me);
        if (mine && !out.self.empty()) continue;  // this host again, by another name
        if (mine) out.self = h.host;
        out.without_tor += h.tor == kUnknownTor ? 1 : 0;
        out.fleet.push_back(std::move(h));
    }
    if (out.self.empty()) {
        std::string addrs;
        std::size_t n = 0;
        for (const std::string& a : me.addresses) {
            if (a == "127.0.0.1" || a == "::1") continue;
            if (n++ == 4) {
                addrs += ", ...";
                break;
            }
            addrs += (n > 1 ? ", " : "") + a;
        }
        return Error{"mesh fleet", source, 0,
                     "this host (" + me.host + (addrs.empty() ? "" : "; " + addrs) +
                         ") is not among its " + std::to_string(fleet.size()) + " hosts"};
    }
    return out;
}

}  // namespace rh::agent

#include "probes/responder/admission.h"

#include <arpa/inet.h>

#include <cstring>

namespace rh {

const char* to_string(Pool p) {
    switch (p) {
        case Pool::lobby:
            return "pre-auth";
        case Pool::auth:
            return "handshake";
        case Pool::probe:
            return "unauthenticated probe";
        case Pool::keyed:
            return "keyed";
    }
    return "?";
}

std::string address_group(const std::string& address) {
    const std::string a = address.substr(0, address.find('%'));
    in_addr v4{};
    if (::inet_pton(AF_INET, a.c_str(), &v4) == 1) return a;
    in6_addr v6{};
    if (::inet_pton(AF_INET6, a.c_str(), &v6) != 1) return address;
    char text[INET6_ADDRSTRLEN] = "";
    if (IN6_IS_ADDR_V4MAPPED(&v6)) {
        std::memcpy(&v4, &v6.s6_addr[12], 4);
        ::inet_ntop(AF_INET, &v4, text, sizeof text);
        return text;
    }
    std::memset(&v6.s6_addr[8], 0, 8);  // one host of IPv6 owns a /64 (SLAAC, privacy addresses)
    ::inet_ntop(AF_INET6, &v6, text, sizeof text);
    return std::string(text) + "/64";
}

Refusal Admission::check_locked(Pool to, const Counts& c, bool keeps_preauth_place) const {
    switch (to) {
        case Pool::lobby:
        case Pool::auth:
            if (!keeps_preauth_place && c.preauth >= limits_.preauth_per_address)
                return Refusal::address_cap;
            return total(to) >= (to == Pool::lobby ? limits_.lobby : limits_.auth)
                       ? Refusal::pool_full
                       : Refusal::none;
        case Pool::probe:
            if (c.probe >= limits_.probe_per_address) return Refusal::address_cap;
            return total(to) >= limits_.probe ? Refusal::pool_full : Refusal::none;
        case Pool::keyed:
            return total(to) >= limits_.keyed ? Refusal::pool_full : Refusal::none;
    }
    return Refusal::pool_full;
}

void Admission::add_locked(Pool p, const std::string& group, int delta) {
    totals_[static_cast<std::size_t>(p)] += static_cast<unsigned>(delta);
    if (p == Pool::keyed) return;
    Counts& c = groups_[group];
    (p == Pool::probe ? c.probe : c.preauth) += static_cast<unsigned>(delta);
    if (c.preauth == 0 && c.probe == 0) groups_.erase(group);
}

Refusal Admission::enter(Pool to, const std::string& group) {
    std::lock_guard<std::mutex> l(mutex_);
    const auto it = groups_.find(group);
    const Refusal r = check_locked(to, it == groups_.end() ? Counts{} : it->second, false);
    if (r == Refusal::none) add_locked(to, group, +1);
    return r;
}

Refusal Admission::move(Pool from, Pool to, const std::string& group) {
    std::lock_guard<std::mutex> l(mutex_);
    const auto it = groups_.find(group);
    const Counts c = it == groups_.end() ? Counts{} : it->second;
    const bool keeps = from == Pool::lobby && to == Pool::auth;
    const Refusal r = check_locked(to, c, keeps);
    if (r != Refusal::none) return r;
    add_locked(to, group, +1);  // first, so the group's entry survives the leave
    add_locked(from, group, -1);
    return r;
}

void Admission::leave(Pool from, const std::string& group) {
    std::lock_guard<std::mutex> l(mutex_);
    add_locked(from, group, -1);
}

unsigned Admission::in(Pool p) const {
    std::lock_guard<std::mutex> l(mutex_);
    return total(p);
}

unsigned Admission::preauth_of(const std::string& group) const {
    std::lock_guard<std::mutex> l(mutex_);
    const auto it = groups_.find(group);
    return it == groups_.end() ? 0 : it->second.preauth;
}

std::size_t Admission::groups() const {
    std::lock_guard<std::mutex> l(mutex_);
    return groups_.size();
}

std::string Admission::refusal_text(Refusal r, Pool to) const {
    if (r == Refusal::address_cap) {
        const unsigned cap =
            to == Pool::probe ? limits_.probe_per_address : limits_.preauth_per_address;
        return "refused: at most " + std::to_string(cap) + " " +
               (to == Pool::probe ? "unauthenticated probe sessions"
                                  : "connections without the fabric key") +
               " per address";
    }
    const unsigned cap = to == Pool::lobby   ? limits_.lobby
                         : to == Pool::auth  ? limits_.auth
                         : to == Pool::probe ? limits_.probe
                                             : limits_.keyed;
    return "busy: " + std::to_string(cap) + " " + to_string(to) + " sessions in progress";
}

}  // namespace rh

#include "agent/daemon/incast_senders.h"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>

#include "agent/daemon/json_fields.h"
#include "probes/wire/tcp.h"

namespace rh::agent {

namespace {

/// An address as 16 bytes (IPv4 as IPv4-mapped IPv6, so one comparison serves both).
struct Addr {
    std::array<unsigned char, 16> b{};
    bool v4 = false;
};

std::optional<Addr> parse_addr(const std::string& s) {
    Addr a;
    unsigned char v4[4];
    if (::inet_pton(AF_INET, s.c_str(), v4) == 1) {
        a.v4 = true;
        a.b[10] = a.b[11] = 0xff;
        std::copy(v4, v4 + 4, a.b.begin() + 12);
        return a;
    }
    if (::inet_pton(AF_INET6, s.c_str(), a.b.data()) == 1) return a;
    return std::nullopt;
}

/// "10.0.0.0/24" -> network and prefix length in the 128-bit space; nullopt: not a CIDR block.
std::optional<std::pair<Addr, unsigned>> parse_cidr(const std::string& s) {
    const auto slash = s.find('/');
    if (slash == std::string::npos) return std::nullopt;
    const auto net = parse_addr(s.substr(0, slash));
    const std::string len = s.substr(slash + 1);
    if (!net || len.empty() || len.size() > 3 || len.find_first_not_of("0123456789") != len.npos)
        return std::nullopt;
    const unsigned bits = static_cast<unsigned>(std::stoul(len));
    if (bits > (net->v4 ? 32u : 128u)) return std::nullopt;
    return std::make_pair(*net, bits + (net->v4 ? 96u : 0u));
}

bool in_block(const Addr& a, const Addr& net, unsigned bits) {
    for (unsigned i = 0; i < bits; ++i) {
        const unsigned char mask = static_cast<unsigned char>(0x80u >> (i % 8));
        if ((a.b[i / 8] & mask) != (net.b[i / 8] & mask)) return false;
    }
    return true;
}

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

/// The host of HOST[:PORT] / [V6][:PORT], lower case; the text itself when it does not parse.
std::string host_of(const std::string& s) {
    auto hp = tcp::parse_host_port(s, 1);
    return lower(hp ? hp->host : s);
}

/// Same host: equal names, or equal addresses however written ("::ffff:10.0.0.2" = "10.0.0.2").
bool same_host(const std::string& a, const std::string& b) {
    if (a == b) return true;
    const auto x = parse_addr(a), y = parse_addr(b);
    return x && y && x->b == y->b;
}

}  // namespace

std::string check_allowed_sender(const std::string& entry) {
    if (entry.find('/') != std::string::npos)
        return parse_cidr(entry) ? ""
                                 : "expected a CIDR block such as \"10.0.1.0/24\" or "
                                   "\"fd00::/64\", got \"" +
                                       entry + "\"";
    if (parse_addr(entry) || is_host_port(entry)) return "";
    return "expected an IP address, a CIDR block or a host name, got \"" + entry + "\"";
}

std::string sender_refusal(const std::string& sender, const SenderFleet& fleet) {
    const std::string host = host_of(sender);
    for (const std::string& h : fleet.hosts)
        if (same_host(host, host_of(h))) return "";
    const auto addr = parse_addr(host);
    for (const std::string& e : fleet.allowed) {
        if (const auto block = parse_cidr(e)) {
            if (addr && in_block(*addr, block->first, block->second)) return "";
        } else if (same_host(host, lower(e))) {
            return "";
        }
    }
    return "sender \"" + sender +
           "\" is not in this agent's fleet (mesh.peers, mesh.peers_file, the fetched mesh fleet) "
           "nor in incast.allowed_senders: add it there (an address, a CIDR block or a name) to "
           "let incasts use it";
}

}  // namespace rh::agent

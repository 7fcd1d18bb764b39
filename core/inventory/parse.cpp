#include "core/inventory/parse.h"

#include <cstdlib>

#include "core/sysfs.h"

#include <cctype>
#include <charconv>
#include <ctime>

namespace rh {

namespace {

std::string_view trim(std::string_view s) {
    const auto b = s.find_first_not_of(" \t\n\r");
    if (b == std::string_view::npos) return {};
    const auto e = s.find_last_not_of(" \t\n\r");
    return s.substr(b, e - b + 1);
}

bool all_hex(std::string_view s) {
    for (char c : s)
        if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
    return !s.empty();
}

}  // namespace

std::optional<CodedState> parse_port_state(std::string_view text) {
    const std::string_view t = trim(text);
    const auto colon = t.find(':');
    if (colon == std::string_view::npos || colon == 0) return std::nullopt;
    const std::string_view num = t.substr(0, colon);
    unsigned v = 0;
    auto [ptr, ec] = std::from_chars(num.data(), num.data() + num.size(), v);
    if (ec != std::errc() || ptr != num.data() + num.size()) return std::nullopt;
    const std::string_view name = trim(t.substr(colon + 1));
    if (name.empty()) return std::nullopt;
    // Kernel names: "ACTIVE", "ACTIVE_DEFER", "Phy Test", "<unknown>". A '?' is a control
    // byte masked by read_text: junk.
    for (char c : name)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != ' ' && c != '_' && c != '-' &&
            c != '<' && c != '>')
            return std::nullopt;
    return CodedState{v, std::string(name)};
}

MtuParse check_mtu(std::uint64_t mtu) {
    if (mtu < kMtuMin || mtu > kMtuMax)
        return {std::nullopt, std::to_string(mtu) + " is not a valid MTU (" +
                                  std::to_string(kMtuMin) + ".." + std::to_string(kMtuMax) + ")"};
    return {static_cast<unsigned>(mtu), {}};
}

MtuParse parse_mtu(std::string_view text) {
    const std::string_view t = trim(text);
    std::uint64_t v = 0;
    auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v, 10);
    if (t.empty() || ec != std::errc() || ptr != t.data() + t.size())
        return {std::nullopt, quote_value(t) + " is not a valid MTU (" + std::to_string(kMtuMin) +
                                  ".." + std::to_string(kMtuMax) + ")"};
    return check_mtu(v);
}

std::optional<double> parse_pcie_speed_gts(std::string_view text) {
    const std::string_view t = trim(text);
    double v = 0;
    auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v, std::chars_format::fixed);
    // "inf GT/s" and "nan GT/s" parse as numbers: no link runs faster than kMaxPcieGts.
    if (ec != std::errc() || ptr == t.data() || !(v > 0) || !(v <= kMaxPcieGts))
        return std::nullopt;
    if (ptr != t.data() + t.size() && *ptr != ' ') return std::nullopt;  // "1e400": not "1"
    return v;
}

std::optional<unsigned> parse_pcie_width(std::string_view text) {
    std::string_view t = trim(text);
    if (!t.empty() && (t.front() == 'x' || t.front() == 'X')) t.remove_prefix(1);
    unsigned v = 0;
    auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || ptr != t.data() + t.size() || t.empty() || v == 0) return std::nullopt;
    return v;
}

std::optional<int> parse_numa_node(std::string_view text) {
    const std::string_view t = trim(text);
    int v = 0;
    auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || ptr != t.data() + t.size() || t.empty()) return std::nullopt;
    return v;
}

bool is_pci_bdf(std::string_view n) {
    // dddd:bb:dd.f  (domain may be longer than 4 hex digits on some hosts, e.g. VMD "10000")
    const auto c1 = n.find(':');
    if (c1 == std::string_view::npos) return false;
    const auto c2 = n.find(':', c1 + 1);
    const auto dot = n.find('.', c1 + 1);
    if (c2 == std::string_view::npos || dot == std::string_view::npos || dot < c2) return false;
    const auto dom = n.substr(0, c1), bus = n.substr(c1 + 1, c2 - c1 - 1),
               dev = n.substr(c2 + 1, dot - c2 - 1), fn = n.substr(dot + 1);
    return dom.size() >= 4 && all_hex(dom) && bus.size() == 2 && all_hex(bus) && dev.size() == 2 &&
           all_hex(dev) && fn.size() == 1 && fn[0] >= '0' && fn[0] <= '7';
}

bool is_zero_gid(std::string_view gid) {
    const std::string_view t = trim(gid);
    if (t.empty()) return false;
    for (char c : t)
        if (c != '0' && c != ':') return false;
    return true;
}

std::optional<unsigned> ibv_mtu_to_bytes(int mtu_enum) {
    if (mtu_enum < 1 || mtu_enum > 5) return std::nullopt;
    return 128u << mtu_enum;
}

std::string utc_iso8601(std::chrono::system_clock::time_point t) {
    const std::time_t tt = std::chrono::system_clock::to_time_t(t);
    std::tm tm{};
    gmtime_r(&tt, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

std::optional<double> parse_port_rate_gbps(std::string_view rate) {
    const std::string s(rate);
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    // strtod takes "inf", "nan" and "1E6666" (inf): a rate must be a port's, 0 < v <= kMax.
    if (end == s.c_str() || !(v > 0) || !(v <= kMaxPortRateGbps)) return std::nullopt;
    std::string_view rest(end);
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    if (rest.substr(0, 6) != "Gb/sec") return std::nullopt;
    return v;
}

std::string port_state_name(unsigned code) {
    // include/rdma/ib_verbs.h enum ib_port_state, as drivers/infiniband/core/sysfs.c prints it
    static const char* const names[] = {"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"};
    return code < std::size(names) ? names[code] : "";
}

std::string phys_state_name(unsigned code) {
    // drivers/infiniband/core/sysfs.c phys_state_to_str()
    static const char* const names[] = {"",
                                        "Sleep",
                                        "Polling",
                                        "Disabled",
                                        "PortConfigurationTraining",
                                        "LinkUp",
                                        "LinkErrorRecovery",
                                        "Phy Test"};
    return code < std::size(names) ? names[code] : "";
}

}  // namespace rh

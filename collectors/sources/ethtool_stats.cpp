#include "collectors/sources/ethtool_stats.h"

#include <linux/ethtool.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/sysfs.h"

namespace rh {

namespace {

constexpr int kAttempts = 5;                   // string set changes tolerated per read
constexpr std::uint32_t kMaxStats = 1u << 16;  // sanity bound on a driver's count

std::string_view trim(std::string_view s) {
    while (!s.empty() &&
           (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\0'))
        s.remove_suffix(1);
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    return s;
}

// Command buffers as u64 arrays: aligned for the u64 payloads, sized in bytes by the caller.
using CmdBuf = std::vector<std::uint64_t>;
CmdBuf cmd_buf(std::size_t bytes) {
    return CmdBuf((bytes + 7) / 8, 0);
}
std::span<std::uint8_t> bytes_of(CmdBuf& b) {
    return {reinterpret_cast<std::uint8_t*>(b.data()), b.size() * 8};
}
template <typename T>
void put(CmdBuf& b, std::size_t off, T v) {
    std::memcpy(bytes_of(b).data() + off, &v, sizeof v);
}
template <typename T>
T get(CmdBuf& b, std::size_t off) {
    T v;
    std::memcpy(&v, bytes_of(b).data() + off, sizeof v);
    return v;
}

Error ioctl_error(const char* cmd, const std::string& ifname, int err) {
    return Error{std::string("SIOCETHTOOL ") + cmd, ifname, err, {}};
}

Result<std::uint32_t> stats_count(const std::string& ifname, const EthtoolIoctl& ioctl) {
    auto b = cmd_buf(offsetof(ethtool_sset_info, data) + sizeof(std::uint32_t));
    put<std::uint32_t>(b, offsetof(ethtool_sset_info, cmd), ETHTOOL_GSSET_INFO);
    put<std::uint64_t>(b, offsetof(ethtool_sset_info, sset_mask), 1ull << ETH_SS_STATS);
    if (int e = ioctl(bytes_of(b))) return ioctl_error("ETHTOOL_GSSET_INFO", ifname, e);
    if (!(get<std::uint64_t>(b, offsetof(ethtool_sset_info, sset_mask)) & (1ull << ETH_SS_STATS)))
        return std::uint32_t{0};  // driver has no ETH_SS_STATS set
    const auto n = get<std::uint32_t>(b, offsetof(ethtool_sset_info, data));
    if (n > kMaxStats)
        return Error{"SIOCETHTOOL ETHTOOL_GSSET_INFO", ifname, 0,
                     "implausible statistics count " + std::to_string(n)};
    return n;
}

std::uint32_t headroom(std::uint32_t n) {
    return n + n / 2 + 64;
}

// Names of exactly `n` stats, or an empty vector when the kernel's count was not `n`.
Result<std::vector<std::uint8_t>> names(const std::string& ifname, const EthtoolIoctl& ioctl,
                                        std::uint32_t n) {
    constexpr std::size_t hdr = offsetof(ethtool_gstrings, data);
    auto b = cmd_buf(hdr + std::size_t{headroom(n)} * kEthGstringLen);
    put<std::uint32_t>(b, offsetof(ethtool_gstrings, cmd), ETHTOOL_GSTRINGS);
    put<std::uint32_t>(b, offsetof(ethtool_gstrings, string_set), ETH_SS_STATS);
    put<std::uint32_t>(b, offsetof(ethtool_gstrings, len), n);
    if (int e = ioctl(bytes_of(b))) return ioctl_error("ETHTOOL_GSTRINGS", ifname, e);
    if (get<std::uint32_t>(b, offsetof(ethtool_gstrings, len)) != n)
        return std::vector<std::uint8_t>{};
    const auto* p = bytes_of(b).data() + hdr;
    return std::vector<std::uint8_t>(p, p + std::size_t{n} * kEthGstringLen);
}

// Values of exactly `n` stats, or an empty vector when the kernel's count was not `n`.
Result<std::vector<std::uint64_t>> values(const std::string& ifname, const EthtoolIoctl& ioctl,
                                          std::uint32_t n) {
    constexpr std::size_t hdr = offsetof(ethtool_stats, data);
    static_assert(hdr % 8 == 0);
    auto b = cmd_buf(hdr + std::size_t{headroom(n)} * 8);
    put<std::uint32_t>(b, offsetof(ethtool_stats, cmd), ETHTOOL_GSTATS);
    put<std::uint32_t>(b, offsetof(ethtool_stats, n_stats), n);
    if (int e = ioctl(bytes_of(b))) return ioctl_error("ETHTOOL_GSTATS", ifname, e);
    if (get<std::uint32_t>(b, offsetof(ethtool_stats, n_stats)) != n)
        return std::vector<std::uint64_t>{};
    return std::vector<std::uint64_t>(b.begin() + hdr / 8, b.begin() + hdr / 8 + n);
}

class ReplaySource final : public EthtoolStatsSource {
  public:
    explicit ReplaySource(std::filesystem::path dir) : dir_(std::move(dir)) {}
    Result<std::vector<Counter>> read(const std::string& ifname) override {
        const auto file = dir_ / (ifname + ".txt");
        std::ifstream in(file);
        if (!in) return errno_error("open", file.string());
        std::ostringstream text;
        text << in.rdbuf();
        return parse_ethtool_text(text.str(),
                                  "ethtool -S " + ifname + " (recording " + file.string() + ")");
    }

  private:
    std::filesystem::path dir_;
};

}  // namespace

std::vector<Counter> parse_ethtool_gstats(std::span<const std::uint8_t> names,
                                          std::span<const std::uint64_t> values,
                                          const std::string& source) {
    const std::size_t n = std::min(names.size() / kEthGstringLen, values.size());
    std::vector<Counter> out;
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        const auto* p = reinterpret_cast<const char*>(names.data() + i * kEthGstringLen);
        std::string_view name(p, strnlen(p, kEthGstringLen));
        out.push_back(Counter{std::string(trim(name)), values[i], source, {}});
    }
    return out;
}

std::vector<Counter> parse_ethtool_text(std::string_view text, const std::string& source) {
    std::vector<Counter> out;
    while (!text.empty()) {
        const auto nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
        const auto sep = line.rfind(": ");
        if (sep == std::string_view::npos) continue;  // "NIC statistics:" header, blank lines
        Counter c{std::string(trim(line.substr(0, sep))), std::nullopt, source, {}};
        if (c.name.empty()) continue;
        if (auto v = parse_u64(line.substr(sep + 2)))
            c.value = *v;
        else
            c.error = "not a u64: '" + std::string(trim(line.substr(sep + 2))) + "'";
        out.push_back(std::move(c));
    }
    return out;
}

Result<std::vector<Counter>> read_ethtool_stats(const std::string& ifname,
                                                const EthtoolIoctl& ioctl) {
    const std::string source = "ethtool -S " + ifname + " (SIOCETHTOOL)";
    for (int attempt = 0; attempt < kAttempts; ++attempt) {
        auto n = stats_count(ifname, ioctl);
        if (!n) return n.error();
        if (*n == 0) return std::vector<Counter>{};
        auto before = names(ifname, ioctl, *n);
        if (!before) return before.error();
        if (before->empty()) continue;  // set changed since GSSET_INFO
        auto vals = values(ifname, ioctl, *n);
        if (!vals) return vals.error();
        if (vals->empty()) continue;  // set changed since GSTRINGS
        // Same count but other names (e.g. PFC moved from one priority to another): the values
        // may belong to the new names, so read again.
        auto after = names(ifname, ioctl, *n);
        if (!after) return after.error();
        if (*after != *before) continue;
        return parse_ethtool_gstats(*before, *vals, source);
    }
    return Error{
        "SIOCETHTOOL", ifname, 0,
        "statistics string set changed during each of " + std::to_string(kAttempts) + " attempts"};
}

std::unique_ptr<EthtoolStatsSource> make_ethtool_replay_source(std::filesystem::path dir) {
    return std::make_unique<ReplaySource>(std::move(dir));
}

}  // namespace rh

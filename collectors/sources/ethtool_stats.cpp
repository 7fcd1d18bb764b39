#include "collectors/sources/ethtool_stats.h"

#include <linux/ethtool.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "core/sysfs.h"

namespace rh {

namespace {

constexpr int kAttempts = 5;                   // string set changes tolerated per read
constexpr std::uint32_t kMaxStats = 1u << 16;  // sanity bound on a driver's count

std::string_view trim_stat_name(std::string_view s) {
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

/// Recordings parsed by earlier passes (each discovery makes its own ReplaySource), by path,
/// reused while the file is the same: device, inode, size and mtime, with an mtime at least
/// kSettledS old (a rewrite within the filesystem's timestamp granularity keeps the mtime).
class RecordingCache {
  public:
    static constexpr long kSettledS = 2;
    static constexpr std::size_t kMaxFiles = 1024;

    static RecordingCache& shared() {
        static RecordingCache cache;
        return cache;
    }

    /// The counters of `file` as kept, or parsed by `parse` from its text (and kept).
    template <class Parse>
    Result<std::vector<Counter>> read(const std::string& file, Parse&& parse) {
        struct stat st {};
        if (::stat(file.c_str(), &st) != 0) return errno_error("open", file);
        const std::lock_guard lock(mu_);
        auto it = files_.find(file);
        if (it != files_.end() && it->second.same(st)) return it->second.counters;
        std::ifstream in(file);
        if (!in) return errno_error("open", file);
        std::ostringstream text;
        text << in.rdbuf();
        std::vector<Counter> counters = parse(text.str());
        if (::time(nullptr) - st.st_mtim.tv_sec < kSettledS) return counters;
        if (files_.size() >= kMaxFiles) files_.clear();
        files_[file] = Entry{st, counters};
        return counters;
    }

  private:
    struct Entry {
        struct stat st {};
        std::vector<Counter> counters;
        bool same(const struct stat& o) const {
            return st.st_dev == o.st_dev && st.st_ino == o.st_ino && st.st_size == o.st_size &&
                   st.st_mtim.tv_sec == o.st_mtim.tv_sec && st.st_mtim.tv_nsec == o.st_mtim.tv_nsec;
        }
    };
    std::mutex mu_;
    std::map<std::string, Entry> files_;
};

class ReplaySource final : public EthtoolStatsSource {
  public:
    explicit ReplaySource(std::filesystem::path dir) : dir_(std::move(dir)) {}
    Result<std::vector<Counter>> read(const std::string& ifname) override {
        const std::string file = (dir_ / (ifname + ".txt")).string();
        return RecordingCache::shared().read(file, [&](std::string_view text) {
            return parse_ethtool_text(text, "ethtool -S " + ifname + " (recording " + file + ")");
        });
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
        out.push_back(Counter{std::string(trim_stat_name(name)), values[i], source, {}});
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
        Counter c{std::string(trim_stat_name(line.substr(0, sep))), std::nullopt, source, {}};
        if (c.name.empty()) continue;
        if (auto v = parse_u64(line.substr(sep + 2)))
            c.value = *v;
        else
            c.error = "not a u64: '" + std::string(trim_stat_name(line.substr(sep + 2))) + "'";
        out.push_back(std::move(c));
    }
    return out;
}

Result<std::vector<Counter>> read_ethtool_stats(const std::string& ifname,
                                                const EthtoolIoctl& ioctl,
                                                std::vector<std::uint8_t>* known_names) {
    const std::string source = "ethtool -S " + ifname + " (SIOCETHTOOL)";
    std::vector<std::uint8_t> unused;
    std::vector<std::uint8_t>& known = known_names ? *known_names : unused;
    for (int attempt = 0; attempt < kAttempts; ++attempt) {
        auto n = stats_count(ifname, ioctl);
        if (!n) return n.error();
        if (*n == 0) return std::vector<Counter>{};
        if (known.size() != std::size_t{*n} * kEthGstringLen) {
            auto before = names(ifname, ioctl, *n);
            if (!before) return before.error();
            if (before->empty()) continue;  // set changed since GSSET_INFO
            known = std::move(*before);
        }
        auto vals = values(ifname, ioctl, *n);
        if (!vals) return vals.error();
        if (vals->empty()) continue;  // set changed since GSTRINGS
        // Same count but other names (e.g. PFC moved from one priority to another): the values
        // may belong to the new names, so read again.
        auto after = names(ifname, ioctl, *n);
        if (!after) return after.error();
        if (*after != known) {
            known.clear();
            continue;
        }
        return parse_ethtool_gstats(known, *vals, source);
    }
    known.clear();
    return Error{
        "SIOCETHTOOL", ifname, 0,
        "statistics string set changed during each of " + std::to_string(kAttempts) + " attempts"};
}

std::unique_ptr<EthtoolStatsSource> make_ethtool_replay_source(std::filesystem::path dir) {
    return std::make_unique<ReplaySource>(std::move(dir));
}

}  // namespace rh

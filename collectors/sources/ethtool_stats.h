// `ethtool -S` driver statistics of a netdev. One interface, two implementations: the
// SIOCETHTOOL ioctl (live host, ethtool_ioctl.cpp) and a recorded `ethtool -S <if>` text output
// (fixtures). The ioctl protocol itself runs over an injectable call (EthtoolIoctl), so tests
// can play a kernel whose string set changes between GSTRINGS and GSTATS.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/inventory/inventory.h"
#include "core/result.h"

namespace rh {

class EthtoolStatsSource {
  public:
    virtual ~EthtoolStatsSource() = default;
    /// Counters in driver order, names trimmed. Error (with errno, ENOENT for "no such
    /// recording") when the interface cannot be read.
    virtual Result<std::vector<Counter>> read(const std::string& ifname) = 0;
};

/// SIOCETHTOOL on one AF_INET (else AF_NETLINK) datagram socket, opened on first use and reused
/// for every interface. Counter::source is "ethtool -S <if> (SIOCETHTOOL)".
std::unique_ptr<EthtoolStatsSource> make_ethtool_ioctl_source();
/// Reads `<dir>/<ifname>.txt`, a recorded `ethtool -S <ifname>` output. A recording parsed once
/// is kept (per process) and reused while the file is unchanged (device, inode, size, mtime;
/// an mtime less than 2 s old is parsed again), so a fixture pass costs a stat per netdev.
std::unique_ptr<EthtoolStatsSource> make_ethtool_replay_source(std::filesystem::path dir);

/// ETH_GSTRING_LEN: each name is NUL-padded to 32 bytes, unterminated when exactly 32 chars.
inline constexpr std::size_t kEthGstringLen = 32;

/// Pure: names (n x 32 bytes from ETHTOOL_GSTRINGS) and values (ETHTOOL_GSTATS) to counters,
/// pairing entry i with value i. Names lose trailing spaces/NULs. Only complete pairs are used.
std::vector<Counter> parse_ethtool_gstats(std::span<const std::uint8_t> names,
                                          std::span<const std::uint64_t> values,
                                          const std::string& source);

/// Pure: `ethtool -S` text ("NIC statistics:\n     name: value\n..."). Each line splits at its
/// LAST ": "; a value that is not a u64 gives a Counter with no value and an error.
std::vector<Counter> parse_ethtool_text(std::string_view text, const std::string& source);

/// One SIOCETHTOOL call: the kernel reads and rewrites the command buffer `cmd` in place (the
/// real one ignores its size; a test fake uses it to catch overflows). Returns 0 or an errno.
using EthtoolIoctl = std::function<int(std::span<std::uint8_t> cmd)>;

/// The GSSET_INFO / GSTRINGS / GSTATS sequence over `ioctl`, safe against a string set that
/// changes meanwhile: buffers have headroom, the expected count is passed, and a changed count
/// (0, or different from the names read) or names that differ after GSTATS restart it, a
/// bounded number of times. A value is never paired with another counter's name.
/// `known_names` (optional): the names (n x kEthGstringLen bytes) of the last read of this
/// interface, updated by the call. When the count matches, they stand for the GSTRINGS before
/// GSTATS (3 calls instead of 4, and no name copy): the GSTRINGS after GSTATS must still equal
/// them, else the read restarts without them.
Result<std::vector<Counter>> read_ethtool_stats(const std::string& ifname,
                                                const EthtoolIoctl& ioctl,
                                                std::vector<std::uint8_t>* known_names = nullptr);

}  // namespace rh

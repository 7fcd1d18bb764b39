// Port hw counters from RDMA netlink (NETLINK_RDMA, RDMA_NLDEV_CMD_STAT_GET), what
// `rdma statistic show link <dev>/<port>` prints: sysfs hw_counters plus enabled optional ones.
// One interface, two implementations: a raw libnl socket (live; libnl has no nldev helpers) and
// a recorded reply payload as hex text (fixtures). Parsing is pure and bounds-checked.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collectors/netlink/nl_raw.h"
#include "core/inventory/inventory.h"
#include "core/result.h"

namespace rh {

class RdmaStatSource {
  public:
    virtual ~RdmaStatSource() = default;
    /// STAT_GET reply payload (attributes; the bytes after the nlmsghdr) for `dev` port `port`.
    /// Error when the device is gone, the port does not exist, or there is no recording.
    virtual Result<nl::Bytes> stat_get(const std::string& dev, unsigned port) = 0;
    /// Where the answers come from, for Counter::source.
    virtual std::string describe(const std::string& dev, unsigned port) const = 0;
};

/// One NETLINK_RDMA socket, opened on first use; the device index table (RDMA_NLDEV_CMD_GET
/// dump) is read once and re-read only when a name is not in it.
std::unique_ptr<RdmaStatSource> make_rdma_netlink_source();
/// Reads `<dir>/<dev>_<port>.hex` (nl::from_hex format).
std::unique_ptr<RdmaStatSource> make_rdma_replay_source(std::filesystem::path dir);

/// Pure: STAT_HWCOUNTERS { HWCOUNTER_ENTRY { NAME, VALUE(u64) } ... } of a STAT_GET reply to
/// counters sorted by name. Error when there is no STAT_HWCOUNTERS nest; malformed entries are
/// skipped and never read past the buffer.
Result<std::vector<Counter>> parse_rdma_stat_reply(nl::ByteView payload, const std::string& source);

/// Pure: the DEV_INDEX of the device named `name` in RDMA_NLDEV_CMD_GET dump payloads.
std::optional<std::uint32_t> find_rdma_dev_index(const std::vector<nl::Bytes>& dump,
                                                 const std::string& name);

/// Source + parse.
Result<std::vector<Counter>> read_rdma_port_counters(RdmaStatSource& source, const std::string& dev,
                                                     unsigned port);

/// Request bytes: the nlmsg_type of an nldev command, (RDMA_NL_NLDEV << 10) + cmd.
constexpr std::uint16_t nldev_type(unsigned cmd) {
    return static_cast<std::uint16_t>((5u << 10) + cmd);
}

}  // namespace rh

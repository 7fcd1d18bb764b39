// IEEE DCB state of a netdev (PFC, ETS, APP table, DCBX mode) from rtnetlink RTM_GETDCB /
// DCB_CMD_IEEE_GET. One interface, two implementations: a NETLINK_ROUTE socket (live) and a
// recorded reply payload stored as hex text (fixtures, tests/fixtures/recordings/). Parsing is
// the pure parse_dcb_ieee_reply() in both cases.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "collectors/netlink/nl_raw.h"
#include "core/inventory/inventory.h"
#include "core/result.h"

namespace rh {

class DcbSource {
  public:
    virtual ~DcbSource() = default;
    /// The reply payload (struct dcbmsg + attributes, i.e. the bytes after the nlmsghdr).
    /// Error when the netdev has no DCB support (EOPNOTSUPP), does not exist, or no recording.
    virtual Result<nl::Bytes> ieee_get(const std::string& ifname) = 0;
    /// Where the answers come from, for DcbConfig::source.
    virtual std::string describe(const std::string& ifname) const = 0;
};

/// One NETLINK_ROUTE socket (libnl), opened on first use and reused for every netdev.
std::unique_ptr<DcbSource> make_dcb_netlink_source();
/// Reads `<dir>/<ifname>.hex` (nl::from_hex format).
std::unique_ptr<DcbSource> make_dcb_replay_source(std::filesystem::path dir);

/// Pure: a DCB_CMD_IEEE_GET reply payload (dcbmsg + attributes) to a DcbConfig. Error when the
/// payload is not an IEEE_GET reply or has no DCB_ATTR_IEEE nest; attributes that are short or
/// malformed are left unset, never read past the buffer.
Result<DcbConfig> parse_dcb_ieee_reply(nl::ByteView payload, const std::string& source);

/// Source + parse: the netdev's DcbConfig or why it is unavailable.
Result<DcbConfig> read_dcb(DcbSource& source, const std::string& ifname);

}  // namespace rh

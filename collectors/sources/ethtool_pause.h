// Link-level (802.3x) pause frame counters from ethtool generic netlink: ETHTOOL_MSG_PAUSE_GET
// with ETHTOOL_FLAG_STATS (what `ethtool -I -a <if>` prints). Not per-priority PFC.
#pragma once

#include <memory>
#include <string>

#include "collectors/netlink/nl_raw.h"
#include "core/inventory/inventory.h"
#include "core/result.h"

namespace rh {

class LinkPauseSource {
  public:
    virtual ~LinkPauseSource() = default;
    /// Error when the family is missing or the driver has no pause support (EOPNOTSUPP).
    /// A driver without pause statistics answers with both counters nullopt.
    virtual Result<LinkPauseStats> read(const std::string& ifname) = 0;
};

/// One NETLINK_GENERIC socket (libnl-genl, family "ethtool" resolved once), opened on first use.
std::unique_ptr<LinkPauseSource> make_ethtool_pause_source();

/// Pure: attributes of an ETHTOOL_MSG_PAUSE_GET_REPLY (the bytes after the genlmsghdr).
LinkPauseStats parse_pause_reply(nl::ByteView attrs, const std::string& source);

}  // namespace rh

// Helpers to write a driver file (collectors/drivers/<name>.cpp): its mapping table as short
// constexpr rows, and its match rules. Internal to collectors/drivers/.
#pragma once

#include <string_view>

#include "collectors/drivers/driver.h"

namespace rh::nt {

constexpr MapEntry row(std::string_view name, std::string_view labels, std::string_view raw,
                       RawList from, std::string_view unit) {
    MapEntry e{};
    e.name = name;
    e.labels = labels;
    e.raw = raw;
    e.from = from;
    e.unit = unit;
    return e;
}

/// hw_counters entry without labels.
constexpr MapEntry hw(std::string_view name, std::string_view raw, std::string_view unit) {
    return row(name, "", raw, RawList::hw_counters, unit);
}
/// ethtool -S entry.
constexpr MapEntry eth(std::string_view name, std::string_view labels, std::string_view raw,
                       std::string_view unit) {
    return row(name, labels, raw, RawList::ethtool, unit);
}
/// Hardware width below 64 bits (wraps).
constexpr MapEntry bits(MapEntry e, unsigned width) {
    e.width_bits = width;
    return e;
}
/// Saturating counter of `width` bits (IB PMA error counters).
constexpr MapEntry saturating(MapEntry e, unsigned width) {
    e.width_bits = width;
    e.saturates = true;
    return e;
}
constexpr MapEntry scaled(MapEntry e, std::uint64_t scale) {
    e.scale = scale;
    return e;
}
constexpr MapEntry fallback(MapEntry e) {
    e.fallback = true;
    return e;
}

/// Match-rule helpers on names and lspci descriptions.
constexpr bool has(std::string_view s, std::string_view part) {
    return s.find(part) != std::string_view::npos;
}
constexpr bool starts(std::string_view s, std::string_view prefix) {
    return s.substr(0, prefix.size()) == prefix;
}
/// `s` ends with `suffix` and has more before it.
constexpr bool ends(std::string_view s, std::string_view suffix) {
    return s.size() > suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

inline constexpr RawList kHw = RawList::hw_counters;
inline constexpr RawList kPma = RawList::counters;

// Generic kernel interfaces, used as fallbacks by the families whose drivers implement them.
// include/uapi/linux/dcbnl.h struct ieee_pfc: requests[p] = PFC frames sent, indications[p] =
// received; ethtool netlink ETHTOOL_A_PAUSE_STAT_{TX,RX}_FRAMES (net/ethtool/pause.c).
constexpr MapEntry kDcbRx =
    fallback(row("pfc_pause_frames", "priority={p},direction=rx", "ieee_pfc.indications[{p}]",
                 RawList::dcb_indications, "frames"));
constexpr MapEntry kDcbTx =
    fallback(row("pfc_pause_frames", "priority={p},direction=tx", "ieee_pfc.requests[{p}]",
                 RawList::dcb_requests, "frames"));
constexpr MapEntry kLinkPauseRx =
    fallback(row("link_pause_frames", "direction=rx", "ETHTOOL_A_PAUSE_STAT_RX_FRAMES",
                 RawList::link_pause_rx, "frames"));
constexpr MapEntry kLinkPauseTx =
    fallback(row("link_pause_frames", "direction=tx", "ETHTOOL_A_PAUSE_STAT_TX_FRAMES",
                 RawList::link_pause_tx, "frames"));

}  // namespace rh::nt

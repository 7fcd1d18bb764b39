// Which RDMA device, port and GID a probe or responder uses, decided from sysfs alone (so it is
// testable on fixture trees): first device with an ACTIVE Ethernet port unless named; the RoCE v2
// GID, preferring an IPv4-mapped one (::ffff:a.b.c.d), unless a GID index is given.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "core/result.h"
#include "core/sysfs.h"

namespace rh {

struct PortChoice {
    std::string device;
    unsigned port = 0;
    unsigned gid_index = 0;
    std::array<std::uint8_t, 16> gid{};
    std::string gid_text;  ///< compact, e.g. "::ffff:10.99.0.11"
    std::string gid_type;  ///< "RoCE v2", "IB/RoCE v1", "" if sysfs does not say
};

/// `device` empty = auto; `gid_index` nullopt = auto.
Result<PortChoice> choose_port(const SysfsRoot& sys, const std::string& device,
                               std::optional<unsigned> gid_index);

/// Parses sysfs GID text "0000:0000:0000:0000:0000:ffff:0a63:000b" into 16 bytes.
Result<std::array<std::uint8_t, 16>> parse_sysfs_gid(const std::string& text);
/// Compact IPv6 text of a raw GID.
std::string gid_to_string(const std::array<std::uint8_t, 16>& gid);

}  // namespace rh

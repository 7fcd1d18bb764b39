// GIDs and IP addresses as the 16 bytes they name, so the forms the kernel, ibv_devinfo, NCCL,
// UCX and perftest print ("fe80:0000:...:522a", "fe80::e42:a1ff:fe79:522a", "::ffff:10.0.0.2",
// "10.0.0.2") compare equal.
#pragma once

#include <array>
#include <optional>
#include <string>

namespace rh {

using GidBytes = std::array<unsigned char, 16>;

/// The 16 bytes of a GID or IPv6 address, or of an IPv4 address as the RoCE v2 GID that carries
/// it (::ffff:a.b.c.d); nullopt for text that is neither.
std::optional<GidBytes> gid_bytes(const std::string& text);

/// True for a link-local GID (fe80::/10): RoCE v1 / the port's MAC-derived GID, not routed.
bool is_link_local(const GidBytes& g);

}  // namespace rh

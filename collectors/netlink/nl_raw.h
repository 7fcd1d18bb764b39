// Pure netlink helpers shared by the DCB, ethtool-netlink and RDMA-netlink collectors: a
// bounds-checked attribute walker over reply payload bytes (so recorded replies replay through
// the same parsers) and hex text for recordings. The socket side is
// collectors/netlink/nl_exchange.h.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace rh::nl {

using Bytes = std::vector<std::uint8_t>;
using ByteView = std::span<const std::uint8_t>;

/// One netlink attribute: type without the NESTED/BYTEORDER flags, and its payload (inside buf).
struct Attr {
    std::uint16_t type = 0;
    ByteView data;
};

/// The attributes in `buf`, in order. Stops at the first malformed header (length < 4 or past
/// the end) and then sets `*malformed` when given: never reads outside `buf`.
std::vector<Attr> attrs(ByteView buf, bool* malformed = nullptr);
/// First attribute of `type` in `buf` (top level only).
std::optional<Attr> find(ByteView buf, std::uint16_t type);

/// Fixed-size integer payloads (host byte order); nullopt when the payload size differs.
std::optional<std::uint8_t> u8(const Attr& a);
std::optional<std::uint32_t> u32(const Attr& a);
std::optional<std::uint64_t> u64(const Attr& a);
/// String payload up to its first NUL (or its end when unterminated).
std::string str(const Attr& a);

/// Lower-case hex, 32 bytes per line.
std::string to_hex(ByteView bytes);
/// Hex digits with any whitespace between byte pairs; '#' starts a comment to end of line.
Result<Bytes> from_hex(std::string_view text);
/// A recorded netlink reply: from_hex() of a whole file. Errors name the file.
Result<Bytes> read_hex_file(const std::string& path);

}  // namespace rh::nl

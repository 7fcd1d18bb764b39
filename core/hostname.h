// This host's name as the kernel has it (uname(2) nodename, the same as gethostname(2)): the
// name every sample, probe result, hello and report carries for "this host", read one way.
#pragma once

#include <string>
#include <string_view>

namespace rh {

/// The kernel's host name (e.g. "node07"; at most 64 bytes on Linux), or "" if it cannot be
/// read — callers that need a name then ask for it (a config `host`, `--host`).
std::string host_name();

/// The longest host name accepted, bytes: a DNS name's limit (RFC 1035, 253 characters in text).
inline constexpr std::size_t kMaxHostNameBytes = 253;

/// "" when `name` can name a host in samples, findings and reports — 1..kMaxHostNameBytes
/// bytes, each a printable ASCII character other than a space (0x21..0x7e) — else why not:
/// "empty", "300 bytes long: at most 253 (a DNS name)", "byte 4 is not a printable character
/// (0x0a)". Callers put the file or field in front (an agent config's `host`, a capture's
/// `hostname` file, `--host`).
std::string check_host_name(std::string_view name);

}  // namespace rh

// The responders' host keys a client knows (optional, issue 27; probes/auth/host_key.h): a text
// file, one responder a line,
//
//   # comment
//   NAME ed25519 BASE64
//
// NAME a host name or an IP address (IPv6 without brackets), as the client dials it; "ed25519"
// the only key type; BASE64 the 44 characters `rocehealth keygen --host-key` prints. Fields are
// separated by spaces or tabs; blank lines and lines whose first non-blank character is '#' are
// skipped; a trailing CR is allowed. Names compare case-insensitively and may appear once.
// A name carries no port: "gpu01:18520" and ssh's "[gpu01]:18520" are errors (FILE:LINE), since
// a responder's host key belongs to its host (one responder.host_key_file a host) and the client
// looks up the host it dials, on whatever port; unlike ssh's known_hosts, "gpu01" covers them all.
// With a known_hosts file configured, every control connection needs the responder's entry and
// its signature: a responder not in the file is refused before dialling ("no known host key for
// X", fail closed), one that does not sign with that key after the handshake ("responder X did
// not prove its host key").
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "probes/auth/host_key.h"

namespace rh::auth {

struct KnownHost {
    std::string name;  ///< lowercased
    PublicKey key{};
    int line = 0;  ///< 1-based, for messages
};

struct KnownHosts {
    std::string path;
    std::vector<KnownHost> hosts;
    /// The entry for `name` (case-insensitive), or nullptr.
    const KnownHost* find(std::string_view name) const;
};

/// Bounds of the file: enough for 100k hosts.
inline constexpr std::size_t kMaxKnownHostsBytes = 16u << 20;
inline constexpr std::size_t kMaxHostNameChars = 253;

/// Parses the text of a known_hosts file. Errors (op "known_hosts", subject "PATH:LINE") name the
/// fault: "expected NAME ed25519 BASE64, got N fields", "key type \"rsa\": only ed25519",
/// "NAME: not a host name or IP address", "NAME: a name with a port; write the host alone",
/// "not a base64 Ed25519 public key (44 characters)",
/// "NAME is given twice (first on line M)".
Result<KnownHosts> parse_known_hosts(std::string_view text, const std::string& path);

/// Reads and parses `path`: no symlink in the path, a regular file owned by this user or root and
/// not writable by group or others (whoever can write it can pose as any responder), at most
/// kMaxKnownHostsBytes. Errors as parse_known_hosts or the file's (op "known_hosts", subject PATH).
Result<KnownHosts> load_known_hosts(const std::string& path);

/// The known hosts this process's control clients check (connect_control); nullptr when none is
/// configured (no host key is required). Set at startup and on SIGHUP.
std::shared_ptr<const KnownHosts> process_known_hosts();
void set_process_known_hosts(std::shared_ptr<const KnownHosts> hosts);

}  // namespace rh::auth

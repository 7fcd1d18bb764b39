// The agent's optional per-host keys (issue 27; probes/auth/host_key.h, known_hosts.h):
// responder.host_key_file, which its embedded responder signs keyed handshakes with, and
// responder.known_hosts_file, the responders' keys its control clients (the incast API) require.
#pragma once

#include "agent/daemon/agent_loop.h"

namespace rh::agent {

/// Loads both files into `rt` (a reload too: a replaced file takes effect on SIGHUP). Errors
/// (op "config", subject the config file) name the field and the file's own error
/// ("responder.known_hosts_file: known_hosts FILE:LINE: ..."), or a file set without
/// responder.key_file's fabric key (host keys add to it).
Status load_host_keys(const AgentConfig& cfg, Runtime& rt);

/// Makes rt's host key and known hosts the process's (nullptr clears them) and logs the host
/// key's fingerprint and known_hosts line.
void install_host_keys(const Runtime& rt);

}  // namespace rh::agent

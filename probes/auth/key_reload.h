// SIGHUP in `rocehealth responder`: the process's keys read again, as the agent reads them on a
// reload (agent/daemon/host_keys.h): the fabric key and, when configured, the host key and the
// known_hosts file, taken all together or not at all, so that a half-written file never leaves
// the responder with a new fabric key and an old host key (or none).
#pragma once

#include <string>

#include "core/result.h"

namespace rh::auth {

/// The files a process's keys come from; "" key_file: the default key file when it exists, ""
/// host_key_file / known_hosts_file: not configured.
struct KeyFiles {
    std::string key_file;
    std::string host_key_file;
    std::string known_hosts_file;
};

/// Reads every file of `files` (key_for_command, HostKey::load, load_known_hosts) and, only when
/// all read, makes them the process's (set_process_key, set_process_host_key,
/// set_process_known_hosts). Returns what was installed, one line for a log: "fabric key PATH
/// (fingerprint F), host key PATH (fingerprint SHA256:...), known_hosts PATH (N hosts)", or
/// "no fabric key: control commands are off". Error: the first file's error (naming the file,
/// FILE:LINE for known_hosts), or a host key / known_hosts without a fabric key ("host keys add
/// to the fabric key"); then nothing changed.
Result<std::string> reload_process_keys(const KeyFiles& files);

}  // namespace rh::auth

// --key-file, shared by the commands that speak on a responder's control channel (responder,
// incast, accept): which fabric key (probes/auth/fabric_key.h) this process proves or demands;
// with it the optional per-host keys (probes/auth/host_key.h, known_hosts.h): --known-hosts
// (every such command: the responders' host keys its control clients require) and, for the
// responder, --host-key-file (the key it signs handshakes with). Read at start; the responder
// reads all three again on SIGHUP.
#pragma once

#include <optional>
#include <string>

#include "agent/cli/options.h"

namespace rh::cli {

/// Adds "--key-file FILE" (default: /etc/rocehealth/fabric.key when it exists) and
/// "--known-hosts FILE" to `desc`, and "--host-key-file FILE" when `serves` (the responder). The
/// host-key options are kept in this file's own storage (one command a process) and read by
/// install_fabric_key.
void add_key_file_option(po::options_description& desc, std::string& path, bool serves = false);

/// Loads the key `path` names (or the default file when there is one) and makes it the process
/// key. A bad key file is an error naming it ("rocehealth CMD: fabric key FILE: is readable ...
/// chmod 600 it"): returns kExitCannotRun after printing it; nullopt when the command may go on
/// (with a key, or without one when none is configured). With --known-hosts or --host-key-file,
/// those are loaded too (errors name the file, and file:line for known_hosts) and installed as the
/// process's; either without a fabric key is an error ("host keys add to the fabric key").
std::optional<int> install_fabric_key(const std::string& command, const std::string& path);

/// The --host-key-file and --known-hosts paths as given ("" when not): the responder reads them
/// again on SIGHUP (probes/auth/key_reload.h).
std::string host_key_file_option();
std::string known_hosts_option();

/// --known-hosts or --host-key-file was given (a command that loads the key only when it needs
/// one must then load it, so that neither is silently ignored).
bool host_key_options_given();

}  // namespace rh::cli

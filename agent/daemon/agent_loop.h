// The agent's run loop: collection passes (HostSampler) into a bounded SeriesStore every
// collect_interval_s, the rule engine after every pass, findings opening and closing as
// log events, the Board the HTTP endpoint serves, the responder thread, and the signals:
// SIGHUP reloads the config file (a bad one is rejected and the running one kept), SIGTERM and
// SIGINT stop cleanly (a last rules run is logged, HTTP and responder stopped, exit 0).
#pragma once

#include <string>

#include "agent/daemon/config.h"
#include "agent/daemon/http_tls.h"
#include "core/result.h"
#include "probes/auth/fabric_key.h"
#include "probes/auth/host_key.h"
#include "probes/auth/known_hosts.h"
#include "rules/engine/rule_spec.h"

namespace rh::agent {

/// A config plus what it points to, loaded and checked: what --check-config validates and what
/// a reload must produce before anything running is replaced.
struct Runtime {
    AgentConfig cfg;
    std::string rules_path;  ///< cfg.rules_file or the default lookup's answer
    RuleSet rules;
    std::string token;         ///< empty when http.token_file is empty
    std::string action_token;  ///< empty when http.action_token_file is empty
    /// http.tls_cert_file and tls_key_file loaded (they match); nullptr: plain HTTP.
    std::shared_ptr<const TlsContext> tls;
    /// responder.key_file (or the default key file when it exists); nullptr: none, so the
    /// responder serves no control commands and the incast API cannot command responders.
    std::shared_ptr<const auth::FabricKey> key;
    /// responder.host_key_file and responder.known_hosts_file loaded; nullptr: not configured.
    std::shared_ptr<const auth::HostKey> host_key;
    std::shared_ptr<const auth::KnownHosts> known_hosts;
    /// With mesh.peers_file: this host's plan over cfg.mesh.fleet; nullptr otherwise.
    std::shared_ptr<const MeshPlan> mesh_plan;
};

/// Loads the rules file, the token files, the HTTPS certificate and key, and the fabric key, checks
/// that sysfs_root is a directory, and plans the mesh over mesh.peers_file's fleet for `host` (the
/// kernel's name when empty). Error names the field and file ("rules_file: ...", "http.token_file
/// ...: empty", "responder.key_file: fabric key ...: is readable ...", "mesh.peers_file FILE: mesh
/// plan host gpu07: not in the fleet list (960 hosts)", or a topology.tor that is not the file's):
/// op "config", subject cfg.source, every problem found one line of the detail, not just the
/// first (a step that needs a failed one, as the host keys the fabric key, is skipped).
Result<Runtime> prepare_runtime(AgentConfig cfg);

/// Blocks SIGHUP, SIGTERM and SIGINT in the calling thread, so every thread started after it
/// inherits the mask and run_agent_loop receives them with sigtimedwait. Call before any thread.
void block_agent_signals();

/// Runs until SIGTERM/SIGINT; SIGHUP re-reads `config_path`. Returns 0 after a requested stop,
/// 2 when the HTTP endpoint cannot be bound at start.
int run_agent_loop(Runtime rt, const std::string& config_path);

}  // namespace rh::agent

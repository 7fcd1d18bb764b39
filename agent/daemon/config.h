// The agent's configuration file (JSON, nlohmann_json): what `rocehealth agent --config FILE`
// reads at start and on SIGHUP, and `--check-config` validates. Every field, its default and its
// unit are documented in agent/daemon/README.md; the struct defaults below are those defaults.
// Validation is strict: an unknown field, a wrong type or a value out of range is an error that
// names the field ("http.listen: ..."), and every error in the file is reported, not just the
// first. Units are in the field names: `_s` seconds, `_bytes` bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/fabric/bounded_get.h"
#include "agent/fleet/fleet_config.h"
#include "agent/fleet/topology.h"
#include "core/result.h"
#include "probes/mesh/mesh_plan.h"

namespace rh::agent {

/// The HTTP endpoint (agent/daemon/http.h).
struct HttpConfig {
    std::string listen_host = "127.0.0.1";  ///< IP literal (IPv4 or IPv6), from "listen"
    std::uint16_t listen_port = 9477;       ///< 1..65535 (0 in tests: any free port)
    std::string token_file;     ///< file holding the bearer token; empty: no token configured
    bool protect_read = false;  ///< read-only endpoints (/metrics, /api/v1/*) need the token
    /// File holding the action token POST endpoints need (read as token_file is); empty: the
    /// POST endpoints answer 403. The read token never authorises an action.
    std::string action_token_file;
    /// HTTPS (agent/daemon/http_tls.h): the PEM certificate chain and its PEM private key (read
    /// as token_file is); both or neither. Empty: plain HTTP.
    std::string tls_cert_file;
    std::string tls_key_file;
    unsigned max_threads = 4;                  ///< requests served at once, 1..64
    unsigned max_queued = 16;                  ///< complete requests waiting for a thread, 1..1024
    unsigned max_connections = 256;            ///< open connections in all, 1..4096
    unsigned max_connections_per_address = 8;  ///< open connections per client IP, 1..1024
    std::size_t max_request_bytes = 8192;      ///< request body limit, 0..1 MiB
    double request_timeout_s = 5;              ///< a request's head and body, in total, 0.1..300
    double read_timeout_s = 5;                 ///< keep-alive idle time between requests, 0.1..300
    double write_timeout_s = 5;                ///< a whole response, 0.1..300
    bool operator==(const HttpConfig&) const = default;
};

/// The responder for peers' probes (probes/responder/responder.h), run in a thread when enabled.
struct ResponderConfig {
    bool enabled = false;
    std::string listen = "0.0.0.0";     ///< IP literal
    std::uint16_t port = 18520;         ///< 1..65535
    std::string device;                 ///< empty: first device with an ACTIVE Ethernet port
    std::optional<unsigned> gid_index;  ///< 0..255; absent: RoCE v2, IPv4-mapped preferred
    unsigned max_sessions = 16;         ///< 1..1024
    bool allow_fault =
        false;  ///< serve `accept`'s "fault" command (probes/responder/control_fault.h)
    /// The fabric key (probes/auth/fabric_key.h) control commands need, both served by this
    /// responder and sent by the incast API; empty: /etc/rocehealth/fabric.key when it exists.
    std::string key_file;
    /// Optional per-host keys (probes/auth/host_key.h, known_hosts.h), both need key_file's key:
    /// this host's Ed25519 key its responder signs handshakes with; and the responders' keys the
    /// incast API requires ("NAME ed25519 BASE64" lines). Empty: none.
    std::string host_key_file;
    std::string known_hosts_file;
    bool operator==(const ResponderConfig&) const = default;
};

/// POST /api/v1/incast: this host is the receiver.
struct IncastConfig {
    /// How the senders reach this host's responder (HOST or HOST:PORT); empty: the agent's
    /// host name and responder.port.
    std::string receiver_address;
    double max_duration_s = 30;  ///< longest traffic a request may ask for, 0.1..600
    /// Senders allowed beside the mesh fleet: IP addresses, CIDR blocks, host names, at most
    /// 1024 (incast_senders.h). A sender in neither is refused with 403.
    std::vector<std::string> allowed_senders;
    bool operator==(const IncastConfig&) const = default;
};

/// `lldp`: topology labels taken from LLDP (agent/daemon/topology_lldp.h): each label's value
/// is the chassis name (LLDP SysName) of the switch cabled to a local interface, as lldpd's
/// `lldpcli -f json show neighbors` reports it; read at start, by --check-config and on SIGHUP.
struct LldpConfig {
    /// Label name (checked as `topology`'s, and not also in `topology`) -> local interface.
    std::map<std::string, std::string> labels;
    std::string lldpcli = "lldpcli";  ///< the program (a name is looked up in PATH)
    double timeout_s = 5;             ///< its run, 0.1..60
    bool operator==(const LldpConfig&) const = default;
};

/// Peers a mesh may have.
inline constexpr std::size_t kMaxMeshPeers = 256;
/// Entries `required_ports` may have.
inline constexpr std::size_t kMaxRequiredPorts = 1024;

/// "" when `size` is a probe message size (a multiple of 8, 16 B .. 16 MiB), else why not.
std::string check_message_size(std::uint64_t size);

/// A field the config file sets that no longer does anything.
struct DeprecatedField {
    std::string field;  ///< "rules_interval_s"
    /// "rules_interval_s is deprecated and ignored: the rules run after every collection pass"
    std::string text;
    bool operator==(const DeprecatedField&) const = default;
};

struct AgentConfig {
    std::string source;               ///< file it was read from (for messages)
    std::string host;                 ///< host name in samples and findings; empty: the kernel's
    std::string sysfs_root = "/sys";  ///< sysfs tree to read (a fixture tree in tests)
    std::string device;               ///< only this RDMA device; empty: all
    double collect_interval_s = 1;    ///< between collection passes, 0.1..3600
    double inventory_interval_s =
        30;                    ///< between inventory re-reads (PCIe, port state, MTU), 1..3600
    double retention_s = 300;  ///< history kept per series, 60..86400 (the rules run over
                               ///< all of it: cost grows faster than linearly, README)
    std::string rules_file;    ///< empty: rules/README.md's lookup (default_rules_path)
    /// Ports that must be up: "DEVICE/PORT" ("mlx5_1/1") or a netdev name ("ens1f1np1"), at
    /// most kMaxRequiredPorts. A port down that never carried traffic is otherwise taken as not
    /// cabled (a note); a required one that is down is a port_not_active error whatever its
    /// history (rules/port_usage.h). Empty: none required.
    std::vector<std::string> required_ports;
    /// Where the host sits in the fabric ({"tor": "r07"}): labels of rocehealth_host_info only
    /// (agent/fleet/topology.h). Empty: host_info carries `host` alone.
    Topology topology;
    LldpConfig lldp;
    HttpConfig http;
    ResponderConfig responder;
    MeshConfig mesh;
    IncastConfig incast;
    /// Fields the file sets that are deprecated and ignored: `--check-config` prints them, the
    /// agent logs each as `config_deprecated`.
    std::vector<DeprecatedField> deprecated;
    bool operator==(const AgentConfig&) const = default;

    /// Points kept per series: retention_s / collect_interval_s plus headroom.
    std::size_t max_points() const;
};

/// Validates a parsed document. `name` prefixes the message. Error: op "config", subject
/// `name`, detail one line per problem, e.g. "http.listen: expected HOST:PORT with HOST an IP
/// address, got \"localhost\"" or "colect_interval_s: unknown field".
Result<AgentConfig> parse_agent_config(const nlohmann::json& doc, const std::string& name);

/// `path`, a path field of the config file `config_path`, as the agent opens it: "" and an
/// absolute path unchanged, a relative one joined to the config file's folder ("fabric.key" in
/// /etc/rocehealth/agent.json is /etc/rocehealth/fabric.key), never to the working directory
/// (systemd starts the agent in /). Not normalised: "../x" stays in the result.
std::string config_relative(const std::string& config_path, const std::string& path);

/// Reads FILE through read_json_file (core/json_file.h) and parse_agent_config, stores every path
/// field resolved by config_relative (sysfs_root, rules_file, http.token_file,
/// http.action_token_file, http.tls_cert_file, http.tls_key_file, responder.key_file,
/// responder.host_key_file, responder.known_hosts_file, mesh.peers_file, and lldp.lldpcli when it
/// holds a '/'), then reads mesh.peers_file when set (load_mesh_peers_file: its errors name that
/// file and line). Errors
/// name the file: missing, unreadable, not JSON (with line, column and field: "not valid JSON at
/// line 2, column 28 (collect_interval_s): number overflow parsing '1e400'"), a key given
/// twice ("duplicate key http.listen"), then every problem of parse_agent_config.
Result<AgentConfig> load_agent_config(const std::string& path);

/// Reads the bearer token: the file's content without surrounding whitespace. Read as a secret
/// (probes/auth/secret_file.h: no symlink in the path, owner this user or root, no group or
/// other bits, checked on the open file). Errors: those, the file cannot be read, is empty,
/// holds more than 64 KiB, or a token shorter than 16 characters.
Result<std::string> load_token_file(const std::string& path);

}  // namespace rh::agent

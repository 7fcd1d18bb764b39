// A rule reads the host inventory (and, when asked, a peer's view) and appends findings.
// Rules are listed in one table (rules/registry.cpp); each lives in its own file.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/finding.h"
#include "core/inventory/inventory.h"

namespace rh {

/// What the peer's responder told us in the out-of-band handshake (`check --peer HOST`).
struct PeerView {
    std::string peer;      ///< as given on the command line, e.g. "10.99.0.11:18520"
    std::string hostname;  ///< the peer's own host name
    std::string device;
    unsigned port = 0;
    std::optional<unsigned> active_mtu_bytes;
};

struct RuleInput {
    const Snapshot& local;
    std::optional<PeerView> peer;
    /// Ports that must be up (`--require-port`, the agent's `required_ports`): "mlx5_0/1" or a
    /// netdev name (rules/port_usage.h). A required port that is down is an error even when it
    /// was never cabled; one that names no port is left unevaluated.
    std::vector<std::string> required_ports;
};

/// What the rules concluded. `unevaluated` lists what a rule needed but could not read (an
/// unreadable port state, an unknown PCIe width, ...): a check with unevaluated items and no
/// findings is not "healthy", it is incomplete.
struct RuleOutput {
    std::vector<Finding> findings;
    std::vector<Note> unevaluated;
    /// What the rule was asked to judge and could not, so no verdict may call the host healthy:
    /// a required port that names no port of the host. `check` lists these with `unevaluated`
    /// (exit 2); the engine makes each a NotJudged of kind "no_verdict" (diagnose and the agent:
    /// "could not judge", exit 2), where a plain `unevaluated` note does not change the verdict.
    std::vector<Note> not_judged;
    /// What the rules took into account without a finding, e.g. a port taken as not cabled
    /// (rules/port_usage.h). Notes do not change the verdict or the exit code.
    std::vector<Note> notes;
    /// The rules that ran (their ids in the rules file), in order.
    std::vector<std::string> rules;
};

/// A named case in which a check's finding is worse than its usual one, e.g. pcie_downtrained's
/// "below_port_rate". The check sets Finding::outcome to it; the rules file's `escalate` entry
/// that names it gives the severity (rules/engine/checks.h): the rules file is the one source
/// of an inventory rule's severity, and a check never sets one.
struct CheckOutcome {
    const char* id;
    const char* description;  ///< when the check gives it, for `rules check` errors and docs
};

/// An inventory check: its id (what a rules file's `"check"` names), what it detects, the
/// outcomes a rules file may escalate on, and its evaluation.
struct RuleDef {
    const char* id;
    const char* description;  ///< what it detects, for `--list-rules` and docs
    std::span<const CheckOutcome> outcomes;
    void (*evaluate)(const RuleInput&, RuleOutput&);
};

/// The check `id`, nullptr if there is none.
const RuleDef* find_check(std::string_view id);

/// Every inventory check, in registry order (rules/registry.cpp).
std::span<const RuleDef> all_checks();

/// A check's finding with its identity set and no severity of its own (left at warning until
/// the rules file grades it, rules/engine/checks.h); `outcome` names a CheckOutcome of the
/// check, empty for its usual case.
Finding check_finding(std::string rule_id, std::string host, std::string device, unsigned port,
                      std::string outcome = {});

/// A rule that compares hosts (fabric-wide): reads every host's inventory at once.
using HostsRule = void (*)(std::span<const Snapshot> hosts, RuleOutput& out);
/// The across-hosts evaluation of inventory check `id` (fabric_consistency), nullptr for a
/// per-host rule. Such a rule's per-host `evaluate` does nothing (one host: nothing to compare);
/// the engine (rules/engine/engine.cpp) runs this one once over all hosts instead.
HostsRule hosts_rule(const std::string& id);

/// Notes a device with no readable port as unevaluated (nothing about it can be checked); the
/// first step of every per-host check run.
void note_portless_devices(const Snapshot& s, RuleOutput& out);

/// "mlx5_0 port 1", the subject of per-port notes and sentences.
std::string port_subject(const Device& d, const Port& p);

/// Where a port attribute was read, as evidence cites it: the bundle's capture file and line
/// when the collector recorded one (Port::sources[attr], "t0/ibv_devinfo-v.txt:97"), else for a
/// bundle its capture directory's name, else the sysfs file `class/infiniband/<dev>/ports/<n>/
/// <file>` through cite_sysfs (rules/evidence_format.h): "/sys/..." live, ".../class/..." under
/// another --sysfs-root.
std::string port_source(const Snapshot& s, const Device& d, const Port& p, const std::string& attr,
                        const std::string& file);

}  // namespace rh

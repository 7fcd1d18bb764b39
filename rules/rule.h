// A rule reads the host inventory (and, when asked, a peer's view) and appends findings.
// Rules are listed in one table (rules/registry.cpp); each lives in its own file.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "collectors/inventory.h"
#include "core/finding.h"

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
};

struct RuleDef {
    const char* id;
    const char* description;  ///< what it detects, for `--list-rules` and docs
    void (*evaluate)(const RuleInput&, std::vector<Finding>&);
};

/// All rules, in evaluation order.
std::span<const RuleDef> all_rules();

/// Runs every rule; findings in rule order, then device/port order.
std::vector<Finding> evaluate_rules(const RuleInput& input);

}  // namespace rh

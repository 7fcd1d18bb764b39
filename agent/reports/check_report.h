// The result of `rocehealth check` as JSON (the machine form) and its text rendering.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/finding.h"
#include "core/inventory/inventory.h"
#include "rules/engine/rule_spec.h"
#include "rules/rule.h"

namespace rh {

/// The result of `check`, built where the rules ran and taken by every formatter (JSON, text).
/// Notes gather what the verdict does not rest on: snapshot notes, the rules' notes (a port
/// taken as not cabled, rules/port_usage.h), device read problems and ports whose active_mtu is
/// unavailable.
struct CheckReport {
    std::string host;
    std::string sysfs_root;
    std::string collected_at;          ///< UTC, ISO 8601 (the snapshot's)
    std::vector<std::string> devices;  ///< RDMA device names, in the snapshot's order
    std::optional<PeerView> peer;      ///< --peer's responder, when it answered
    /// One line per port with the facts the rules looked at, so "healthy" shows what was
    /// checked: "mlx5_0 port 1: ACTIVE/LinkUp, Ethernet, ens1f0np0 MTU 9000 B, ...".
    std::vector<std::string> checked;
    std::vector<std::string> rules;  ///< ids of the rules that ran, in order
    std::vector<Finding> findings;
    std::vector<Note> unevaluated;
    std::vector<Note> notes;

    /// No finding and nothing left unevaluated.
    bool healthy() const { return findings.empty() && unevaluated.empty(); }
    /// "findings" | "incomplete" (no finding, something unevaluated) | "healthy".
    std::string verdict() const;
};

CheckReport check_report(const Snapshot& snap, const std::optional<PeerView>& peer,
                         const RuleOutput& result);

/// {"host", "sysfs_root", "collected_at", "verdict", "healthy": bool, "devices": [name...],
///  "peer": {peer, hostname, device, port, active_mtu_bytes|null}|null, "checked": [line...],
///  "rules": [id...], "findings": [Finding...], "unevaluated": [Note...], "notes": [Note...]}.
void to_json(nlohmann::json& j, const CheckReport& r);

/// Human text: a verdict line, then each finding with its evidence ("name = value  (source)",
/// the value with its unit, evidence_text), then notes.
void render_check_text(std::ostream& out, const CheckReport& report);

/// `check --list-rules`: the inventory checks `rules` runs, in its order, as "id<TAB>description"
/// lines, or with `json` an array of {"id", "description", "severity", "severities"} (the usual
/// severity of its findings, then every other one its `escalate` entries can give).
void print_check_rules(std::ostream& out, const RuleSet& rules, bool json);

}  // namespace rh

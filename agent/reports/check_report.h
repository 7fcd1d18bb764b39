// The result of `rocehealth check` as JSON (the machine form) and its text rendering.
#pragma once

#include <optional>
#include <ostream>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/finding.h"
#include "core/inventory/inventory.h"
#include "rules/engine/rule_spec.h"
#include "rules/rule.h"

namespace rh {

/// {"host", "sysfs_root", "collected_at", "verdict": "healthy"|"findings"|"incomplete",
///  "healthy": bool, "peer": {...}|null, "checked": [port summary...], "rules": [id...],
///  "findings": [Finding...], "unevaluated": [Note...], "notes": [Note...]}.
/// healthy = no finding and nothing left unevaluated.
/// Notes gather what the verdict does not rest on: snapshot notes, the rules' notes (a port
/// taken as not cabled, rules/port_usage.h), device read problems and ports whose active_mtu is
/// unavailable.
nlohmann::json check_report(const Snapshot& snap, const std::optional<PeerView>& peer,
                            const RuleOutput& result);

/// Human text rendered from check_report()'s JSON: a verdict line, then each finding with its
/// evidence ("name = value  (source)", the value with its unit, evidence_text), then notes.
void render_check_text(std::ostream& out, const nlohmann::json& report);

/// `check --list-rules`: the inventory checks `rules` runs, in its order, as "id<TAB>description"
/// lines, or with `json` an array of {"id", "description", "severity", "severities"} (the usual
/// severity of its findings, then every other one its `escalate` entries can give).
void print_check_rules(std::ostream& out, const RuleSet& rules, bool json);

}  // namespace rh

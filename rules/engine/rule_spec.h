// Declarative rules: what the rules file (rules/rocehealth-rules.json) says, parsed and validated.
// The engine (rules/engine/engine.h) is generic: it evaluates these declarations over the
// time-series store. File format and every field: rules/README.md.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/finding.h"
#include "core/result.h"
#include "core/sample.h"

namespace rh {

/// What a condition measures on its series over its window.
enum class Measure {
    increase,        ///< counter growth in the window (width-aware, resets are lower bounds)
    rate_per_s,      ///< increase / seconds covered
    value,           ///< gauge: latest value in the window
    pause_fraction,  ///< fraction of time paused, 0..1: rate of pfc_pause_duration_us / 1e6, or
                     ///< pfc_pause_frames rate x 65535 quanta x 512 bit times / port rate
};

enum class Compare { gt, ge, lt, le, eq, ne };

/// Which hosts' series a condition reads, relative to the host being diagnosed.
enum class HostScope { same, other };

struct Condition {
    std::string signal;               ///< short name for sentences and the timeline
    std::vector<std::string> series;  ///< summed (or max-ed, for value/pause_fraction)
    Labels match;                     ///< fixed label filter, e.g. {direction: tx}
    Measure measure = Measure::increase;
    Compare op = Compare::gt;
    double threshold = 0;
    /// Measured over [t - window_s, t]; 0 = the last pass interval. Passes further apart than
    /// window_s (bundles) widen it to the interval and scale increases to "per window_s".
    double window_s = 0;
    HostScope host = HostScope::same;
    /// For a per-priority group: compare against the priorities whose gauge `pfc_enabled`
    /// equals this (1 = the lossless priorities, 0 = the others) instead of the group's own.
    std::optional<int> on_pfc_priorities;
};

/// A boolean combination of conditions: all / any of children, or one condition.
struct Expr {
    enum class Kind { all, any, cond } kind = Kind::cond;
    std::vector<Expr> children;
    Condition cond;
};

/// An alternative explanation: ruled out when `indicated_by` never holds during the finding.
struct Alternative {
    std::string name;
    Expr indicated_by;
};

struct Escalation {
    Severity severity = Severity::error;
    Expr when;
};

struct RuleSpec {
    std::string id;
    std::string title;
    Severity severity = Severity::warning;
    /// Template: {host}, any group label ({device} {port} {priority} {direction}), {<signal>}
    /// (its measured peak), {held} (how long it held), {<label>_text} (from label_text).
    std::string summary;
    /// Text per label value for the summary, e.g. direction: {tx: "this host sent the pauses"}.
    std::map<std::string, Labels> label_text;
    std::string explanation;        ///< why it matters / where to look
    std::string thresholds_reason;  ///< why the thresholds are what they are
    /// Inventory check (rules/registry.cpp) run on each host's latest inventory instead of a
    /// condition over time; empty for time-based rules.
    std::string check;
    std::vector<std::string> group_by;  ///< labels a finding is per, e.g. device, port, priority
    double hold_s = 0;                  ///< the condition must hold this long
    Expr when;
    std::vector<Condition> supports;  ///< corroborating signals (confidence, timeline)
    std::vector<Alternative> alternatives;
    std::vector<Escalation> escalate;  ///< first matching one sets the severity
};

struct RuleSet {
    std::string source;  ///< file it was loaded from
    std::vector<RuleSpec> rules;
};

/// Parses and validates a rules file's JSON. Error: "<name>: rules[3].when.all[1].threshold:
/// expected a number" — unknown fields, wrong types, numbers out of range (a negative
/// window_s or hold_s), unknown series/measures, duplicate ids, unknown inventory checks and an
/// empty `rules` list are all errors (a typo must not silently disable a rule).
Result<RuleSet> parse_rules(const nlohmann::json& j, const std::string& name);

/// Reads a rules file through read_json_file (core/json_file.h) and parse_rules. Errors name
/// the path: missing, unreadable, not JSON (with line and column), a key given twice
/// ("duplicate key rules[3].when.window_s"), then parse_rules' problems.
Result<RuleSet> load_rules_file(const std::string& path);

/// The rules file used when none is given: $ROCEHEALTH_RULES if set, else
/// /etc/rocehealth/rules.json if it exists (the operator's override), else the packaged
/// <prefix>/share/rocehealth/rules.json, else the source tree's rules/rocehealth-rules.json.
std::string default_rules_path();

}  // namespace rh

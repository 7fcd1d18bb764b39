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
                     ///< (link_pause_duration_us / link_pause_frames alike for 802.3x pause)
    per_bit,         ///< errors per bit the line carried: rate / (port_rate_gbps x 1e9), max
                     ///< over the series (a bit error ratio; an error is at least one bit)
    share,           ///< the group's increase / the increase summed over the series of the same
                     ///< name on the same host, device and port (e.g. one lane of four), 0..1
    /// A cumulative counter's reading at t: its count since the counters were last reset (one
    /// capture is enough; a 32-bit counter that wrapped reads low). Only in lifetime rules.
    lifetime_value,
    /// lifetime_value per million of the condition's `per` counter (same host and port), e.g.
    /// ACK timeouts per million RoCE packets sent; unknown without a `per` reading above 0.
    lifetime_per_million,
    /// A duration counter's reading in microseconds (pfc_pause_duration_us) / 10^6 / the
    /// host's `uptime_s` gauge in the same capture: the share of the time since boot it counts,
    /// 0..1. Holds only if the counters were not reset since boot (else it reads low); unknown
    /// without an uptime above 0.
    lifetime_share_of_uptime,
};

/// Whether `m` reads counters since their last reset (valid on a single capture).
bool is_lifetime(Measure m);

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
    /// For lifetime_per_million: the counters it is weighed against, tried in order (the first
    /// series name with a reading for the group is used, its series summed).
    std::vector<std::string> per;
    /// With measure `value` only: the condition holds only where the gauge changed side within
    /// the data — at t it is on the condition's side and an earlier point was not (entered:
    /// up -> down), or it left at t the side it had been on since the data began (down -> up,
    /// measured as the value it left). A gauge on the condition's side since the data began (a
    /// port down throughout) is a state, not a change: the condition is false there.
    bool changed_in_data = false;
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

/// A severity above the rule's own: for a time-based rule when `when` holds during the
/// finding; for an inventory check when the check gave the named `outcome` (rules/rule.h
/// CheckOutcome), since only the check can tell, e.g., a PCIe path below the port's rate.
struct Escalation {
    Severity severity = Severity::error;
    Expr when;            ///< time-based rules
    std::string outcome;  ///< inventory checks
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
    /// A lifetime rule (its `when` reads lifetime_value / lifetime_per_million / value): the
    /// time-based rules whose rate evidence outranks it. It is evaluated on a host's latest
    /// capture only where one of them could not be judged (EngineResult::not_judged: one
    /// capture, or a span shorter than its window or hold); elsewhere, if it holds, it is a
    /// historical note. Its findings have confidence "low". Empty for other rules.
    std::vector<std::string> instead_of;
};

struct RuleSet {
    std::string source;  ///< file it was loaded from
    std::vector<RuleSpec> rules;
};

/// What check_rules found: the rules that parsed without a problem, and every problem as
/// "<name>: rules[3].when: ..." (read by the one JSON reader, core/json/json_reader.h: every
/// problem of every rule, then the file's cross-rule problems), in file order.
struct RuleCheck {
    RuleSet set;
    std::vector<std::string> problems;  ///< empty: the file is valid
};

/// Validates a rules file's JSON as parse_rules does and reports every problem, as promtool
/// check rules does (`rocehealth rules check`).
RuleCheck check_rules(const nlohmann::json& j, const std::string& name);

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

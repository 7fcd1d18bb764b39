// Inventory checks (rules/rule.h) run as a rules file lists them: which checks run, and the
// severity of their findings, come from the rules file alone (issue 14 §7).
#pragma once

#include "rules/engine/rule_spec.h"
#include "rules/rule.h"

namespace rh {

/// The severity of check rule `rule`'s finding `f`: the first `escalate` entry naming
/// f.outcome, else the rule's own severity.
Severity check_severity(const RuleSpec& rule, const Finding& f);

/// Runs the per-host inventory checks that `rules` lists, in its order, on `in` (one host's
/// snapshot): findings carry the rule's id and graded severity; RuleOutput::rules lists the
/// check rules run. A device with no readable port is unevaluated. Used by `rocehealth check`;
/// the engine (rules/engine/engine.cpp) runs the same checks over recorded inventories.
RuleOutput run_host_checks(const RuleSet& rules, const RuleInput& in);

}  // namespace rh

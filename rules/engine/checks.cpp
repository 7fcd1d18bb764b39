#include "rules/engine/checks.h"

namespace rh {

Severity check_severity(const RuleSpec& rule, const Finding& f) {
    if (!f.outcome.empty())
        for (const Escalation& e : rule.escalate)
            if (e.outcome == f.outcome) return e.severity;
    return rule.severity;
}

RuleOutput run_host_checks(const RuleSet& rules, const RuleInput& in) {
    RuleOutput out;
    note_portless_devices(in.local, out);
    for (const RuleSpec& rule : rules.rules) {
        const RuleDef* def = rule.check.empty() ? nullptr : find_check(rule.check);
        if (!def) continue;
        out.rules.push_back(rule.id);
        RuleOutput ro;
        def->evaluate(in, ro);
        for (Finding& f : ro.findings) {
            f.rule_id = rule.id;
            f.severity = check_severity(rule, f);
            out.findings.push_back(std::move(f));
        }
        for (Note& n : ro.unevaluated) out.unevaluated.push_back(std::move(n));
        for (Note& n : ro.not_judged) out.unevaluated.push_back(std::move(n));
        for (Note& n : ro.notes) out.notes.push_back(std::move(n));
    }
    return out;
}

}  // namespace rh

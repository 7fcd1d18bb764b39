// The log rules' identities: every finding rules/joblog emits carries one of these ids, with
// the severity it opens at, so `rules/README.md` ("Log rules") and the code
// cannot drift apart (tests/rules/test_rules_readme.cpp compares them). Rule ids start with
// "job_" (read from the job's own log: NCCL, UCX, perftest) or "kernel_" (the kernel's log).
#pragma once

#include <span>
#include <string_view>

#include "core/finding.h"

namespace rh {

/// One log rule: its id (the finding's `rule`) and the severity its finding opens at. When it
/// fires is said once, in rules/README.md's table.
struct LogRuleDef {
    const char* id;
    Severity severity;
};

/// Every log rule, in the order rules/README.md lists them.
std::span<const LogRuleDef> log_rule_defs();

/// The log rule `id`; throws std::logic_error for an id not in log_rule_defs() (a programming
/// error: a rule emitted under a name nobody documented).
const LogRuleDef& log_rule(std::string_view id);

}  // namespace rh

#include "rules/joblog/log_rule_ids.h"

#include <stdexcept>
#include <string>

namespace rh {

namespace {
constexpr LogRuleDef kLogRules[] = {
    {"job_retry_exceeded", Severity::error},
    {"job_rnr_retry_exceeded", Severity::error},
    {"job_remote_access_error", Severity::error},
    {"job_local_protection_error", Severity::error},
    {"job_completion_error", Severity::error},
    {"job_wr_flushed", Severity::warning},
    {"job_async_event", Severity::error},
    {"kernel_link_down", Severity::error},
    {"kernel_command_timeout", Severity::warning},
    {"kernel_pcie_error", Severity::error},
    {"kernel_pcie_corrected_errors", Severity::warning},
    {"job_slow_result", Severity::warning},
    {"job_traffic_class", Severity::error},
    {"job_gid_index", Severity::error},
};
}  // namespace

std::span<const LogRuleDef> log_rule_defs() {
    return kLogRules;
}

const LogRuleDef& log_rule(std::string_view id) {
    for (const LogRuleDef& d : kLogRules)
        if (id == d.id) return d;
    throw std::logic_error("log rule '" + std::string(id) + "' is not in log_rule_defs()");
}

}  // namespace rh

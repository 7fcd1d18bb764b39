#include "agent/replay/replay.h"

#include <limits>

#include "core/exit_codes.h"

namespace rh {

StoreLimits replay_store_limits() {
    return StoreLimits{std::numeric_limits<double>::infinity(),
                       std::numeric_limits<std::size_t>::max()};
}

EngineOptions replay_engine_options() {
    EngineOptions opts;
    opts.lifetime_rules = true;
    return opts;
}

int diagnosis_exit_code(const EngineResult& result) {
    if (!result.findings.empty()) return kExitFindings;
    return result.not_judged.empty() ? kExitOk : kExitCannotRun;
}

}  // namespace rh

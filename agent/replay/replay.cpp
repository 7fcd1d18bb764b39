#include "agent/replay/replay.h"

#include <limits>

#include "core/exit_codes.h"

namespace rh {

StoreLimits replay_store_limits() {
    // Plain points: a replay holds the whole recording and reads each point many times.
    return StoreLimits{std::numeric_limits<double>::infinity(),
                       std::numeric_limits<std::size_t>::max(), false};
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

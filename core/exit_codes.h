// The process exit codes every rocehealth command shares (README.md, "Commands"): what a script
// or a CI step reads. Here, not in agent/cli/, because `rules test` (agent/replay/) reports the
// exit each scenario's diagnosis would give with the same three values.
#pragma once

namespace rh {

inline constexpr int kExitOk = 0;         ///< ok, healthy, no finding
inline constexpr int kExitFindings = 1;   ///< findings, or a measurement that failed
inline constexpr int kExitCannotRun = 2;  ///< could not run (bad input, no device, unreachable
                                          ///< peer) or could not judge

}  // namespace rh

// The result of `rocehealth diagnose` (and of the engine wherever it runs on recorded data) as a
// JSON document, and its text rendering. Text is rendered from the JSON, so both say the same.
//
// JSON shape (schema 1):
//   {"schema": 1, "rules_file": "...", "inputs": [{"name", "samples", "hosts", "notes"}],
//    "hosts": [...], "span": {"t_first", "t_last", "wall_clock", "seconds"},
//    "findings": [Finding (core/finding.h to_json)...],       ordered by opening time
//    "timeline": [TimelineEvent + {"rule", "severity"}...],   every finding's events, by time
//    "not_applicable": [{"subject", "text"}], "unevaluated": [{"subject", "text"}]}
// Times "t" are engine seconds: UTC seconds when span.wall_clock, else the recording's
// monotonic seconds.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rules/engine/engine.h"
#include "store/inputs.h"

namespace rh::cli {

nlohmann::json diagnose_json(const EngineResult& r, const std::string& rules_file,
                             const std::vector<InputReport>& inputs);

/// Human-readable: verdict line, each finding (summary, evidence, alternatives, confidence),
/// the merged timeline with times as UTC (wall clock) or +seconds from the start, then what
/// could not be evaluated. `verbose` also lists inputs' notes and not-applicable rules.
void render_diagnose_text(std::ostream& out, const nlohmann::json& doc, bool verbose);

/// "2026-11-29T10:00:05.123Z" for wall-clock engine times, else "+12.0s" from `t_first`.
std::string format_engine_time(double t, bool wall_clock, double t_first);

}  // namespace rh::cli

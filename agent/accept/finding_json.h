// Reads a finding back from the JSON that `rocehealth diagnose --json` writes (core/finding.h
// to_json): {"rule", "severity", "host", "device", "port", "summary", "evidence", "labels"} and,
// for time-based rules, "opened_t", "opened_wall_ms", "closed_t" (null while holding),
// "closed_wall_ms", "episodes", "explanation", "timeline", "alternatives", "confidence".
// Writing uses core's to_json, so a finding read here writes back to the same JSON.
#pragma once

#include "core/finding.h"
#include "core/json/json_reader.h"

namespace rh::accept {

/// The finding at `in` (an object). Problems are added to in's error list, naming their paths
/// ("stages[4].findings[0].severity: expected one of info, warning, error, got ...").
Finding finding_from_json(const JsonReader& in);

}  // namespace rh::accept

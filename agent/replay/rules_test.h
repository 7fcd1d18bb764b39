// `rocehealth rules test`: replays scenario directories through a rules file and compares the
// findings with what each scenario expects, as `promtool test rules` does for Prometheus rules.
// A scenario directory (tests/scenarios/README.md) holds recordings (*.jsonl, store/README.md)
// and expected.json: {"findings": [{"rule", "host", "labels"?, "severity"?}, ...], "exit": N}.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/result.h"
#include "core/sample.h"
#include "rules/engine/rule_spec.h"

namespace rh {

/// A finding a scenario expects (one entry of expected.json's "findings").
struct Expected {
    std::string rule, host, severity;  ///< severity "" = any
    Labels labels;                     ///< a subset of the reported finding's labels
};

/// Reads an expected.json document (`path` names it in errors) with the one JSON reader
/// (core/json/json_reader.h): the expected findings and exit code. Error: every problem, each
/// named by its path (unknown member, missing "exit", exit outside 0..2, unknown severity, a
/// finding expected twice).
Result<std::pair<std::vector<Expected>, int>> expected_from_json(const nlohmann::json& doc,
                                                                 const std::string& path);

/// One scenario's outcome. `problems` is empty when it went as expected; otherwise it lists
/// "exit 2, expected 1", "missing rnr@gpu01/error", "unexpected pause_storm@gpu02{priority=3}".
struct ScenarioOutcome {
    std::string name;   ///< the directory's name
    int exit_code = 0;  ///< what `diagnose --replay` would exit with
    int expected_exit = 0;
    std::vector<std::string> expected;  ///< expected findings as "rule@host{labels}/severity"
    std::vector<std::string> got;       ///< reported findings, same form, sorted, unique
    std::vector<std::string> problems;
};

/// Replays every *.jsonl of `dir` (in name order) through `rules` as `diagnose --replay` does and
/// matches the findings with dir/expected.json: an expected finding matches a reported one with
/// the same rule and host, whose labels include the expected labels and whose severity is the
/// expected one; every expected finding must be reported and every reported one expected.
/// Errors (exit 2 of the command): no expected.json or no recording in `dir`, expected.json
/// not valid (naming the file and field), a recording that cannot be read (naming it).
Result<ScenarioOutcome> run_scenario(const std::string& dir, const RuleSet& rules);

/// The scenario directories `path` names: `path` itself when it holds expected.json, else its
/// sub-directories that do, in name order. Error: neither.
Result<std::vector<std::string>> scenario_dirs(const std::string& path);

}  // namespace rh

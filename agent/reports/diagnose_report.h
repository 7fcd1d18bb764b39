// The result of `rocehealth diagnose` (and of the engine wherever it runs on recorded data): one
// typed model (DiagnoseReport) that the JSON writer and the text formatter both take, so both
// say the same.
//
// JSON shape (schema 1):
//   {"schema": 1, "rules_file": "...", "inputs": [{"name", "samples", "hosts", "notes"}],
//    "hosts": [...], "span": {"t_first", "t_last", "wall_clock", "seconds"},
//    "findings": [Finding (core/finding.h to_json)...],       ordered by opening time
//    "timeline": [TimelineEvent + {"rule", "severity"}...],   every finding's events, by time
//    "not_applicable": [{"subject", "text"}], "unevaluated": [{"subject", "text"}],
//    "not_judged": [{"host", "rule", "kind", "window_s", "hold_s", "need_s", "span_s",
//                    "captures", "text"}],      rules the data was too short for (NotJudged)
//    "history": [{"subject", "text"}],          lifetime counts the rates show are old
//    "verdict": "findings" | "healthy" | "could_not_judge",
//    "could_not_judge": "could not judge rates: ..." (with not_judged entries; for live inputs
//                       also "could not judge: N items could not be evaluated (...)"),
//    "error": the same sentence when the verdict is could_not_judge (exit 2)}
// An input error (exit 2 before any rule ran) is {"schema": 1, "verdict": "error", "error": "..."}
// instead (cmd_diagnose.cpp).
// Times "t" are engine seconds: UTC seconds when span.wall_clock, else the recording's
// monotonic seconds.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/replay/inputs.h"
#include "rules/engine/engine.h"

namespace rh {

/// The engine's result with what the formatters add: the inputs, the rules file and the
/// verdict. Built by diagnose_report(); written by to_json and render_diagnose_text.
struct DiagnoseReport {
    EngineResult engine;
    std::string rules_file;
    std::vector<InputReport> inputs;
    /// Captures of hosts with no clock (InputReport::spacing_unknown): their engine times are
    /// an order, 1 apart, not seconds.
    std::size_t unspaced_captures = 0;
    /// not_judged_sentence(), or for live inputs "could not judge: N items could not be
    /// evaluated (...)"; empty when the data was judged.
    std::string could_not_judge;

    /// "findings" | "healthy" | "could_not_judge".
    std::string verdict() const;
};

/// One entry of the merged timeline: a finding's event with the finding it belongs to.
struct DiagnoseTimelineEntry {
    const Finding* finding;
    const TimelineEvent* event;
};

/// Every finding's timeline events of `findings`, stably ordered by time.
std::vector<DiagnoseTimelineEntry> merged_timeline(const std::vector<Finding>& findings);

/// `captures`: the inputs are bundle captures (sentences say "the captures of HOST span 10 s",
/// else "the data of HOST spans 10 s"). `live`: the inputs are this host's own sysfs read every
/// pass (the agent): an unevaluated item (a port state unreadable) then makes the verdict
/// could_not_judge, as `check` says INCOMPLETE on the same tree; captures and recordings may
/// simply not hold a source, so for them only not_judged rules do.
DiagnoseReport diagnose_report(EngineResult r, std::string rules_file,
                               std::vector<InputReport> inputs, bool captures = false,
                               bool live = false);

/// The JSON shape above.
void to_json(nlohmann::json& j, const DiagnoseReport& d);

/// "could not judge rates: one capture of gpu01, rates need two (rnr, retransmits, ...);
/// ecn_counters_inconsistent needs 30 s of data (a 30 s window, a 20 s hold), the captures of
/// gpu02 span 10 s" — one sentence for every NotJudged of `r`; empty when there is none.
std::string not_judged_sentence(const EngineResult& r, bool captures);

/// Human-readable: verdict line, each finding (summary, evidence, alternatives, confidence),
/// the merged timeline with times as UTC (wall clock) or +seconds from the start, then what
/// could not be evaluated. `verbose` also lists inputs' notes and not-applicable rules.
void render_diagnose_text(std::ostream& out, const DiagnoseReport& d, bool verbose);

/// "2026-11-29T10:00:05.123Z" for wall-clock engine times, else "+12.0s" from `t_first`.
std::string format_engine_time(double t, bool wall_clock, double t_first);

}  // namespace rh

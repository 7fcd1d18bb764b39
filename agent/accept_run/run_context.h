// What the acceptance stages share while `rocehealth accept --spec` runs: the spec, the clock of
// the report (seconds since started_wall_ms), the output directory, the progress line, the
// recording lines gathered so far (saved as DIR/samples.jsonl for `diagnose --replay`) and what
// the inventory learnt about each host (its hostname and link rate).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/accept/report_model.h"
#include "agent/accept_run/progress.h"
#include "agent/accept_run/run_stop.h"
#include "agent/accept_run/spec.h"
#include "rules/engine/rule_spec.h"

namespace rh::accept {

struct RunContext {
    const Spec& spec;
    std::int64_t started_wall_ms = 0;
    std::filesystem::path out_dir;
    Progress& progress;
    RunStop& stop;  ///< a signal or the stage's time limit: end the stage with what it measured
    const RuleSet& rules;
    std::string rules_file;
    std::vector<nlohmann::json> samples;  ///< recording lines (core/recording/sample_json.h) of the run
    std::mutex mu;  ///< guards samples and progress while flows run in parallel (concurrency)
    /// From the inventory stage: each host's own hostname -> spec name, link rate (Gb/s), version.
    std::map<std::string, std::string> name_of_hostname;
    std::map<std::string, double> link_gbps;
    std::map<std::string, std::string> version;  ///< spec name -> its rocehealth version

    /// Seconds since started_wall_ms, now.
    double now_s() const;
    /// True once the run is to stop (run_stop.h): stages look between pairs and in long waits.
    bool stopping() const { return stop.requested.load(); }
    /// Seconds since started_wall_ms of a UTC ms time.
    double t_of(std::int64_t wall_ms) const {
        return static_cast<double>(wall_ms - started_wall_ms) / 1000.0;
    }
    /// The spec name of a host given by address (HOST[:PORT] as in the spec) or hostname;
    /// the text itself when unknown.
    std::string name_of(const std::string& address_or_hostname) const;
    /// The spec name of the host this runs on (by hostname, or an address of its own); "" when
    /// it is not one of the spec's hosts.
    std::string self_name() const;
    /// Writes `text` to DIR/rel (creating folders); returns false (with a note on stderr) when
    /// it could not.
    bool save(const std::string& rel, const std::string& text) const;
};

/// A criterion with `pass` computed (criterion_holds).
Criterion make_criterion(std::string name, std::string comparison, Scalar threshold,
                         std::string unit, Scalar measured, std::vector<std::string> evidence);

/// Sets the stage verdict from its criteria: fail when any fails, pass when all pass, error
/// (with `reason`) when there are none.
void settle(Stage& s);

/// j[key] when it is a number; nullopt when j is not an object, or key is missing or not a number.
std::optional<double> number_at(const nlohmann::json& j, const char* key);

/// Adds "findings of severity error <= criteria.max_error_findings" over st.findings (evidence:
/// each error finding); findings for which `expected` is true (a fault the stage caused on
/// purpose) are not counted.
void add_error_findings_criterion(Stage& st, const RunContext& cx,
                                  const std::function<bool(const Finding&)>& expected = {});

/// A stage `id` starting now (start_s set).
Stage begin_stage(StageId id, const RunContext& cx);
/// Ends a stage: stores `results`, sets end_s to now, and settles the verdict from the criteria.
void finish_stage(Stage& st, const RunContext& cx, StageResults results);
/// Ends a stage that could not be measured: stores `results`, sets end_s, verdict `error` with
/// `reason`.
void end_stage_in_error(Stage& st, const RunContext& cx, StageResults results, std::string reason);

}  // namespace rh::accept

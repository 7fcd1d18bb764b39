// `rocehealth accept --spec FILE --out DIR`: runs the spec's stages through the hosts'
// responders and writes DIR/report.json (agent/accept/README.md), report.html and report.md
// (the existing renderers), DIR/samples.jsonl (every recording line of the run, for
// `rocehealth diagnose --replay`) and DIR/raw/* (each stage's raw replies).
#pragma once

#include <filesystem>
#include <string>

#include "agent/accept_run/progress.h"
#include "agent/accept_run/spec.h"

namespace rh::accept {

struct RunnerOptions {
    std::filesystem::path out_dir;
    bool json = false;  ///< print report.json on stdout instead of the summary
    ProgressMode progress = ProgressMode::off;  ///< progress on stderr (progress.h)
    std::string rules_file;  ///< rules for the findings (default_rules_path when empty)
};

/// Runs every stage and writes the report directory. SIGINT/SIGTERM or a stage past its time
/// limit (Spec::stage_time_limit_s) stop the run within a second or two: the stage is cut short
/// keeping what it measured, later stages are `not_run`, and the report is still written
/// (verdict incomplete, `interrupted` naming the stage and why; stderr says where it is).
/// Returns the exit code: 0 pass, 1 fail, 2 incomplete (a stage could not run, or the run was
/// stopped) or the report could not be written.
int run_acceptance(const Spec& spec, const RunnerOptions& o);

}  // namespace rh::accept

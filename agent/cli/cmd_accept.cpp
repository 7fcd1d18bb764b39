// rocehealth accept: the acceptance report of a RoCE fabric (agent/accept/README.md).
//   accept --spec FILE --out DIR   runs the spec's stages through every host's responder and
//                                  writes DIR/report.json, report.html, report.md, samples.jsonl
//                                  and raw/ (agent/accept_run/runner.h)
//   accept --render DIR            renders an existing DIR/report.json into DIR/report.html (one
//                                  self-contained page) and DIR/report.md (a summary for tickets)
// Exit: 0 the verdict is pass, 1 fail, 2 could not run (bad spec — each problem names its field
// — unreadable or invalid report.json, or an incomplete report: a stage could not run, or the run
// was stopped by SIGINT/SIGTERM or a stage's time limit, and the report keeps what was measured).
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "agent/accept/render_dir.h"
#include "agent/accept_run/runner.h"
#include "agent/accept_run/spec.h"
#include "agent/cli/commands.h"
#include "agent/cli/key_option.h"
#include "agent/cli/options.h"

namespace rh::cli {

namespace {

int render(const std::string& render_dir) {
    const auto out = accept::render_report_dir(render_dir);
    if (!out.verdict) {
        for (const auto& e : out.errors) std::cerr << "rocehealth accept: " << e << "\n";
        return kExitCannotRun;
    }
    std::cout << "acceptance " << accept::to_string(*out.verdict) << ": wrote " << out.html.string()
              << " and " << out.md.string() << "\n";
    switch (*out.verdict) {
        case accept::Verdict::pass:
            return kExitOk;
        case accept::Verdict::fail:
            return kExitFindings;
        case accept::Verdict::incomplete:
            return kExitCannotRun;
    }
    return kExitCannotRun;
}

/// The options as given.
struct AcceptArgs {
    std::string render_dir, spec_file, out_dir, rules_file, key_file;
    bool json = false, check_spec = false;
};

po::options_description accept_options(AcceptArgs& a) {
    po::options_description desc("options");
    desc.add_options()("help,h", "show this help")(
        "spec", po::value(&a.spec_file),
        "run the acceptance described by this spec file (JSON, agent/accept/README.md)")(
        "out", po::value(&a.out_dir),
        "report directory for --spec (created if missing; one that already holds a report.json is "
        "refused)")(
        "check-spec", po::bool_switch(&a.check_spec),
        "with --spec: validate the spec, print it with every default filled in, run nothing")(
        "rules", po::value(&a.rules_file),
        "rules file for the findings (default: $ROCEHEALTH_RULES, /etc/rocehealth/rules.json, "
        "the packaged one)")("json", po::bool_switch(&a.json),
                             "print report.json instead of the summary (no progress)")(
        "render", po::value(&a.render_dir),
        "render DIR/report.json into DIR/report.html and DIR/report.md");
    add_key_file_option(desc, a.key_file);
    return desc;
}

/// --spec: checks --out, then runs the stages into it (agent/accept_run/runner.h).
int run_spec(const AcceptArgs& a, const accept::Spec& spec) {
    if (auto exit = install_fabric_key("accept", a.key_file)) return *exit;
    if (a.out_dir.empty()) {
        std::cerr << "rocehealth accept: --spec needs --out DIR\n";
        return kExitCannotRun;
    }
    // A report people filed is evidence: never overwritten by a new run.
    if (std::error_code ec;
        std::filesystem::exists(std::filesystem::path(a.out_dir) / "report.json", ec)) {
        std::cerr << "rocehealth accept: " << a.out_dir
                  << " already holds a report (report.json); refusing to overwrite it (choose "
                     "another --out)\n";
        return kExitCannotRun;
    }
    accept::RunnerOptions o;
    o.out_dir = a.out_dir;
    o.json = a.json;
    // A terminal gets the line rewritten in place; a CI log a timestamped line per stage and pair.
    o.progress = a.json                    ? accept::ProgressMode::off
                 : ::isatty(STDERR_FILENO) ? accept::ProgressMode::tty
                                           : accept::ProgressMode::log;
    o.rules_file = a.rules_file;
    return accept::run_acceptance(spec, o);
}

}  // namespace

int run_accept(const std::vector<std::string>& args) {
    AcceptArgs a;
    const auto desc = accept_options(a);
    po::variables_map vm;
    if (auto exit = parse_options(
            "accept", "rocehealth accept --spec FILE --out DIR [--json] | --render DIR",
            "Acceptance of a RoCE fabric against a spec: inventory and consistency, all-pairs\n"
            "latency, bandwidth, concurrency, incast, a controlled link fault (only when the\n"
            "spec lists it and the host's responder runs with --allow-fault), rkey revocation,\n"
            "through every host's `rocehealth responder`; writes report.json, report.html,\n"
            "report.md and the run's samples.\n"
            "SIGINT/SIGTERM or a stage past its time limit (spec stage_time_limit_s) stop the\n"
            "run and still write an incomplete report of what was measured.\n"
            "Exit: 0 pass, 1 fail, 2 could not run or incomplete.",
            args, desc, vm))
        return *exit;
    if (!a.render_dir.empty()) {
        if (!a.spec_file.empty()) {
            std::cerr << "rocehealth accept: give either --spec or --render, not both\n";
            return kExitCannotRun;
        }
        return render(a.render_dir);
    }
    if (a.spec_file.empty()) {
        std::cerr << "rocehealth accept: give --spec FILE --out DIR (or --render DIR)\n";
        return kExitCannotRun;
    }
    const auto parsed = accept::spec_from_file(a.spec_file);
    if (!parsed.spec) {
        for (const auto& e : parsed.errors) std::cerr << "rocehealth accept: " << e << "\n";
        return kExitCannotRun;
    }
    if (a.check_spec) {
        std::cout << accept::spec_to_json(*parsed.spec).dump(2) << "\n";
        return kExitOk;
    }
    return run_spec(a, *parsed.spec);
}

}  // namespace rh::cli

#include "agent/accept_run/runner.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>

#include "agent/accept/render_dir.h"
#include "agent/accept_run/stages.h"
#include "core/clock.h"

namespace rh::accept {

namespace {

constexpr const char* kSamplesFile = "samples.jsonl";

Stage not_run(StageId id, const std::string& why, StageVerdict v) {
    Stage s;
    s.id = id;
    s.verdict = v;
    s.reason = why;
    return s;
}

Stage run_stage(StageId id, RunContext& cx) {
    switch (id) {
        case StageId::inventory:
            return run_inventory_stage(cx);
        case StageId::idle_latency:
            return run_latency_stage(cx);
        case StageId::bandwidth:
            return run_bandwidth_stage(cx);
        case StageId::incast:
            return run_incast_stage(cx);
        case StageId::rkey_revocation:
            return run_rkey_stage(cx);
        case StageId::concurrency:
            return run_concurrency_stage(cx);
        case StageId::fault:
            return run_fault_stage(cx);
    }
    return not_run(id, "unknown stage", StageVerdict::error);
}

/// Ends a stage the run stopped in the middle of (run_stop.h): `error` with `why`, keeping its
/// results, findings and counters; its criteria go, as they judge the whole stage.
void cut_short(Stage& st, const std::string& why, double now_s) {
    st.verdict = StageVerdict::error;
    st.reason = why + (st.reason.empty() ? "" : "; " + st.reason);
    st.criteria.clear();
    if (!st.end_s) st.end_s = now_s;
}

/// "interrupted by SIGTERM 12 s into the stage" / "stage bandwidth exceeded its 120 s limit".
Interruption interruption_of(StageId id, const RunStop& stop, double limit_s, double ran_s) {
    char text[160];
    if (const int sig = stop.signal.load(); sig != 0) {
        std::snprintf(text, sizeof text, "interrupted by %s %.0f s into the stage",
                      signal_name(sig).c_str(), ran_s);
        return {id, "signal", text};
    }
    std::snprintf(text, sizeof text, "stage %s exceeded its %.0f s limit", to_string(id).c_str(),
                  limit_s);
    return {id, "time_limit", text};
}

void print_summary(const Report& r, const RenderOutcome& out, std::ostream& os) {
    os << "acceptance " << to_string(r.verdict) << " (" << r.spec.value("name", "")
       << "): " << out.html.string() << "\n";
    if (r.interrupted)
        os << "  stopped: " << r.interrupted->reason << " (" << to_string(r.interrupted->stage)
           << "); report.json, report.html and report.md keep what was measured\n";
    for (const auto& s : r.stages) {
        os << "  " << to_string(s.id) << ": " << to_string(s.verdict);
        if (s.verdict == StageVerdict::error || s.verdict == StageVerdict::skipped ||
            s.verdict == StageVerdict::not_run)
            os << " (" << s.reason << ")";
        os << "\n";
        for (const auto& c : s.criteria)
            if (!c.pass) os << "    failed: " << c.name << "\n";
    }
}

/// The stage `id` when it is not to run: not in the spec, after the run stopped, after a signal
/// between two stages (then `r.interrupted` is set), or when the inventory reached no host.
std::optional<Stage> stage_not_to_run(StageId id, const Spec& spec, Report& r, const RunStop& stop,
                                      const std::string& none_answered) {
    if (!spec.runs(id)) return not_run(id, "not in the spec's stages", StageVerdict::skipped);
    if (r.interrupted)
        return not_run(id,
                       "not run: the run stopped in stage " + to_string(r.interrupted->stage) +
                           " (" + r.interrupted->reason + ")",
                       StageVerdict::not_run);
    if (stop.requested.load()) {  // a signal between two stages: this one never began
        r.interrupted = interruption_of(id, stop, 0, 0);
        r.interrupted->reason =
            "interrupted by " + signal_name(stop.signal.load()) + " before the stage began";
        return not_run(id, r.interrupted->reason, StageVerdict::not_run);
    }
    if (!none_answered.empty()) return not_run(id, none_answered, StageVerdict::error);
    return std::nullopt;
}

/// Runs stage `id` within its time limit; a stop during it cuts it short and sets
/// `r.interrupted`.
Stage run_timed_stage(StageId id, RunContext& cx, Report& r) {
    const double limit_s = cx.spec.stage_time_limit_s(id);
    cx.progress.stage_started(to_string(id), limit_s);
    const double t0 = cx.now_s();
    Stage st;
    {
        const StageTimer timer(cx.stop, limit_s);
        st = run_stage(id, cx);
    }
    if (cx.stop.requested.load()) {
        r.interrupted = interruption_of(id, cx.stop, limit_s, cx.now_s() - t0);
        cut_short(st, r.interrupted->reason, cx.now_s());
    }
    cx.progress.stage_ended(to_string(id), to_string(st.verdict), cx.now_s() - t0);
    return st;
}

/// Every stage in order into `r.stages`, run or with the reason it was not.
void run_stages(RunContext& cx, Report& r) {
    std::string none_answered;  // set when the inventory reached no host: nothing else can run
    for (StageId id : all_stage_ids()) {
        if (auto skipped = stage_not_to_run(id, cx.spec, r, cx.stop, none_answered)) {
            r.stages.push_back(std::move(*skipped));
            continue;
        }
        Stage st = run_timed_stage(id, cx, r);
        if (const auto* inv = std::get_if<InventoryResults>(&st.results);
            id == StageId::inventory && inv && inv->hosts.empty() && !r.interrupted)
            none_answered = "not run: no host's responder answered the inventory";
        r.stages.push_back(std::move(st));
    }
}

/// The run's recording lines into samples.jsonl, linked from every stage that ran.
void save_samples(const RunContext& cx, Report& r) {
    {
        std::ofstream f(cx.out_dir / kSamplesFile);
        for (const auto& line : cx.samples)
            f << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
        if (!f)
            std::cerr << "rocehealth accept: cannot write " << (cx.out_dir / kSamplesFile).string()
                      << "\n";
    }
    for (auto& s : r.stages)
        if (s.verdict != StageVerdict::skipped && s.verdict != StageVerdict::not_run &&
            !cx.samples.empty())
            s.evidence_links.push_back(
                {"samples of the whole run (rocehealth diagnose --replay)", kSamplesFile});
}

int exit_code(Verdict v) {
    switch (v) {
        case Verdict::pass:
            return 0;
        case Verdict::fail:
            return 1;
        case Verdict::incomplete:
            return 2;
    }
    return 2;
}

}  // namespace

int run_acceptance(const Spec& spec, const RunnerOptions& o) {
    std::error_code ec;
    std::filesystem::create_directories(o.out_dir, ec);
    if (ec) {
        std::cerr << "rocehealth accept: cannot create " << o.out_dir.string() << ": "
                  << ec.message() << "\n";
        return 2;
    }
    const std::string rules_file = o.rules_file.empty() ? default_rules_path() : o.rules_file;
    const auto rules = load_rules_file(rules_file);
    if (!rules) {
        std::cerr << "rocehealth accept: " << rules.error().message() << "\n";
        return 2;
    }
    // From here SIGINT/SIGTERM only ask the run to stop: the report of what was measured is
    // still written (a second signal ends the process at once).
    const StopSignals signals;
    RunStop& stop = process_run_stop();
    Progress progress(o.progress);
    RunContext cx{
        spec, wall_now_ms(), o.out_dir, progress, stop, *rules, rules_file, {}, {}, {}, {}, {}};
    Report r;
    r.spec = spec_to_json(spec);
    r.started_wall_ms = cx.started_wall_ms;
    for (const auto& h : spec.hosts) r.hosts.push_back({h.name, h.address, ""});
    run_stages(cx, r);
    save_samples(cx, r);
    for (auto& h : r.hosts)
        if (auto it = cx.version.find(h.name); it != cx.version.end()) h.version = it->second;
    r.finished_wall_ms = wall_now_ms();
    r.verdict = derived_verdict(r);
    const std::string text =
        report_to_json(r).dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
    if (auto e = write_file_atomically(o.out_dir / "report.json", text); !e.empty()) {
        std::cerr << "rocehealth accept: " << e << "\n";
        return 2;
    }
    const auto out = render_report_dir(o.out_dir);
    if (!out.verdict) {
        for (const auto& e : out.errors) std::cerr << "rocehealth accept: " << e << "\n";
        return 2;
    }
    if (o.json)
        std::cout << text << "\n";
    else
        print_summary(r, out, std::cout);
    if (r.interrupted)  // stderr too: with --json, or stdout going nowhere, the log says where
        std::cerr << "rocehealth accept: " << r.interrupted->reason << " (stage "
                  << to_string(r.interrupted->stage) << "): the incomplete report is in "
                  << o.out_dir.string() << " (report.json, report.html, report.md)\n";
    return exit_code(r.verdict);
}

}  // namespace rh::accept

#include "agent/accept_run/runner.h"

#include <fstream>
#include <iostream>

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

void print_summary(const Report& r, const RenderOutcome& out, std::ostream& os) {
    os << "acceptance " << to_string(r.verdict) << " (" << r.spec.value("name", "")
       << "): " << out.html.string() << "\n";
    for (const auto& s : r.stages) {
        os << "  " << to_string(s.id) << ": " << to_string(s.verdict);
        if (s.verdict == StageVerdict::error || s.verdict == StageVerdict::skipped)
            os << " (" << s.reason << ")";
        os << "\n";
        for (const auto& c : s.criteria)
            if (!c.pass) os << "    failed: " << c.name << "\n";
    }
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
    Progress progress(o.progress);
    RunContext cx{spec, wall_now_ms(), o.out_dir, progress, *rules, rules_file, {}, {}, {}, {}, {}};
    Report r;
    r.spec = spec_to_json(spec);
    r.started_wall_ms = cx.started_wall_ms;
    for (const auto& h : spec.hosts) r.hosts.push_back({h.name, h.address, ""});
    std::string none_answered;  // set when the inventory reached no host: nothing else can run
    for (StageId id : all_stage_ids()) {
        if (!spec.runs(id)) {
            r.stages.push_back(not_run(id, "not in the spec's stages", StageVerdict::skipped));
            continue;
        }
        if (!none_answered.empty()) {
            r.stages.push_back(not_run(id, none_answered, StageVerdict::error));
            continue;
        }
        r.stages.push_back(run_stage(id, cx));
        if (const auto* inv = std::get_if<InventoryResults>(&r.stages.back().results);
            id == StageId::inventory && inv && inv->hosts.empty())
            none_answered = "not run: no host's responder answered the inventory";
        progress.finish();
        if (o.progress)
            std::cerr << "  " << to_string(id) << ": " << to_string(r.stages.back().verdict)
                      << "\n";
    }
    {
        std::ofstream f(o.out_dir / kSamplesFile);
        for (const auto& line : cx.samples)
            f << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
        if (!f)
            std::cerr << "rocehealth accept: cannot write " << (o.out_dir / kSamplesFile).string()
                      << "\n";
    }
    for (auto& s : r.stages)
        if (s.verdict != StageVerdict::skipped && !cx.samples.empty())
            s.evidence_links.push_back(
                {"samples of the whole run (rocehealth diagnose --replay)", kSamplesFile});
    for (auto& h : r.hosts)
        if (auto it = cx.version.find(h.name); it != cx.version.end()) h.version = it->second;
    r.finished_wall_ms = wall_now_ms();
    r.verdict = derived_verdict(r.stages);
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
    switch (r.verdict) {
        case Verdict::pass:
            return 0;
        case Verdict::fail:
            return 1;
        case Verdict::incomplete:
            return 2;
    }
    return 2;
}

}  // namespace rh::accept

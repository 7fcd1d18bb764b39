// rocehealth diagnose: runs the rule engine over recorded data — recordings written by
// `rocehealth record` (--replay), operators' text captures (--bundle) — or over this host sampled
// live for a while (--live), and prints the findings with their evidence and the timeline. All
// three fill the same store and run the same engine (agent/replay/replay.h).
// Exit: 0 no finding and every applicable rule judged, 1 findings, 2 could not run (bad input,
// bad rules file, no data) or could not judge (one capture, or a span shorter than a rule's
// window or hold: "could not judge rates: ..."). With --json every exit 2 prints a JSON
// document on stdout with an "error" (agent/cli/diagnose_error.h).
// Options and their checks: agent/cli/diagnose_args.h.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "agent/cli/commands.h"
#include "agent/cli/diagnose_args.h"
#include "agent/cli/diagnose_error.h"
#include "agent/replay/inputs.h"
#include "agent/replay/replay.h"
#include "agent/reports/diagnose_report.h"
#include "agent/sampling/live_span.h"

namespace rh::cli {

namespace {

/// Prints "rocehealth diagnose: WHY"; returns false.
bool fail(const std::string& why) {
    std::cerr << "rocehealth diagnose: " << why << "\n";
    return false;
}

/// --live: samples this host into `store` (and --save), refusing to overwrite a recording.
bool load_live(const DiagnoseArgs& a, SeriesStore& store, std::vector<InputReport>& inputs) {
    std::ofstream save;
    if (!a.save_path.empty()) {
        std::error_code ec;
        if (std::filesystem::exists(a.save_path, ec))
            return fail(a.save_path + " exists; refusing to overwrite a recording");
        save.open(a.save_path);
        if (!save) return fail("cannot open " + a.save_path + " for writing");
    }
    auto in = sample_live_span(store, a.root, a.device, a.live_interval_s, a.duration_s,
                               save.is_open() ? &save : nullptr);
    if (!in)
        return fail("no RDMA device" + (a.device.empty() ? "" : " named " + a.device) +
                    " found under " + a.root + "/class/infiniband");
    inputs.push_back(std::move(*in));
    return true;
}

/// Fills `store` from the one kind of input `a` names; prints what went wrong and returns false
/// on an unreadable input or a recording without samples.
bool load_inputs(const DiagnoseArgs& a, SeriesStore& store, std::vector<InputReport>& inputs) {
    for (const std::string& f : a.replays) {
        auto r = load_recording(store, f);
        if (!r) return fail(r.error().message());
        for (const auto& n : r->notes) std::cerr << "rocehealth diagnose: note: " << n << "\n";
        if (r->samples == 0) return fail(f + ": no samples in the recording");
        inputs.push_back(std::move(*r));
    }
    if (!a.bundles.empty()) {
        auto r = load_bundles(store, a.bundles, a.interval_s);
        if (!r) return fail(r.error().message());
        for (auto& in : *r) inputs.push_back(std::move(in));
    }
    if (a.live && !load_live(a, store, inputs)) return false;
    if (!holds_rdma_data(store)) {
        std::string names;
        for (const auto& in : inputs) names += " (" + in.name + ")";
        return fail("nothing to diagnose: the inputs hold no RDMA device and no counter" + names);
    }
    if (store.dropped_out_of_order() > 0)
        std::cerr << "rocehealth diagnose: note: " << store.dropped_out_of_order()
                  << " samples older than their series' previous one were ignored (inputs out "
                     "of time order?)\n";
    return true;
}

int diagnose(const std::vector<std::string>& args, bool& printed_json) {
    DiagnoseArgs a;
    const auto desc = diagnose_options(a);
    po::variables_map vm;
    if (auto exit = parse_options("diagnose", kDiagnoseUsage, kDiagnoseAbout, args, desc, vm))
        return *exit;
    if (!check_diagnose_args(a, vm)) return kExitCannotRun;
    if (a.rules_file.empty()) a.rules_file = default_rules_path();
    const auto rules = load_rules_file(a.rules_file);
    if (!rules) {
        fail(rules.error().message());
        return kExitCannotRun;
    }

    SeriesStore store(replay_store_limits());
    std::vector<InputReport> inputs;
    if (!load_inputs(a, store, inputs)) return kExitCannotRun;
    EngineOptions engine_opts = replay_engine_options();
    engine_opts.required_ports = a.required_ports;
    // A ticket's captures are there to show counters; a recording may hold probes only (mesh).
    engine_opts.counters_expected = !a.bundles.empty();
    const EngineResult result = judge_inputs(store, *rules, inputs, engine_opts);
    const DiagnoseReport report = diagnose_report(result, a.rules_file, inputs, !a.bundles.empty());
    if (a.json) {
        std::cout << nlohmann::json(report).dump(2, ' ', false,
                                                 nlohmann::json::error_handler_t::replace)
                  << "\n";
        printed_json = true;
    } else {
        render_diagnose_text(std::cout, report, a.verbose);
    }
    return diagnosis_exit_code(result);
}

}  // namespace

int run_diagnose(const std::vector<std::string>& args) {
    const bool json = std::find(args.begin(), args.end(), "--json") != args.end();
    StderrCopy copy(std::cerr.rdbuf());
    std::streambuf* const saved = std::cerr.rdbuf(&copy);
    bool printed_json = false;
    int rc = kExitCannotRun;
    try {
        rc = diagnose(args, printed_json);
    } catch (...) {
        std::cerr.rdbuf(saved);
        throw;
    }
    std::cerr.rdbuf(saved);
    if (rc == kExitCannotRun && json && !printed_json)
        std::cout << diagnose_error_json(copy.text())
                         .dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
                  << "\n";
    return rc;
}

}  // namespace rh::cli

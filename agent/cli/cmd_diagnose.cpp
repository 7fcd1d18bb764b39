// rocehealth diagnose: runs the rule engine over recorded data — recordings written by
// `rocehealth record` (--replay), operators' text captures (--bundle) — or over this host sampled
// live for a while (--live), and prints the findings with their evidence and the timeline. All
// three fill the same store and run the same engine.
// Exit: 0 no finding and every applicable rule judged, 1 findings, 2 could not run (bad input,
// bad rules file, no data) or could not judge (one capture, or a span shorter than a rule's
// window or hold: "could not judge rates: ..."). With --json every exit 2 prints a JSON
// document on stdout with an "error" (agent/reports/diagnose_report.h).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <streambuf>
#include <thread>

#include "agent/cli/commands.h"
#include "agent/cli/options.h"
#include "agent/replay/inputs.h"
#include "agent/replay/replay.h"
#include "agent/reports/diagnose_report.h"
#include "agent/sampling/host_sampler.h"
#include "core/clock.h"
#include "core/duration_arg.h"
#include "core/pass_schedule.h"
#include "core/sample_json.h"
#include "rules/engine/engine.h"
#include "rules/port_usage.h"

namespace rh::cli {

namespace {

/// Samples this host every `interval_s` for `duration_s` into `store` (and `save`, if open).
/// Returns false with a message when there is nothing to sample.
bool sample_live(SeriesStore& store, const std::string& root, const std::string& device,
                 double interval_s, double duration_s, std::ofstream* save,
                 std::vector<InputReport>& inputs) {
    HostSampler sampler(CollectOptions{SysfsRoot(root), device}, "");
    if (sampler.devices() == 0) {
        std::cerr << "rocehealth diagnose: no RDMA device"
                  << (device.empty() ? "" : " named " + device) << " found under " << root
                  << "/class/infiniband\n";
        return false;
    }
    InputReport in;
    in.name = "live:" + root;
    in.hosts = {sampler.snapshot().host};
    PassSchedule schedule(interval_s, duration_s, monotonic_now_s());
    for (;;) {
        std::vector<std::string> rediscovered;
        for (const Sample& s : sampler.pass(rediscovered)) {
            store.add(s);
            if (save) write_sample(*save, s);
            ++in.samples;
        }
        if (save) save->flush();
        for (auto& r : rediscovered) in.notes.push_back("rediscovered devices: " + r);
        const double now = monotonic_now_s();
        if (schedule.done(now)) break;
        const double wait = schedule.next_after(now) - monotonic_now_s();
        if (wait > 0) std::this_thread::sleep_for(std::chrono::duration<double>(wait));
    }
    inputs.push_back(std::move(in));
    return true;
}

/// Passes everything written to it on to `to` and keeps a copy (up to 64 KiB): the messages
/// of this run, for the JSON error document of an exit 2.
class TeeBuf : public std::streambuf {
  public:
    explicit TeeBuf(std::streambuf* to) : to_(to) {}
    const std::string& text() const { return text_; }

  protected:
    int overflow(int c) override {
        if (c == traits_type::eof()) return traits_type::not_eof(c);
        if (text_.size() < kKeep) text_.push_back(static_cast<char>(c));
        return to_->sputc(static_cast<char>(c));
    }
    std::streamsize xsputn(const char* s, std::streamsize n) override {
        if (text_.size() < kKeep) text_.append(s, static_cast<std::size_t>(n));
        return to_->sputn(s, n);
    }
    int sync() override { return to_->pubsync(); }

  private:
    static constexpr std::size_t kKeep = 65536;
    std::streambuf* to_;
    std::string text_;
};

/// The JSON of an exit 2 before (or instead of) a diagnosis: {"schema": 1, "verdict": "error",
/// "error": the first "rocehealth diagnose: ..." message that is not a note (without the
/// prefix), "notes": the notes, "messages": every stderr line}.
nlohmann::json error_json(const std::string& messages) {
    nlohmann::json doc{{"schema", 1}, {"verdict", "error"}};
    std::string error;
    auto notes = nlohmann::json::array(), lines = nlohmann::json::array();
    std::istringstream in(messages);
    const std::string prefix = "rocehealth diagnose: ";
    for (std::string line; std::getline(in, line);) {
        if (line.empty()) continue;
        lines.push_back(line);
        if (line.rfind(prefix, 0) != 0) continue;
        const std::string text = line.substr(prefix.size());
        if (text.rfind("note: ", 0) == 0)
            notes.push_back(text.substr(6));
        else if (error.empty())
            error = text;
    }
    doc["error"] = error.empty() ? "could not run (no message)" : error;
    doc["notes"] = std::move(notes);
    doc["messages"] = std::move(lines);
    return doc;
}

int diagnose(const std::vector<std::string>& args, bool& printed_json);

}  // namespace

int run_diagnose(const std::vector<std::string>& args) {
    const bool json = std::find(args.begin(), args.end(), "--json") != args.end();
    TeeBuf tee(std::cerr.rdbuf());
    std::streambuf* const saved = std::cerr.rdbuf(&tee);
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
        std::cout
            << error_json(tee.text()).dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
            << "\n";
    return rc;
}

namespace {

int diagnose(const std::vector<std::string>& args, bool& printed_json) {
    po::options_description desc("options");
    std::vector<std::string> replays, bundles, required_ports;
    std::string rules_file, duration_text = "30s", live_interval_text = "1s", save_path,
                            root = "/sys", device, interval_text;
    double interval_s = 0;
    desc.add_options()("help,h", "show this help")(
        "replay", po::value(&replays),
        "a recording (JSON lines from `rocehealth record`); repeat for more hosts")(
        "bundle", po::value(&bundles),
        "a directory of one host's text captures (ethtool -S, hw_counters, ibv_devinfo -v, "
        "lspci -vv, ip -d link, mlnx_qos); repeat, in time order")(
        "interval", po::value(&interval_text),
        "time between bundle captures, e.g. 10s or 10 (when they have no `timestamp` file)")(
        "live", "sample this host's counters for --duration, then diagnose")(
        "duration", po::value(&duration_text), "how long --live samples (default 30s)")(
        "live-interval", po::value(&live_interval_text), "time between --live passes (default 1s)")(
        "save", po::value(&save_path), "with --live: also write the samples as a recording")(
        "sysfs-root", po::value(&root), "with --live: sysfs tree to read (default /sys)")(
        "device", po::value(&device), "with --live: only this RDMA device")(
        "require-port", po::value(&required_ports),
        "a port that must be up, DEVICE/PORT (mlx5_1/1) or a netdev name; repeat for more (a "
        "down port that never carried traffic is otherwise a note: taken as not cabled)")(
        "rules", po::value(&rules_file),
        "rules file (default: $ROCEHEALTH_RULES, /etc/rocehealth/rules.json, the packaged one)")(
        "json", "print the result as JSON")("verbose,v",
                                            "also list input notes and rules not applicable");
    po::variables_map vm;
    if (auto exit = parse_options(
            "diagnose",
            "rocehealth diagnose (--replay FILE [--replay FILE ...] | --bundle DIR [--bundle DIR "
            "...] [--interval 10s] | --live [--duration 30s] [--save FILE]) [--rules FILE] "
            "[--json]",
            "Diagnose recorded data: findings with evidence, alternatives and a timeline.\n"
            "Exit: 0 no finding, 1 findings, 2 could not run.",
            args, desc, vm))
        return *exit;
    const bool live = vm.count("live") > 0;
    if ((!replays.empty()) + (!bundles.empty()) + live > 1) {
        std::cerr << "rocehealth diagnose: --replay, --bundle and --live are alternatives: give "
                     "one kind of input\n";
        return kExitCannotRun;
    }
    if (replays.empty() && bundles.empty() && !live) {
        std::cerr << "rocehealth diagnose: nothing to diagnose: give --replay FILE, --bundle DIR "
                     "or --live\n";
        return kExitCannotRun;
    }
    double duration_s = 0, live_interval_s = 1;
    if (live) {
        if (auto e = parse_duration_s("--duration", duration_text, 0.1, 86400, duration_s)) {
            std::cerr << "rocehealth diagnose: " << *e << "\n";
            return kExitCannotRun;
        }
        if (auto e = parse_duration_s("--live-interval", live_interval_text, 0.1, 3600,
                                      live_interval_s)) {
            std::cerr << "rocehealth diagnose: " << *e << "\n";
            return kExitCannotRun;
        }
        if (!sysfs_root_usable("diagnose", root)) return kExitCannotRun;
    } else {
        for (const char* o : {"duration", "live-interval", "save", "sysfs-root", "device"})
            if (vm.count(o)) {
                std::cerr << "rocehealth diagnose: --" << o << " applies to --live only\n";
                return kExitCannotRun;
            }
    }
    if (vm.count("interval"))
        if (auto e = parse_duration_s("--interval", interval_text, 0.001, 1e7, interval_s)) {
            std::cerr << "rocehealth diagnose: " << *e << "\n";
            return kExitCannotRun;
        }
    if (vm.count("interval") && bundles.empty()) {
        std::cerr << "rocehealth diagnose: --interval applies to --bundle captures only "
                     "(recordings carry their own times)\n";
        return kExitCannotRun;
    }
    for (const std::string& r : required_ports)
        if (const std::string why = check_required_port(r); !why.empty()) {
            std::cerr << "rocehealth diagnose: --require-port " << why << "\n";
            return kExitCannotRun;
        }
    if (rules_file.empty()) rules_file = default_rules_path();
    const auto rules = load_rules_file(rules_file);
    if (!rules) {
        std::cerr << "rocehealth diagnose: " << rules.error().message() << "\n";
        return kExitCannotRun;
    }

    SeriesStore store(replay_store_limits());
    std::vector<InputReport> inputs;
    for (const std::string& f : replays) {
        auto r = load_recording(store, f);
        if (!r) {
            std::cerr << "rocehealth diagnose: " << r.error().message() << "\n";
            return kExitCannotRun;
        }
        for (const auto& n : r->notes) std::cerr << "rocehealth diagnose: note: " << n << "\n";
        if (r->samples == 0) {
            std::cerr << "rocehealth diagnose: " << f << ": no samples in the recording\n";
            return kExitCannotRun;
        }
        inputs.push_back(std::move(*r));
    }
    if (!bundles.empty()) {
        auto r =
            load_bundles(store, bundles,
                         vm.count("interval") ? std::optional<double>(interval_s) : std::nullopt);
        if (!r) {
            std::cerr << "rocehealth diagnose: " << r.error().message() << "\n";
            return kExitCannotRun;
        }
        for (auto& in : *r) inputs.push_back(std::move(in));
    }
    if (live) {
        std::ofstream save;
        if (!save_path.empty()) {
            std::error_code ec;
            if (std::filesystem::exists(save_path, ec)) {
                std::cerr << "rocehealth diagnose: " << save_path
                          << " exists; refusing to overwrite a recording\n";
                return kExitCannotRun;
            }
            save.open(save_path);
            if (!save) {
                std::cerr << "rocehealth diagnose: cannot open " << save_path << " for writing\n";
                return kExitCannotRun;
            }
        }
        if (!sample_live(store, root, device, live_interval_s, duration_s,
                         save.is_open() ? &save : nullptr, inputs))
            return kExitCannotRun;
    }
    if (!holds_rdma_data(store)) {
        std::cerr << "rocehealth diagnose: nothing to diagnose: the inputs hold no RDMA device "
                     "and no counter";
        for (const auto& in : inputs) std::cerr << " (" << in.name << ")";
        std::cerr << "\n";
        return kExitCannotRun;
    }
    if (store.dropped_out_of_order() > 0)
        std::cerr << "rocehealth diagnose: note: " << store.dropped_out_of_order()
                  << " samples older than their series' previous one were ignored (inputs out "
                     "of time order?)\n";

    EngineOptions engine_opts = replay_engine_options();
    engine_opts.required_ports = required_ports;
    // A ticket's captures are there to show counters; a recording may hold probes only (mesh).
    engine_opts.counters_expected = !bundles.empty();
    const EngineResult result = run_rules(store, *rules, engine_opts);
    const auto doc = diagnose_json(result, rules_file, inputs, !bundles.empty());
    if (vm.count("json")) {
        std::cout << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
        printed_json = true;
    } else {
        render_diagnose_text(std::cout, doc, vm.count("verbose") > 0);
    }
    return diagnosis_exit_code(result);
}

}  // namespace

}  // namespace rh::cli

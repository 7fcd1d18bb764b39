#include "agent/replay/rules_test.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "agent/replay/inputs.h"
#include "agent/replay/replay.h"
#include "core/exit_codes.h"
#include "core/json/json_reader.h"
#include "core/json_file.h"
#include "rules/engine/engine.h"
#include "store/series_store.h"

namespace rh {

namespace fs = std::filesystem;

namespace {

/// "rule@host{k=v,...}/severity": device, port and netdev are left out (the engine adds them).
std::string show(const std::string& rule, const std::string& host, const Labels& labels,
                 const std::string& severity) {
    std::string s = rule + "@" + host, l;
    for (const auto& [k, v] : labels)
        if (k != "device" && k != "port" && k != "netdev")
            l += (l.empty() ? "" : ",") + k + "=" + v;
    if (!l.empty()) s += "{" + l + "}";
    if (!severity.empty()) s += "/" + severity;
    return s;
}

Result<std::pair<std::vector<Expected>, int>> read_expected(const std::string& path) {
    auto j = read_json_file(path, "rules test");
    if (!j) return j.error();
    return expected_from_json(*j, path);
}

}  // namespace

Result<std::pair<std::vector<Expected>, int>> expected_from_json(const nlohmann::json& doc,
                                                                 const std::string& path) {
    JsonErrors errors;
    errors.document = path;
    const JsonReader top(doc, "", errors);
    std::vector<Expected> out;
    int exit_code = 0;
    if (top.expect_object()) {
        top.refuse_unknown({"exit", "findings", "description"});
        if (!top.has("exit")) top.error_at("exit", "missing (expected 0, 1 or 2)");
        exit_code = static_cast<int>(top.opt_int_in("exit", 0, 2).value_or(0));
        top.each("findings", true, [&](const JsonReader& f) {
            if (!f.expect_object()) return;
            f.refuse_unknown({"rule", "host", "labels", "severity"});
            Expected e{f.req_string("rule"), f.req_string("host"), f.opt_string("severity"),
                       f.opt_string_map("labels")};
            if (!e.severity.empty() && e.severity != "info" && e.severity != "warning" &&
                e.severity != "error")
                f.error_at("severity", "expected \"info\", \"warning\" or \"error\", got \"" +
                                           e.severity + "\"");
            const std::string shown = show(e.rule, e.host, e.labels, e.severity);
            if (std::any_of(out.begin(), out.end(), [&](const Expected& o) {
                    return show(o.rule, o.host, o.labels, o.severity) == shown;
                }))
                f.error("expected twice: " + shown);
            out.push_back(std::move(e));
        });
    }
    if (!errors.empty()) return errors.error("rules test");
    return std::make_pair(std::move(out), exit_code);
}

namespace {

bool matches(const Expected& e, const Finding& f) {
    if (e.rule != f.rule_id || e.host != f.host) return false;
    if (!e.severity.empty() && e.severity != to_string(f.severity)) return false;
    return std::all_of(e.labels.begin(), e.labels.end(), [&](const auto& kv) {
        const auto it = f.labels.find(kv.first);
        return it != f.labels.end() && it->second == kv.second;
    });
}

}  // namespace

Result<std::vector<std::string>> scenario_dirs(const std::string& path) {
    std::error_code ec;
    if (fs::exists(fs::path(path) / "expected.json", ec)) return std::vector<std::string>{path};
    std::vector<std::string> dirs;
    for (const auto& e : fs::directory_iterator(path, ec))
        if (e.is_directory() && fs::exists(e.path() / "expected.json"))
            dirs.push_back(e.path().string());
    if (ec) return Error{"rules test", path, ec.value(), "cannot read the directory"};
    if (dirs.empty())
        return Error{"rules test", path, 0,
                     "no scenario: neither it nor a sub-directory holds expected.json"};
    std::sort(dirs.begin(), dirs.end());
    return dirs;
}

Result<ScenarioOutcome> run_scenario(const std::string& dir, const RuleSet& rules) {
    ScenarioOutcome out;
    out.name = fs::path(dir).filename().string();
    auto expected = read_expected((fs::path(dir) / "expected.json").string());
    if (!expected) return expected.error();
    out.expected_exit = expected->second;
    for (const auto& e : expected->first)
        out.expected.push_back(show(e.rule, e.host, e.labels, e.severity));

    std::vector<std::string> recordings;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec))
        if (e.is_regular_file() && e.path().extension() == ".jsonl")
            recordings.push_back(e.path().string());
    std::sort(recordings.begin(), recordings.end());
    if (recordings.empty()) return Error{"rules test", dir, 0, "no recording (*.jsonl)"};

    // As diagnose --replay (agent/replay/replay.h).
    SeriesStore store(replay_store_limits());
    for (const auto& f : recordings)
        if (auto r = load_recording(store, f); !r) return r.error();
    if (!holds_rdma_data(store))
        return Error{"rules test", dir, 0, "the recordings hold no RDMA device and no counter"};
    const EngineResult result = run_rules(store, rules, replay_engine_options());
    out.exit_code = diagnosis_exit_code(result);

    std::set<std::string> got;
    for (const auto& f : result.findings)
        got.insert(show(f.rule_id, f.host, f.labels, to_string(f.severity)));
    out.got.assign(got.begin(), got.end());
    if (out.exit_code != out.expected_exit)
        out.problems.push_back("exit " + std::to_string(out.exit_code) + ", expected " +
                               std::to_string(out.expected_exit));
    for (std::size_t i = 0; i < expected->first.size(); ++i)
        if (std::none_of(result.findings.begin(), result.findings.end(),
                         [&](const Finding& f) { return matches(expected->first[i], f); }))
            out.problems.push_back("missing " + out.expected[i]);
    std::set<std::string> unexpected;
    for (const auto& f : result.findings)
        if (std::none_of(expected->first.begin(), expected->first.end(),
                         [&](const Expected& e) { return matches(e, f); }))
            unexpected.insert(show(f.rule_id, f.host, f.labels, to_string(f.severity)));
    for (const auto& u : unexpected) out.problems.push_back("unexpected " + u);
    return out;
}

}  // namespace rh

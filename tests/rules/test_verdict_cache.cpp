// The agent's incremental rules runs (run_rules with a VerdictCache, rules/engine/verdict_cache.h):
// a replay scenario fed into a store pass by pass, the rules run after every pass with the cache
// kept between runs, must give exactly what a run over the whole store without the cache gives
// at that pass: findings (time, episodes, severity, summary, evidence, timeline, alternatives,
// confidence), not-judged, unevaluated and not-applicable notes. Scenarios with a finding that
// opens, escalates, closes, two hosts (cnp_not_handled reads the other host) and a counter reset;
// and a store with a short retention, where the kept runs of verdicts must be trimmed exactly as
// the passes age out (episodes that shrink below their hold, "known at some pass" lost).
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "../store/make_sample.h"
#include "../support/shipped_rules.h"
#include "core/recording/sample_json.h"
#include "rules/engine/engine.h"
#include "rules/engine/verdict_cache.h"

BOOST_AUTO_TEST_SUITE(test_rules_verdict_cache)

namespace {

namespace fs = std::filesystem;

const rh::RuleSet& shipped() {
    return rh::test::shipped_rules();
}

/// A scenario's samples of every host in engine-time order (as the live loop adds them).
std::vector<rh::Sample> scenario(const std::string& name) {
    std::vector<rh::Sample> all;
    for (const auto& e :
         fs::directory_iterator(std::string(RH_SOURCE_DIR) + "/tests/scenarios/" + name)) {
        if (e.path().extension() != ".jsonl") continue;
        auto r = rh::read_samples_file(e.path().string());
        BOOST_REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message()));
        all.insert(all.end(), r->samples.begin(), r->samples.end());
    }
    std::stable_sort(all.begin(), all.end(), [](const rh::Sample& a, const rh::Sample& b) {
        return rh::engine_time(a) < rh::engine_time(b);
    });
    return all;
}

/// Everything a report prints from a result, as one JSON document.
nlohmann::json report(const rh::EngineResult& r) {
    nlohmann::json j;
    j["findings"] = r.findings;
    j["unevaluated"] = r.unevaluated;
    j["not_applicable"] = r.not_applicable;
    j["notes"] = r.notes;
    for (const auto& n : r.not_judged)
        j["not_judged"].push_back(
            {n.host, n.rule_id, n.kind, n.window_s, n.hold_s, n.span_s, n.passes, n.text});
    return j;
}

/// `samples` without the first half of every other series name (in name order): those series
/// appear in the store halfway, as a counter file that appears after a driver load does, so
/// the store's layout changes between runs.
std::vector<rh::Sample> half_appear_late(const std::vector<rh::Sample>& samples) {
    std::set<std::string> names;
    for (const auto& s : samples) names.insert(s.series);
    std::set<std::string> late;
    bool odd = false;
    for (const auto& n : names) {
        if (odd) late.insert(n);
        odd = !odd;
    }
    const double mid = (rh::engine_time(samples.front()) + rh::engine_time(samples.back())) / 2;
    std::vector<rh::Sample> out;
    for (const auto& s : samples)
        if (!late.count(s.series) || rh::engine_time(s) >= mid) out.push_back(s);
    return out;
}

/// Feeds `name` pass by pass (with `late`, half_appear_late of it); after each pass, a cached
/// run and a full run must agree. Returns how many findings the last full run had (the
/// scenario must exercise something).
std::size_t compare_incremental(const std::string& name, bool late = false) {
    const auto samples = late ? half_appear_late(scenario(name)) : scenario(name);
    rh::SeriesStore store;
    rh::VerdictCache cache;
    std::size_t runs = 0, findings = 0;
    for (std::size_t i = 0; i < samples.size(); ++i) {
        store.add(samples[i]);
        const bool pass_done = i + 1 == samples.size() ||
                               rh::engine_time(samples[i + 1]) != rh::engine_time(samples[i]);
        if (!pass_done) continue;
        const auto full = report(rh::run_rules(store, shipped()));
        const auto incremental = report(rh::run_rules(store, shipped(), {}, cache));
        BOOST_TEST_REQUIRE(full.dump(1) == incremental.dump(1),
                           name << " after pass at t=" << rh::engine_time(samples[i]));
        findings = full["findings"].size();
        ++runs;
    }
    BOOST_TEST_MESSAGE(name << ": " << runs << " runs identical, " << cache.groups()
                            << " groups cached");
    BOOST_TEST(runs > 10u);
    BOOST_TEST(cache.groups() > 0u);
    return findings;
}

/// Two rules over one counter's growth per pass interval (rate_per_s reads the pass and the one
/// before it only, so the store's retention changes no verdict and a full run over the retained
/// passes is the exact reference): held 4 s and escalated above 5/s (episodes), and held 30 s,
/// longer than the retention, so whether a verdict is known at some pass decides between "too
/// short to judge" (short_span) and "no verdict" (the engine's `known`).
rh::RuleSet rate_rules() {
    nlohmann::json rules = nlohmann::json::array();
    for (const auto& [id, hold_s] : {std::pair{"test_rate", 4}, std::pair{"test_rate_long", 30}}) {
        nlohmann::json r = nlohmann::json::parse(R"({
            "title": "Test rate", "severity": "warning",
            "summary": "{host} {device} port {port}", "explanation": "why",
            "group_by": ["device", "port"],
            "when": {"signal": "timeouts", "series": "ack_timeouts", "measure": "rate_per_s",
                     "op": ">", "threshold": 1},
            "escalate": [{"severity": "error",
                          "when": {"signal": "timeouts", "series": "ack_timeouts",
                                   "measure": "rate_per_s", "op": ">", "threshold": 5}}]})");
        r["id"] = id;
        r["hold_s"] = hold_s;
        rules.push_back(std::move(r));
    }
    auto set = rh::parse_rules(nlohmann::json{{"schema", 1}, {"rules", rules}}, "test");
    BOOST_REQUIRE_MESSAGE(set.ok(), (set.ok() ? "" : set.error().message()));
    return *set;
}

}  // namespace

BOOST_AUTO_TEST_CASE(retention_trims_like_a_full_run) {
    // 1 s passes, 12 s of retention. Growth per pass: bursts of 2, 5 and 8 passes (an episode
    // too short to count, one that counts until ageing out shrinks it below hold_s, one that
    // escalates), then 20 failed reads (every verdict unknown: once the known ones age out, no
    // pass is known), then a burst that stays open while the failed reads age out.
    const auto growth = [](int k) -> std::optional<std::uint64_t> {
        if (k >= 40 && k < 60) return std::nullopt;
        const bool burst =
            (k >= 5 && k < 7) || (k >= 12 && k < 17) || (k >= 25 && k < 33) || (k >= 70 && k < 80);
        return burst ? (k >= 28 && k < 30 ? 9 : 3) : 0;
    };
    const rh::RuleSet rules = rate_rules();
    const rh::Labels port{{"device", "mlx5_0"}, {"port", "1"}};
    rh::SeriesStore store(rh::StoreLimits{12, 1000});
    rh::VerdictCache cache;
    std::uint64_t v = 1000;
    std::set<std::string> seen;  // what the full runs reported over time
    for (int k = 0; k <= 95; ++k) {
        const auto g = growth(k);
        if (g) v += *g;
        store.add(
            rh::test::counter("h1", "ack_timeouts", port, k, g ? std::optional(v) : std::nullopt));
        const auto full = report(rh::run_rules(store, rules));
        const auto incremental = report(rh::run_rules(store, rules, {}, cache));
        BOOST_TEST_REQUIRE(full.dump(1) == incremental.dump(1), "after the pass at t=" << k);
        for (const auto& f : full["findings"])
            seen.insert(f.value("severity", "") + (f["closed_t"].is_null() ? " open" : " closed"));
        for (const auto& n : full.value("not_judged", nlohmann::json::array()))
            seen.insert(n[2].get<std::string>());  // kind: short_span, no_verdict
        // Trimmed as the passes age out: a few runs per group, not one per retained pass.
        BOOST_TEST(cache.runs() <= 12u, "after the pass at t=" << k);
    }
    // The data went through every state the trimming must follow.
    for (const char* s : {"warning open", "warning closed", "error open", "error closed",
                          "short_span", "no_verdict"})
        BOOST_TEST(seen.count(s) == 1u, s);
}

BOOST_AUTO_TEST_CASE(finding_that_escalates) {
    BOOST_TEST(compare_incremental("storm_escalates") > 0u);
}

BOOST_AUTO_TEST_CASE(finding_that_opens_and_closes) {
    BOOST_TEST(compare_incremental("pause_storm") > 0u);
    BOOST_TEST(compare_incremental("link_flap") > 0u);
    BOOST_TEST(compare_incremental("retransmits") > 0u);
}

BOOST_AUTO_TEST_CASE(two_hosts_read_each_other) {
    BOOST_TEST(compare_incremental("cnp_not_handled") > 0u);
}

BOOST_AUTO_TEST_CASE(series_that_appear_midway) {
    for (const char* name : {"storm_escalates", "pause_storm", "link_flap", "retransmits",
                             "cnp_not_handled", "ecn_counters_inconsistent", "counter_missing"})
        compare_incremental(name, true);
}

BOOST_AUTO_TEST_CASE(healthy_and_reset) {
    BOOST_TEST(compare_incremental("healthy_steady_load") == 0u);
    compare_incremental("counter_reset_midway");
}

BOOST_AUTO_TEST_SUITE_END()  // test_rules_verdict_cache

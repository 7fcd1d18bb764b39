// The agent's incremental rules runs (run_rules with a VerdictCache, rules/engine/verdict_cache.h):
// a replay scenario fed into a store pass by pass, the rules run after every pass with the cache
// kept between runs, must give exactly what a run over the whole store without the cache gives
// at that pass: findings (time, episodes, severity, summary, evidence, timeline, alternatives,
// confidence), not-judged, unevaluated and not-applicable notes. Scenarios with a finding that
// opens, escalates, closes, two hosts (cnp_not_handled reads the other host) and a counter reset.
#define BOOST_TEST_MODULE rules_verdict_cache
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "../support/shipped_rules.h"
#include "core/sample_json.h"
#include "rules/engine/engine.h"
#include "rules/engine/verdict_cache.h"

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

}  // namespace

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

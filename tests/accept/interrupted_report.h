// The example report (tests/fixtures/accept/report.json) as a run stopped by SIGTERM during its
// bandwidth stage would leave it: inventory and idle_latency finished (pass, results kept), the
// bandwidth stage cut short after 2 of its pairs (error, no criteria), every later stage not_run,
// `interrupted` naming the stage, verdict incomplete.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

namespace rh::test {

inline constexpr const char* kCutReason = "interrupted by SIGTERM 12 s into the stage";

inline nlohmann::json interrupted_during_bandwidth(nlohmann::json j) {
    auto& bw = j["stages"][2];
    bw["verdict"] = "error";
    bw["reason"] = std::string(kCutReason) + "; pairs in a ring, one at a time";
    bw["criteria"] = nlohmann::json::array();
    auto& pairs = bw["results"]["pairs"];
    pairs.erase(pairs.begin() + 2, pairs.end());
    for (std::size_t i = 3; i < j["stages"].size(); ++i) {
        auto& s = j["stages"][i];
        s["verdict"] = "not_run";
        s["reason"] =
            "not run: the run stopped in stage bandwidth (" + std::string(kCutReason) + ")";
        s["start_s"] = s["end_s"] = s["results"] = nullptr;
        for (const char* k :
             {"criteria", "findings", "counter_timelines", "marks", "evidence_links"})
            s[k] = nlohmann::json::array();
    }
    j["interrupted"] = {{"stage", "bandwidth"}, {"cause", "signal"}, {"reason", kCutReason}};
    j["verdict"] = "incomplete";
    return j;
}

}  // namespace rh::test

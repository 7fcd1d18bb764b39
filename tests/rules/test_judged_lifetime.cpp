// The rule engine on too little data and on lifetime counters (issue 12, classes 2 and 3):
// a single capture or a span shorter than a rule's window or hold is "not judged" (never a
// silent healthy), unless what the data saw already rules the condition out; lifetime rules
// (instead_of) give low-confidence findings from one capture, weighed against the traffic of
// the same capture, and are outranked by rates where the rates could be judged.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "../store/make_sample.h"
#include "rules/engine/engine.h"

BOOST_AUTO_TEST_SUITE(test_rules_judged_lifetime)

namespace {

using nlohmann::json;
using rh::EngineResult;
using rh::Labels;
using rh::SeriesStore;

const Labels kPort{{"device", "mlx5_0"}, {"port", "1"}};

rh::EngineOptions with_lifetime() {
    rh::EngineOptions o;
    o.lifetime_rules = true;
    return o;
}

rh::RuleSet rules_of(const std::vector<json>& rules) {
    auto set = rh::parse_rules(json{{"schema", 1}, {"rules", rules}}, "test");
    BOOST_REQUIRE_MESSAGE(set.ok(), (set.ok() ? "" : set.error().message()));
    return *set;
}

json rule(const std::string& id, const std::string& fields) {
    json r = {{"id", id},
              {"title", "Test rule " + id},
              {"severity", "warning"},
              {"summary", "{host} {device} port {port}: cnps {cnps}, marks {ecn_marks}"},
              {"explanation", "why"},
              {"group_by", {"device", "port"}}};
    r.update(json::parse(fields));
    return r;
}

// ecn_counters_inconsistent's shape: 30 s windows, 20 s hold.
const char* kCnpRate = R"({"hold_s": 20, "when": {"all": [
    {"signal": "cnps", "series": "cnp_sent", "measure": "increase", "op": ">", "threshold": 0,
     "window_s": 30},
    {"signal": "ecn_marks", "series": "ecn_marked_packets", "measure": "increase", "op": "==",
     "threshold": 0, "window_s": 30}]}})";

const char* kCnpLifetime = R"({"instead_of": ["cnp_rate"], "summary":
    "{host} {device} port {port}: since the counters were last reset, CNPs {cnps}, marks {ecn_marks}",
  "when": {"all": [
    {"signal": "cnps", "series": "cnp_sent", "measure": "lifetime_value", "op": ">=",
     "threshold": 100},
    {"signal": "ecn_marks", "series": "ecn_marked_packets", "measure": "lifetime_value",
     "op": "==", "threshold": 0}]}})";

/// cnp_sent / ecn_marked_packets read at `times` with the given readings.
SeriesStore cnp_captures(const std::vector<double>& times, const std::vector<std::uint64_t>& cnps,
                         const std::vector<std::uint64_t>& marks) {
    SeriesStore store;
    for (std::size_t i = 0; i < times.size(); ++i) {
        store.add(rh::test::counter("gpu01", "cnp_sent", kPort, times[i], cnps[i]));
        store.add(rh::test::counter("gpu01", "ecn_marked_packets", kPort, times[i], marks[i]));
    }
    return store;
}

const rh::NotJudged* not_judged(const EngineResult& r, const std::string& id) {
    const auto it = std::find_if(r.not_judged.begin(), r.not_judged.end(),
                                 [&](const rh::NotJudged& n) { return n.rule_id == id; });
    return it == r.not_judged.end() ? nullptr : &*it;
}

bool has_finding(const EngineResult& r, const std::string& id) {
    return std::any_of(r.findings.begin(), r.findings.end(),
                       [&](const rh::Finding& f) { return f.rule_id == id; });
}

}  // namespace

BOOST_AUTO_TEST_CASE(one_capture_leaves_rate_rules_not_judged) {
    const auto rules = rules_of({rule("cnp_rate", kCnpRate)});
    const auto r = rh::run_rules(cnp_captures({0}, {1333}, {0}), rules, with_lifetime());
    BOOST_TEST(r.findings.empty());
    // Not "unevaluated" (the series have values) and not silent: not judged, one capture.
    BOOST_TEST(r.unevaluated.empty());
    const auto* n = not_judged(r, "cnp_rate");
    BOOST_REQUIRE(n);
    BOOST_TEST(n->kind == "one_capture");
    BOOST_TEST(n->host == "gpu01");
    BOOST_TEST(n->passes == 1u);
    BOOST_TEST(n->need_s == 30);
    BOOST_TEST(n->text.find("needs two captures at least 30 s apart") != std::string::npos,
               n->text);
}

BOOST_AUTO_TEST_CASE(a_rule_of_gauges_is_judged_on_one_capture) {
    const auto rules = rules_of({rule("pfc_on", R"({"summary": "{host} pfc", "when":
        {"signal": "pfc", "series": "pfc_enabled", "measure": "value", "op": "==", "threshold": 1}})")});
    SeriesStore on, off;
    on.add(rh::test::gauge("gpu01", "pfc_enabled", kPort, 0, 1));
    off.add(rh::test::gauge("gpu01", "pfc_enabled", kPort, 0, 0));
    const auto fired = rh::run_rules(on, rules, with_lifetime());
    BOOST_TEST(fired.findings.size() == 1u);
    BOOST_TEST(fired.not_judged.empty());
    const auto quiet = rh::run_rules(off, rules, with_lifetime());
    BOOST_TEST(quiet.findings.empty());
    BOOST_TEST(quiet.not_judged.empty());
    BOOST_TEST(quiet.unevaluated.empty());
}

BOOST_AUTO_TEST_CASE(span_shorter_than_window_and_hold_is_named) {
    const auto rules = rules_of({rule("cnp_rate", kCnpRate)});
    // 10 s apart: CNPs grew, no mark in 10 s. "Zero marks over 30 s" cannot be claimed, nor
    // a 20 s hold: named, not silently healthy.
    const auto short_span =
        rh::run_rules(cnp_captures({0, 10}, {1000, 1400}, {5, 5}), rules, with_lifetime());
    BOOST_TEST(short_span.findings.empty());
    const auto* n = not_judged(short_span, "cnp_rate");
    BOOST_REQUIRE(n);
    BOOST_TEST(n->kind == "short_span");
    BOOST_TEST(n->window_s == 30);
    BOOST_TEST(n->hold_s == 20);
    BOOST_TEST(n->span_s == 10);
    BOOST_TEST(n->text ==
               "cnp_rate needs 30 s of data (a 30 s window, a 20 s hold); the data "
               "spans 10 s");
    // 30 s apart: the window and the hold are covered: a finding, nothing left unjudged.
    const auto full =
        rh::run_rules(cnp_captures({0, 30}, {1000, 1400}, {5, 5}), rules, with_lifetime());
    BOOST_TEST(has_finding(full, "cnp_rate"));
    BOOST_TEST(full.not_judged.empty());
}

BOOST_AUTO_TEST_CASE(short_data_that_already_rules_the_condition_out_is_judged) {
    const auto rules = rules_of({rule("cnp_rate", kCnpRate)});
    // Marks counted within the 10 s: "no mark" is false whatever came before: healthy.
    const auto marked =
        rh::run_rules(cnp_captures({0, 10}, {1000, 1400}, {5, 900}), rules, with_lifetime());
    BOOST_TEST(marked.findings.empty());
    BOOST_TEST(marked.not_judged.empty());
    // No CNP at all in the data: nothing the rule looks for happened.
    const auto idle =
        rh::run_rules(cnp_captures({0, 10}, {1000, 1000}, {5, 5}), rules, with_lifetime());
    BOOST_TEST(idle.findings.empty());
    BOOST_TEST(idle.not_judged.empty());
}

BOOST_AUTO_TEST_CASE(lifetime_cnp_without_ecn_from_one_capture) {
    const auto rules = rules_of({rule("cnp_rate", kCnpRate), rule("cnp_life", kCnpLifetime)});
    const auto r = rh::run_rules(cnp_captures({0}, {1333}, {0}), rules, with_lifetime());
    BOOST_REQUIRE_EQUAL(r.findings.size(), 1u);
    const auto& f = r.findings.front();
    BOOST_TEST(f.rule_id == "cnp_life");
    BOOST_TEST(f.confidence == "low");  // below any rate finding's
    BOOST_TEST(f.confidence_reason.find("since the counters were last reset") != std::string::npos);
    BOOST_TEST(f.confidence_reason.find("rates could not be judged") != std::string::npos);
    BOOST_TEST(f.summary ==
               "gpu01 mlx5_0 port 1: since the counters were last reset, CNPs 1333 "
               "packets, marks 0 packets");
    BOOST_TEST(f.device == "mlx5_0");
    BOOST_TEST(f.port == 1u);
    // The rates still could not be judged: said alongside the finding.
    BOOST_TEST(not_judged(r, "cnp_rate") != nullptr);
    // Marks counted: no contradiction, no finding.
    BOOST_TEST(!has_finding(
        rh::run_rules(cnp_captures({0}, {1333}, {2000}), rules, with_lifetime()), "cnp_life"));
}

BOOST_AUTO_TEST_CASE(rates_outrank_lifetime_evidence) {
    const auto rules = rules_of({rule("cnp_rate", kCnpRate), rule("cnp_life", kCnpLifetime)});
    // Three captures 30 s apart, flat counters: the rate rule judged it (no CNP now), so the
    // lifetime contradiction is history, not a finding.
    const auto r = rh::run_rules(cnp_captures({0, 30, 60}, {1333, 1333, 1333}, {0, 0, 0}), rules,
                                 with_lifetime());
    BOOST_TEST(r.findings.empty());
    BOOST_TEST(r.not_judged.empty());
    BOOST_REQUIRE_EQUAL(r.history.size(), 1u);
    BOOST_TEST(r.history[0].text.find("cnp_life") == 0u);
    BOOST_TEST(r.history[0].text.find("Historical") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(lifetime_rules_are_off_unless_asked_for) {
    // The agent's live loop (default options) never opens lifetime findings at start-up.
    const auto rules = rules_of({rule("cnp_rate", kCnpRate), rule("cnp_life", kCnpLifetime)});
    const auto r = rh::run_rules(cnp_captures({0}, {1333}, {0}), rules);
    BOOST_TEST(r.findings.empty());
    BOOST_TEST(r.history.empty());
    BOOST_TEST(!r.not_judged.empty());
}

BOOST_AUTO_TEST_CASE(lifetime_rules_are_validated) {
    const auto bad = [](const std::vector<json>& rules) {
        const auto r = rh::parse_rules(json{{"schema", 1}, {"rules", rules}}, "t");
        return r.ok() ? std::string() : r.error().message();
    };
    // A lifetime measure needs instead_of; instead_of must name a rate rule of the file;
    // lifetime_per_million needs `per`.
    BOOST_TEST(bad({rule("x", R"({"when": {"signal": "cnps", "series": "cnp_sent", "measure":
        "lifetime_value", "op": ">", "threshold": 0}})")})
                   .find("rules[0].instead_of: missing") != std::string::npos);
    BOOST_TEST(
        bad({rule("cnp_life", kCnpLifetime)}).find("\"cnp_rate\" is not a time-based rate rule") !=
        std::string::npos);
    BOOST_TEST(bad({rule("cnp_rate", kCnpRate), rule("y", R"({"instead_of": ["cnp_rate"], "when":
        {"signal": "r", "series": "ack_timeouts", "measure": "lifetime_per_million", "op": ">",
         "threshold": 1}})")})
                   .find("rules[1].when.per: missing") != std::string::npos);
    // A rate measure in a lifetime rule is refused (it reads one capture).
    BOOST_TEST(bad({rule("cnp_rate", kCnpRate), rule("z", R"({"instead_of": ["cnp_rate"], "when":
        {"signal": "r", "series": "ack_timeouts", "measure": "increase", "op": ">",
         "threshold": 1}})")})
                   .find("only lifetime_value, lifetime_per_million and value") !=
               std::string::npos);
}

// ---- the shipped lifetime rules -----------------------------------------------------------

namespace {

rh::RuleSet shipped() {
    auto r = rh::load_rules_file(std::string(RH_SOURCE_DIR) + "/rules/rocehealth-rules.json");
    BOOST_REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message()));
    return *r;
}

struct Reading {
    const char* series;
    std::uint64_t value;
};

/// One host's hw_counters + ethtool readings at `times` (the same values each time: flat).
SeriesStore host_counters(const std::vector<Reading>& readings, const std::vector<double>& times) {
    SeriesStore store;
    for (double t : times)
        for (const Reading& r : readings)
            store.add(rh::test::counter("h3", r.series, kPort, t, r.value));
    return store;
}

// The 400-day healthy host (shared case h3-healthy-uptime-400d): large historic counts that
// are tiny against its traffic.
const std::vector<Reading> k400Days = {{"ack_timeouts", 18234},
                                       {"sequence_errors", 871440},
                                       {"retry_exceeded", 57},
                                       {"rnr_nak_received", 2004},
                                       {"rnr_retry_exceeded", 0},
                                       {"cnp_sent", 86204117002},
                                       {"ecn_marked_packets", 88120339104},
                                       {"roce_tx_packets", 29110658313252},
                                       {"roce_rx_packets", 31301783132529}};

bool any_lifetime_finding(const EngineResult& r) {
    return std::any_of(r.findings.begin(), r.findings.end(),
                       [](const rh::Finding& f) { return f.rule_id.rfind("lifetime_", 0) == 0; });
}

}  // namespace

BOOST_AUTO_TEST_CASE(four_hundred_days_of_history_is_no_lifetime_finding) {
    const auto rules = shipped();
    // One capture: rates cannot be judged, and the lifetime ratios are far below thresholds.
    const auto one = rh::run_rules(host_counters(k400Days, {0}), rules, with_lifetime());
    BOOST_TEST(!any_lifetime_finding(one));
    BOOST_TEST(one.findings.empty());
    BOOST_TEST(!one.not_judged.empty());  // ... but it is not "healthy" either
    // Three captures 30 s apart, flat: judged by the rates, healthy, no history to tell.
    const auto three = rh::run_rules(host_counters(k400Days, {0, 30, 60}), rules, with_lifetime());
    BOOST_TEST(three.findings.empty());
    BOOST_TEST(three.not_judged.empty());
    BOOST_TEST(three.history.empty());
}

BOOST_AUTO_TEST_CASE(lifetime_losses_against_traffic) {
    const auto rules = shipped();
    // 16,000 ACK timeouts and 2,300 retries exceeded against 10^9 packets sent: a lossy path.
    std::vector<Reading> lossy = {{"ack_timeouts", 16000},
                                  {"sequence_errors", 0},
                                  {"retry_exceeded", 2300},
                                  {"roce_tx_packets", 1000000000}};
    const auto r = rh::run_rules(host_counters(lossy, {0}), rules, with_lifetime());
    BOOST_REQUIRE(has_finding(r, "lifetime_transport_loss"));
    const auto f = *std::find_if(r.findings.begin(), r.findings.end(), [](const rh::Finding& x) {
        return x.rule_id == "lifetime_transport_loss";
    });
    BOOST_TEST(f.confidence == "low");
    BOOST_TEST(f.summary.find("since the counters were last reset") != std::string::npos);
    BOOST_TEST(f.summary.find("16000 packets") != std::string::npos, f.summary);
    // The same counts without a packet counter cannot be weighed: no finding, named instead.
    lossy.pop_back();
    const auto bare = rh::run_rules(host_counters(lossy, {0}), rules, with_lifetime());
    BOOST_TEST(!has_finding(bare, "lifetime_transport_loss"));
    const auto* n = not_judged(bare, "lifetime_transport_loss");
    BOOST_REQUIRE(n);
    BOOST_TEST(n->kind == "no_reference");
    BOOST_TEST(n->text.find("roce_tx_packets") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(tens_of_thousands_of_failed_wrs_need_no_packet_count) {
    // A pasted hw_counters listing alone (no ethtool -S, so no RoCE packet count): 31,170 RNR
    // retries exceeded are 31,170 work requests failed with IBV_WC_RNR_RETRY_EXC_ERR.
    const auto rules = shipped();
    const std::vector<Reading> rnr = {{"rnr_nak_received", 8841000}, {"rnr_retry_exceeded", 31170}};
    const auto r = rh::run_rules(host_counters(rnr, {0}), rules, with_lifetime());
    BOOST_REQUIRE(has_finding(r, "lifetime_rnr"));
    const auto f = *std::find_if(r.findings.begin(), r.findings.end(),
                                 [](const rh::Finding& x) { return x.rule_id == "lifetime_rnr"; });
    BOOST_TEST(f.confidence == "low");
    BOOST_TEST(f.summary.find("RNR retries exceeded: 31170") != std::string::npos, f.summary);
    BOOST_TEST(f.summary.find("no packet count in the capture") != std::string::npos, f.summary);
    // The 400-day host's 57 transport retries exceeded, without its packet counters: no finding.
    const std::vector<Reading> old = {{"ack_timeouts", 18234}, {"retry_exceeded", 57}};
    const auto o = rh::run_rules(host_counters(old, {0}), rules, with_lifetime());
    BOOST_TEST(!has_finding(o, "lifetime_transport_loss"));
}

BOOST_AUTO_TEST_SUITE_END()  // test_rules_judged_lifetime

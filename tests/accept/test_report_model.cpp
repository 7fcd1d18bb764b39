// The acceptance report model (agent/accept/report_model.h): the example report reads back to
// the same JSON, and each kind of broken report is refused with an error naming its JSON path.
#include <boost/test/unit_test.hpp>

#include <functional>

#include "agent/accept/report_model.h"
#include "tests/accept/interrupted_report.h"
#include "tests/support/test_support.h"

BOOST_AUTO_TEST_SUITE(test_accept_report_model)

using nlohmann::json;
using namespace rh::accept;

namespace {

const std::string kFixture = std::string(RH_FIXTURES_DIR) + "/accept/report.json";

json fixture() {
    return json::parse(rh::test::slurp(kFixture));
}

std::string all_errors(const ParsedReport& p) {
    std::string s;
    for (const auto& e : p.errors) s += e.text() + "\n";
    return s;
}

/// Applies `edit` to the fixture, reads it, and expects it refused with an error at `path`
/// whose message contains `words`.
void expect_refused(const std::function<void(json&)>& edit, const std::string& path,
                    const std::string& words) {
    json j = fixture();
    edit(j);
    const ParsedReport p = report_from_json(j);
    BOOST_TEST_CONTEXT("errors:\n" << all_errors(p)) {
        BOOST_TEST(!p.report.has_value());
        bool found = false;
        for (const auto& e : p.errors)
            found = found || (e.path == path && e.message.find(words) != std::string::npos);
        BOOST_TEST(found, "no error at " << path << " saying '" << words << "'");
    }
}

}  // namespace

BOOST_AUTO_TEST_CASE(example_report_reads_with_its_stages_and_verdicts) {
    const ParsedReport p = report_from_json(fixture());
    BOOST_TEST_REQUIRE(p.report.has_value(), all_errors(p));
    const Report& r = *p.report;
    BOOST_TEST(r.verdict == Verdict::fail);
    BOOST_TEST(r.hosts.size() == 3u);
    BOOST_TEST(r.stages.size() == 7u);
    for (StageId id : all_stage_ids()) {
        const Stage* s = r.stage(id);
        BOOST_TEST_REQUIRE(s != nullptr, to_string(id));
        BOOST_TEST(
            (s->verdict == (id == StageId::incast ? StageVerdict::fail : StageVerdict::pass)),
            to_string(id));
    }
    const auto& lat = std::get<IdleLatencyResults>(r.stage(StageId::idle_latency)->results);
    BOOST_TEST(lat.latency.size() == 48u);  // 6 ordered pairs x 2 ops x 4 sizes
    const auto& incast = std::get<IncastResults>(r.stage(StageId::incast)->results);
    BOOST_TEST(incast.senders.size() == 2u);
    BOOST_TEST(incast.senders[1].errors_by_status.at("IBV_WC_RETRY_EXC_ERR") == 3u);
    BOOST_TEST(incast.victim->during.p99_us.value() == 412.7);
    const Stage* inc = r.stage(StageId::incast);
    BOOST_TEST(inc->findings.size() == 2u);
    BOOST_TEST(inc->findings[1].severity == rh::Severity::error);
    BOOST_TEST(inc->findings[1].timeline.size() == 4u);
    // A counter sample that could not be read stays missing, never zero.
    const auto& retx = inc->counter_timelines[5];
    BOOST_TEST(retx.series == "retransmits");
    bool gap = false;
    for (const auto& [t, v] : retx.points) gap = gap || (t == 356 && !v.has_value());
    BOOST_TEST(gap);
}

BOOST_AUTO_TEST_CASE(writing_gives_back_the_same_json) {
    const json in = fixture();
    const ParsedReport p = report_from_json(in);
    BOOST_TEST_REQUIRE(p.report.has_value(), all_errors(p));
    const json out = report_to_json(*p.report);
    const json diff = json::diff(in, out);
    BOOST_TEST(diff.empty(), "changed: " << diff.dump().substr(0, 600));
}

BOOST_AUTO_TEST_CASE(criterion_holds_compares_numbers_and_strings) {
    Criterion c{"x", "<=", 10.0, "us", 9.5, true, {}};
    BOOST_TEST(criterion_holds(c));
    c.measured = 10.5;
    BOOST_TEST(!criterion_holds(c));
    c.measured = std::monostate{};  // not measured never passes
    BOOST_TEST(!criterion_holds(c));
    c = {"rkey", "==", std::string("IBV_WC_REM_ACCESS_ERR"), "", std::string("IBV_WC_SUCCESS"),
         false,  {}};
    BOOST_TEST(!criterion_holds(c));
    c.measured = std::string("IBV_WC_REM_ACCESS_ERR");
    BOOST_TEST(criterion_holds(c));
    c.comparison = ">=";  // ordering needs numbers
    BOOST_TEST(!criterion_holds(c));
}

BOOST_AUTO_TEST_CASE(derived_verdict_fail_beats_error_beats_pass) {
    std::vector<Stage> stages(3);
    for (auto& s : stages) s.verdict = StageVerdict::pass;
    stages[2].verdict = StageVerdict::skipped;
    BOOST_TEST(derived_verdict(stages) == Verdict::pass);
    stages[1].verdict = StageVerdict::error;
    BOOST_TEST(derived_verdict(stages) == Verdict::incomplete);
    stages[0].verdict = StageVerdict::fail;
    BOOST_TEST(derived_verdict(stages) == Verdict::fail);
    // Nothing measured (every stage skipped) proves nothing: not a pass.
    for (auto& s : stages) s.verdict = StageVerdict::skipped;
    BOOST_TEST(derived_verdict(stages) == Verdict::incomplete);
}

BOOST_AUTO_TEST_CASE(refused_reports_name_the_json_path) {
    // stages[4] is incast, criteria[1] its failing Jain index criterion.
    expect_refused([](json& j) { j["stages"][4]["criteria"][1]["pass"] = true; },
                   "stages[4].criteria[1].pass", "does not hold");
    expect_refused([](json& j) { j["stages"][2]["criteria"][0]["measured"] = nullptr; },
                   "stages[2].criteria[0].pass", "measured null >= threshold 0.9 does not hold");
    expect_refused([](json& j) { j["stages"][4]["verdict"] = "pass"; }, "stages[4].verdict",
                   "pass, but 4 criteria fail");
    expect_refused([](json& j) { j["verdict"] = "pass"; }, "verdict", "the stages make it fail");
    // A stage called skipped whose measured criteria fail (and then a "pass" over it).
    expect_refused(
        [](json& j) {
            j["stages"][4]["verdict"] = "skipped";
            j["stages"][4]["reason"] = "x";
        },
        "stages[4].verdict", "skipped, but 4 criteria were measured and fail");
    expect_refused([](json& j) { j["stages"].erase(6); }, "stages",
                   "stage rkey_revocation is missing");
    expect_refused([](json& j) { j["stages"][3]["id"] = "bandwidth"; }, "stages[3].id",
                   "appears twice");
    expect_refused([](json& j) { j["schema"] = 2; }, "schema", "expected 1");
    expect_refused([](json& j) { j["stages"][1]["results"]["latency"][3]["src"] = "gpu-r9-99"; },
                   "stages[1].results.latency[3].src", "\"gpu-r9-99\" is not in hosts[]");
    expect_refused([](json& j) { j["stages"][2]["results"]["pairs"][0]["gbps"] = "fast"; },
                   "stages[2].results.pairs[0].gbps", "expected a number, got a string (\"fast\")");
    expect_refused([](json& j) { j["stages"][4]["findings"][0]["severity"] = "critical"; },
                   "stages[4].findings[0].severity", "expected one of info, warning, error");
    expect_refused([](json& j) { j["stages"][4]["criteria"][2]["evidence"][2] = "/findings/9"; },
                   "stages[4].criteria[2].evidence[2]",
                   "/findings/9 does not exist (2 in this stage)");
    expect_refused([](json& j) { j["stages"][4]["criteria"][2]["evidence"][0] = "/results/nope"; },
                   "stages[4].criteria[2].evidence[0]", "no member \"nope\"");
    expect_refused(
        [](json& j) { j["stages"][4]["evidence_links"][0]["href"] = "https://example.com/x.json"; },
        "stages[4].evidence_links[0].href", "relative path inside the report directory");
    expect_refused(
        [](json& j) { j["stages"][4]["evidence_links"][0]["href"] = "../../etc/passwd"; },
        "stages[4].evidence_links[0].href", "no \"..\"");
    expect_refused([](json& j) { j["stages"][4]["counter_timelines"][0]["points"][3][0] = 1.0; },
                   "stages[4].counter_timelines[0].points[3]", "t_s goes backwards");
    expect_refused(
        [](json& j) { j["stages"][6]["results"]["attempts"][0]["got_status"] = "IBV_WC_SUCCESS"; },
        "stages[6].results.attempts[0].pass", "got_status is not expected_status");
    expect_refused(
        [](json& j) { j["stages"][0]["results"]["consistency"][0]["consistent"] = false; },
        "stages[0].results.consistency[0].consistent", "all hosts have one value");
    expect_refused(
        [](json& j) {
            j["stages"][5]["verdict"] = "skipped";
            j["stages"][5]["reason"] = "";
        },
        "stages[5].reason", "a skipped stage says why");
    expect_refused([](json& j) { j["hosts"][2]["name"] = "gpu-r1-01"; }, "hosts[2].name",
                   "listed twice");
}

BOOST_AUTO_TEST_CASE(a_json_syntax_error_names_line_and_column) {
    const ParsedReport p = report_from_text("{\n  \"schema\": 1,\n  \"verdict\": pass\n}");
    BOOST_TEST_REQUIRE(p.errors.size() == 1u);
    BOOST_TEST(p.errors[0].text().find("line 3, column") != std::string::npos, p.errors[0].text());
}

BOOST_AUTO_TEST_CASE(a_skipped_stage_without_results_is_accepted) {
    json j = fixture();
    auto& fault = j["stages"][5];
    fault["verdict"] = "skipped";
    fault["reason"] = "the spec does not allow a fault";
    fault["results"] = nullptr;
    fault["criteria"] = json::array();
    fault["findings"] = json::array();
    const ParsedReport p = report_from_json(j);
    BOOST_TEST_REQUIRE(p.report.has_value(), all_errors(p));
    BOOST_TEST(std::holds_alternative<std::monostate>(p.report->stage(StageId::fault)->results));
    BOOST_TEST(p.report->verdict == Verdict::fail);  // incast still fails
}

BOOST_AUTO_TEST_CASE(incast_integrity_fields_read_back_and_are_checked) {
    // What "0 bad slots" looked at (protocol 4 receivers): read, written back, range-checked.
    json in = fixture();
    auto& res = in["stages"][4]["results"];
    res["bad_slots"] = 0u;  // counts are unsigned in JSON written by the agent
    res["verified_messages"] = 450u;
    res["verified_bytes"] = 450u * 65536u;
    res["verified_fraction"] = 0.25;
    const ParsedReport p = report_from_json(in);
    BOOST_TEST_REQUIRE(p.report.has_value(), all_errors(p));
    const auto& incast = std::get<IncastResults>(p.report->stage(StageId::incast)->results);
    BOOST_TEST(incast.bad_slots.value() == 0u);
    BOOST_TEST(incast.verified_messages.value() == 450u);
    BOOST_TEST(incast.verified_bytes.value() == 450u * 65536u);
    BOOST_TEST(incast.verified_fraction.value() == 0.25);
    BOOST_TEST(json::diff(in, report_to_json(*p.report)).empty());
    expect_refused([](json& j) { j["stages"][4]["results"]["verified_fraction"] = 1.5; },
                   "stages[4].results.verified_fraction", "expected 0..1");
}

// Issue 16 §3: a run stopped by SIGTERM keeps what it measured and says where it stopped.
BOOST_AUTO_TEST_CASE(an_interrupted_run_is_incomplete_and_keeps_what_was_measured) {
    const json in = rh::test::interrupted_during_bandwidth(fixture());
    const ParsedReport p = report_from_json(in);
    BOOST_TEST_REQUIRE(p.report.has_value(), all_errors(p));
    const Report& r = *p.report;
    BOOST_TEST(r.verdict == Verdict::incomplete);
    BOOST_TEST_REQUIRE(r.interrupted.has_value());
    BOOST_TEST(r.interrupted->stage == StageId::bandwidth);
    BOOST_TEST(r.interrupted->cause == "signal");
    BOOST_TEST(r.interrupted->reason == rh::test::kCutReason);
    // The stages finished before keep their verdicts and every measured row.
    BOOST_TEST(r.stage(StageId::inventory)->verdict == StageVerdict::pass);
    BOOST_TEST(r.stage(StageId::idle_latency)->verdict == StageVerdict::pass);
    BOOST_TEST(
        std::get<IdleLatencyResults>(r.stage(StageId::idle_latency)->results).latency.size() ==
        fixture()["stages"][1]["results"]["latency"].size());
    // The cut stage keeps the pairs it measured.
    const Stage& bw = *r.stage(StageId::bandwidth);
    BOOST_TEST(bw.verdict == StageVerdict::error);
    const auto& pairs = std::get<BandwidthResults>(bw.results).pairs;
    BOOST_TEST_REQUIRE(pairs.size() == 2u);
    BOOST_TEST(*pairs[0].gbps == 97.4);
    for (StageId id :
         {StageId::concurrency, StageId::incast, StageId::fault, StageId::rkey_revocation})
        BOOST_TEST(r.stage(id)->verdict == StageVerdict::not_run, to_string(id));
    BOOST_TEST(report_to_json(r) == in);
}

BOOST_AUTO_TEST_CASE(an_interrupted_run_is_incomplete_even_after_a_failed_stage) {
    Report r;
    r.stages.resize(2);
    r.stages[0].verdict = StageVerdict::fail;
    r.stages[1].verdict = StageVerdict::error;
    BOOST_TEST(derived_verdict(r) == Verdict::fail);
    r.interrupted = Interruption{StageId::idle_latency, "time_limit",
                                 "stage idle_latency exceeded its 360 s limit"};
    BOOST_TEST(derived_verdict(r) == Verdict::incomplete);
    r.stages[1].verdict = StageVerdict::not_run;
    r.interrupted.reset();
    BOOST_TEST(derived_verdict(r.stages) == Verdict::fail);
    r.stages[0].verdict = StageVerdict::pass;
    BOOST_TEST(derived_verdict(r.stages) == Verdict::incomplete);  // a stage not run: not a pass
}

BOOST_AUTO_TEST_CASE(inconsistent_interruptions_are_refused) {
    using rh::test::interrupted_during_bandwidth;
    auto edit = [](const std::function<void(json&)>& f) {
        return [f](json& j) {
            j = interrupted_during_bandwidth(j);
            f(j);
        };
    };
    expect_refused(edit([](json& j) { j["verdict"] = "fail"; }), "verdict",
                   "the run was interrupted: incomplete");
    expect_refused(edit([](json& j) { j["interrupted"] = nullptr; }), "stages[3].verdict",
                   "not_run, but the report has no \"interrupted\"");
    expect_refused(edit([](json& j) { j["interrupted"]["stage"] = "idle_latency"; }),
                   "interrupted.stage", "its verdict is pass");
    expect_refused(edit([](json& j) { j["interrupted"]["cause"] = "boredom"; }),
                   "interrupted.cause", "");
    expect_refused(edit([](json& j) { j["stages"][4]["reason"] = ""; }), "stages[4].reason",
                   "a not_run stage says why");
}

BOOST_AUTO_TEST_SUITE_END()  // test_accept_report_model

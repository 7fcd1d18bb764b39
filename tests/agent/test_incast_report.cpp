// The result of `rocehealth incast` (agent/reports/incast_report.h,
// agent/reports/incast_analysis.h) from a run built in code: per-sender figures, failed senders
// named, integrity, errors by status, the victim's verdict, the rule engine over the participants'
// samples, timeline, exit codes; the acceptance runner takes the findings its raw file holds.
#include <boost/test/unit_test.hpp>

#include <sstream>

#include "agent/accept/finding_json.h"
#include "agent/accept_run/traffic_run.h"
#include "agent/reports/incast_analysis.h"
#include "agent/reports/incast_report.h"
#include "core/json/json_reader.h"
#include "core/recording/sample_json.h"
#include "core/sample.h"

BOOST_AUTO_TEST_SUITE(test_incast_report)

using namespace rh;
using namespace rh::incast;
namespace tt = boost::test_tools;

namespace {

constexpr std::int64_t kStart = 1'800'000'000'000;

Outcome outcome(std::uint64_t messages, std::uint64_t size, std::int64_t last_ms,
                std::uint64_t bad = 0) {
    Outcome o;
    o.scheduled_start_wall_ms = kStart;
    o.started_wall_ms = kStart + 2;
    o.size_bytes = size;
    QpResult q;
    q.posted = q.completed = messages;
    q.first_post_wall_ms = kStart + 2;
    q.last_completion_wall_ms = last_ms;
    o.qps = {q};
    o.receiver_ok = true;
    stream::QpReceived r;
    r.messages = messages;
    r.bytes = (messages - bad) * size;
    r.bad_slots = bad;
    r.verified_messages = messages / 4;  // 64 KiB: the default policy hashes a quarter in full
    r.verified_bytes = r.verified_messages * size;
    if (bad) r.bad["payload_mismatch"] = bad;
    o.receiver.qps = {r};
    return o;
}

/// Counter passes of one host, 1/s for 14 s: `series` grows by `per_s` each second.
std::vector<nlohmann::json> passes(const std::string& host, const std::string& series,
                                   std::uint64_t per_s) {
    std::vector<nlohmann::json> lines;
    for (int i = 0; i < 14; ++i) {
        Sample s;
        s.t_s = 100 + i;
        s.wall_ms = kStart - 2000 + i * 1000;
        s.host = host;
        s.series = series;
        s.labels = {{"device", "rxe0"}, {"port", "1"}};
        s.kind = SampleKind::counter;
        s.unit = "packets";
        s.count = 1000 + per_s * static_cast<std::uint64_t>(i);
        s.source = "/sys/class/infiniband/rxe0/ports/1/hw_counters/x";
        lines.push_back(to_json_line(s));
    }
    return lines;
}

Run sample_run() {
    Run run;
    run.options.receiver = "10.0.0.1";
    run.options.senders = {"10.0.0.2", "10.0.0.3", "10.0.0.4"};
    run.options.size_bytes = 65536;
    run.options.duration_ms = 5000;
    run.id = "cafe0001";
    run.coordinator_host = "g2";
    run.start_wall_ms = kStart;
    run.end_wall_ms = kStart + 5000;
    run.receiver.name = "10.0.0.1";
    run.receiver.role = "receiver";
    Hello h;
    h.hostname = "g1";
    h.device = "rxe0";
    h.port = 1;
    h.port_rate = "2.5 Gb/sec (1X SDR)";
    run.receiver.hello = h;
    for (int i = 0; i < 3; ++i) {
        HostRun hr;
        hr.name = run.options.senders[i];
        hr.role = "sender";
        Hello sh;
        sh.hostname = "g" + std::to_string(i + 2);
        if (i < 2) hr.hello = sh;
        run.sender_hosts.push_back(hr);
        SenderRun s;
        s.name = hr.name;
        run.senders.push_back(s);
    }
    // g2: 1000 messages of 64 KiB in 5.0 s; g3: 800 (2 bad) in 5.2 s and one error
    // completion; 10.0.0.4 unreachable.
    run.senders[0].status = "completed";
    run.senders[0].outcome = outcome(1000, 65536, kStart + 5000);
    run.senders[1].status = "completed";
    run.senders[1].outcome = outcome(800, 65536, kStart + 5200, 2);
    run.senders[1].outcome->qps[0].errors["IBV_WC_RETRY_EXC_ERR"] = 1;
    run.senders[1].progress = {{1.0, 10'000'000}, {2.0, 20'000'000}};
    run.senders[2].status = "unreachable";
    run.senders[2].error = "cannot reach responder at 10.0.0.4:18520: Connection refused";
    run.victim.ran = true;
    run.victim.before.iterations = 1000;
    run.victim.before.p99_us = 400;
    run.victim.during.iterations = 500;
    run.victim.during.p99_us = 2000;
    run.events = {{kStart, "", "start (2 of 3 senders)"}, {kStart - 3000, "", "begins"}};
    // The lossy sender g3's counters show sequence NAKs; g1's are quiet.
    run.sender_hosts[1].samples = passes("g3", "sequence_errors", 50);
    run.sender_hosts[1].sampled = true;
    run.receiver.samples = passes("g1", "sequence_errors", 0);
    run.receiver.sampled = true;
    return run;
}

RuleSet rules() {
    auto r = load_rules_file(RH_SOURCE_DIR "/rules/rocehealth-rules.json");
    BOOST_REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message()));
    return *r;
}

}  // namespace

BOOST_AUTO_TEST_CASE(result_json_figures_and_failed_sender) {
    const Run run = sample_run();
    const auto a = rh::analyse_incast(run, rules(), "rules.json");
    BOOST_REQUIRE(a.link_gbps.has_value());
    BOOST_TEST(*a.link_gbps == 2.5);
    const rh::IncastReport report = rh::incast_report(run, a);
    const nlohmann::json doc = report;
    const auto& s = doc["senders"];
    BOOST_REQUIRE(s.size() == 3u);
    // 1000 x 64 KiB intact in 5.0 s = 0.1048576 Gb/s, 12.5 MiB/s.
    BOOST_TEST(s[0]["goodput_gbps"].get<double>() == 0.1048576, tt::tolerance(1e-9));
    BOOST_TEST(s[0]["goodput_mib_per_s"].get<double>() == 12.5, tt::tolerance(1e-9));
    BOOST_TEST(s[0]["hostname"] == "g2");
    // 798 intact x 64 KiB in 5.2 s.
    BOOST_TEST(s[1]["goodput_gbps"].get<double>() == 798.0 * 65536 * 8 / 1e9 / 5.2,
               tt::tolerance(1e-9));
    BOOST_TEST(s[1]["bad_slots"] == 2);
    BOOST_TEST(s[1]["errors"]["IBV_WC_RETRY_EXC_ERR"] == 1);
    BOOST_TEST(s[2]["status"] == "unreachable");
    BOOST_TEST(s[2]["error"].get<std::string>().find("10.0.0.4:18520") != std::string::npos);
    BOOST_TEST(s[2]["goodput_gbps"] == 0.0);
    const auto& ag = doc["aggregate"];
    BOOST_TEST(ag["senders_ran"] == 2);
    BOOST_TEST(ag["senders_total"] == 3);
    const double agg = (1000.0 + 798) * 65536 * 8 / 1e9 / 5.2;
    BOOST_TEST(ag["goodput_gbps"].get<double>() == agg, tt::tolerance(1e-9));
    BOOST_TEST(ag["share_of_link"].get<double>() == agg / 2.5, tt::tolerance(1e-9));
    const double g0 = 0.1048576, g1 = 798.0 * 65536 * 8 / 1e9 / 5.2;
    BOOST_TEST(doc["fairness"]["jain_index"].get<double>() ==
                   (g0 + g1) * (g0 + g1) / (2 * (g0 * g0 + g1 * g1)),
               tt::tolerance(1e-9));
    BOOST_TEST(doc["completion"]["spread_ms"].get<double>() == 200.0, tt::tolerance(1e-6));
    BOOST_TEST(doc["integrity"]["messages_verified"] == 1800);
    BOOST_TEST(doc["integrity"]["bad_slots"] == 2);
    // What "2 bad slots" looked at: every trailer, and 250 + 200 whole payloads.
    BOOST_TEST(doc["integrity"]["verified_messages"] == 450);
    BOOST_TEST(doc["integrity"]["verified_bytes"] == 450u * 65536u);
    BOOST_TEST(doc["integrity"]["verified_fraction"].get<double>() == 0.25, tt::tolerance(1e-12));
    BOOST_TEST(s[1]["verified_messages"] == 200);
    BOOST_TEST(s[1]["verified_bytes"] == 200u * 65536u);
    BOOST_TEST(s[0]["verified_fraction"].get<double>() == 0.25, tt::tolerance(1e-12));
    BOOST_TEST(s[2]["verified_fraction"].is_null());  // nothing arrived: no fraction
    BOOST_TEST(doc["integrity"]["bad"]["payload_mismatch"] == 2);
    BOOST_TEST(doc["errors"]["IBV_WC_RETRY_EXC_ERR"] == 1);
    // Victim: 400 -> 2000 us p99 is a rise (5x).
    BOOST_TEST(doc["victim"]["p99_rose"] == true);
    BOOST_TEST(doc["victim"]["p99_ratio"].get<double>() == 5.0, tt::tolerance(1e-9));
    BOOST_TEST(doc["victim"]["verdict"].get<std::string>().find("rose") != std::string::npos);
    // The rule engine saw g3's sequence NAKs, not g1's quiet counters.
    BOOST_TEST(doc["findings"] == nlohmann::json::array({"retransmits@g3"}));
    BOOST_TEST(doc["diagnosis"]["hosts"].size() == 2u);
    // Timeline: the test's events and the finding's, in time order.
    const auto& tl = doc["timeline"];
    bool rule_event = false;
    for (std::size_t i = 0; i < tl.size(); ++i) {
        if (i)
            BOOST_TEST(tl[i - 1]["utc_ms"].get<std::int64_t>() <=
                       tl[i]["utc_ms"].get<std::int64_t>());
        rule_event |= tl[i]["source"].get<std::string>().rfind("rule retransmits", 0) == 0;
    }
    BOOST_TEST(rule_event);
    BOOST_TEST(tl[0]["text"] == "begins");
    BOOST_TEST(doc["per_second"].size() == 5u);
    BOOST_TEST(doc["activity"].contains("g3"));
    BOOST_TEST(doc["ok"] == false);
    BOOST_TEST(rh::incast_exit_code(report) == 1);

    std::ostringstream text;
    rh::render_incast_text(text, report);
    const std::string t = text.str();
    BOOST_TEST(t.find("10.0.0.4") != std::string::npos);
    BOOST_TEST(t.find("unreachable") != std::string::npos);
    BOOST_TEST(t.find("Jain's index") != std::string::npos);
    BOOST_TEST(t.find("1800 slots checked at the receiver (seq, checksum, first 64 B), 450 of "
                      "them in full (25.0%, 29491200 bytes), 2 bad") != std::string::npos,
               t);
    BOOST_TEST(t.find("victim p99 rose") != std::string::npos);
    BOOST_TEST(t.find("of the receiver's 2.5 Gb/s link") != std::string::npos);
    BOOST_TEST(t.find("[warning] retransmits on g3") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(exit_codes) {
    Run run = sample_run();
    run.senders.pop_back();
    run.sender_hosts.pop_back();
    run.options.senders.pop_back();
    run.senders[1].outcome = outcome(800, 65536, kStart + 5200);
    run.sender_hosts[1].samples.clear();
    auto report = rh::incast_report(run, rh::analyse_incast(run, rules(), "rules.json"));
    nlohmann::json doc = report;
    BOOST_TEST(doc["findings"].empty());
    BOOST_TEST(rh::incast_exit_code(report) == 0);
    BOOST_TEST(doc["ok"] == true);
    // No sender ran at all: could not run.
    for (auto& s : run.senders) {
        s.status = "failed to start";
        s.outcome.reset();
    }
    report = rh::incast_report(run, rh::analyse_incast(run, rules(), "rules.json"));
    doc = report;
    BOOST_TEST(rh::incast_exit_code(report) == 2);
    BOOST_TEST(doc["fairness"]["jain_index"].is_null());
    // No samples anywhere: no diagnosis, said so.
    run.receiver.samples.clear();
    report = rh::incast_report(run, rh::analyse_incast(run, rules(), "rules.json"));
    doc = report;
    BOOST_TEST(doc["diagnosis"].is_null());
    std::ostringstream text;
    rh::render_incast_text(text, report);
    BOOST_TEST(text.str().find("rule engine: not run") != std::string::npos);
}

// The acceptance report takes an incast's findings from the typed result; they must be what the
// run's raw `incast --json` file (linked from the report) reads back as, hosts by spec name.
BOOST_AUTO_TEST_CASE(acceptance_findings_are_those_of_its_raw_file) {
    const Run run = sample_run();
    IncastAnalysis a = analyse_incast(run, rules(), "rules.json");
    BOOST_REQUIRE(a.diagnosis.has_value());
    BOOST_REQUIRE(!a.diagnosis->engine.findings.empty());  // retransmits on g3, time-based
    // A lifetime finding (no episodes) with what its JSON form does not carry back.
    Finding life = make_finding("lifetime_rnr", Severity::warning, "g3", "mlx5_0", 1);
    life.summary = "RNR NAKs since the last reset";
    life.evidence = {{"rnr_nak_received", "5", "packets", "g3 hw_counters"}};
    life.explanation = "the receive queues ran dry";
    life.confidence = "low";
    life.confidence_reason = "one capture";
    life.outcome = "lifetime";
    a.diagnosis->engine.findings.push_back(life);
    const IncastReport report = incast_report(run, a);
    const nlohmann::json raw = report;

    accept::Spec spec;
    spec.hosts.push_back({});
    spec.hosts.back().name = "sender-b";
    spec.hosts.back().address = "g3";
    accept::Progress progress(accept::ProgressMode::off);
    accept::RunStop stop;
    const RuleSet rs;
    accept::RunContext cx{spec, 0, {}, progress, stop, rs, "rules.json", {}, {}, {}, {}, {}};
    const std::vector<Finding> typed = accept::findings_of(report.diagnosis, cx);
    const auto& written = raw["diagnosis"]["findings"];
    BOOST_REQUIRE_EQUAL(typed.size(), written.size());
    for (std::size_t i = 0; i < typed.size(); ++i) {
        JsonErrors errs;
        Finding back = accept::finding_from_json(JsonReader(written[i], "findings", errs));
        BOOST_TEST(errs.empty());
        back.host = cx.name_of(back.host);
        BOOST_TEST(typed[i].host == "sender-b");
        BOOST_TEST(nlohmann::json(typed[i]).dump() == nlohmann::json(back).dump());
        BOOST_TEST(typed[i].explanation == back.explanation);
        BOOST_TEST(typed[i].confidence == back.confidence);
        BOOST_TEST(typed[i].outcome == back.outcome);
        BOOST_TEST(typed[i].timeline.size() == back.timeline.size());
    }
}

BOOST_AUTO_TEST_SUITE_END()  // test_incast_report

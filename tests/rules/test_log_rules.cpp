// The log rules (rules/joblog): a job's error completion joined with what the data holds about
// its host and its peer. Each case is a class of cause, built in code from the store's own types.
#include <boost/test/unit_test.hpp>

#include "../store/make_sample.h"
#include "rules/joblog/log_qos.h"
#include "rules/joblog/log_rules.h"

using namespace rh;

namespace {

SeriesStore::PlacedLogEvent placed(std::string host, std::string kind, double t, bool timed,
                                   std::string source, std::string text) {
    SeriesStore::PlacedLogEvent p;
    p.host = std::move(host);
    p.t = t;
    p.timed = timed;
    p.event.kind = std::move(kind);
    p.event.source = std::move(source);
    p.event.file = p.event.source.substr(0, p.event.source.find(':'));
    p.event.text = std::move(text);
    p.event.reader = "nccl";
    return p;
}

SeriesStore::PlacedLogEvent retry_error(double t, bool timed = true) {
    auto e = placed("gpu01", "completion_error", t, timed, "logs/nccl.log:58",
                    "NCCL WARN NET/IB : Got completion from peer 10.0.0.7<4321> with status=12");
    e.event.wc_status = 12;
    e.event.device = "mlx5_0";
    e.event.peer_ip = "10.0.0.7";
    e.peer_host = "gpu07";
    return e;
}

const Finding* find(const EngineResult& r, const std::string& rule) {
    for (const auto& f : r.findings)
        if (f.rule_id == rule) return &f;
    return nullptr;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(test_log_rules)

BOOST_AUTO_TEST_CASE(retry_exceeded_without_evidence_says_what_to_capture) {
    SeriesStore store;
    store.add_log_event(retry_error(100));
    EngineResult r;
    judge_log_events(store, r);
    const Finding* f = find(r, "job_retry_exceeded");
    BOOST_REQUIRE(f);
    BOOST_TEST(f->summary.find("(status 12) towards gpu07 (10.0.0.7)") != std::string::npos);
    BOOST_TEST(f->summary.find("none of the evidence") != std::string::npos);
    BOOST_TEST(f->summary.find("capture next") != std::string::npos);
    BOOST_TEST(f->evidence.front().source == "logs/nccl.log:58");
    BOOST_TEST(r.log_events.size() == 1u);
}

BOOST_AUTO_TEST_CASE(a_peer_killed_before_the_error_is_the_cause_over_transport_counters) {
    SeriesStore store;
    // gpu01's ack timeouts rose too: a dead peer makes them rise, so the peer comes first.
    store.add(test::counter("gpu01", "ack_timeouts", {{"device", "mlx5_0"}, {"port", "1"}}, 0, 10));
    store.add(
        test::counter("gpu01", "ack_timeouts", {{"device", "mlx5_0"}, {"port", "1"}}, 200, 90));
    store.add_log_event(retry_error(100));
    store.add_log_event(placed("gpu07", "process_killed", 60, true, "gpu07-t1/dmesg.txt:9",
                               "Out of memory: Killed process 51045 (python3)"));
    EngineResult r;
    judge_log_events(store, r);
    const Finding* f = find(r, "job_retry_exceeded");
    BOOST_REQUIRE(f);
    BOOST_TEST(f->summary.find("the peer went away first") != std::string::npos);
    BOOST_TEST(f->summary.find("Out of memory") != std::string::npos);
    bool transport_cited = false;
    for (const auto& e : f->evidence) transport_cited |= e.value.find("ack_timeouts +80") == 0;
    BOOST_TEST(transport_cited);
}

BOOST_AUTO_TEST_CASE(a_kill_long_after_the_error_is_not_its_cause) {
    SeriesStore store;
    store.add_log_event(retry_error(100));
    // An hour later: the job's teardown, not what failed the QP at t=100.
    store.add_log_event(placed("gpu07", "process_killed", 3700, true, "gpu07-t1/dmesg.txt:9",
                               "Out of memory: Killed process 51045 (python3)"));
    EngineResult r;
    judge_log_events(store, r);
    const Finding* f = find(r, "job_retry_exceeded");
    BOOST_REQUIRE(f);
    BOOST_TEST(f->summary.find("none of the evidence") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(errors_towards_many_peers_are_one_finding_that_points_at_this_host) {
    SeriesStore store;
    for (int peer = 2; peer <= 9; ++peer) {
        auto e = retry_error(100 + peer);
        e.event.peer_ip = "10.0.0." + std::to_string(peer);
        e.peer_host = "gpu0" + std::to_string(peer);
        store.add_log_event(e);
    }
    EngineResult r;
    judge_log_events(store, r);
    BOOST_REQUIRE(r.findings.size() == 1u);
    const std::string& s = r.findings.front().summary;
    BOOST_TEST(s.find("towards 8 peers (gpu02 (10.0.0.2), gpu03") != std::string::npos);
    BOOST_TEST(s.find("several peers at once") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_single_flush_after_a_kill_is_a_note_not_a_finding) {
    SeriesStore store;
    store.add_log_event(placed("gpu01", "process_killed", 50, true, "t1/dmesg.txt:3",
                               "Killed process 4242 (python)"));
    auto flush = placed("gpu01", "completion_error", 51, true, "logs/nccl.log:9",
                        "NCCL WARN NET/IB : Got completion with status=5");
    flush.event.wc_status = 5;
    store.add_log_event(flush);
    EngineResult r;
    judge_log_events(store, r);
    BOOST_TEST(r.findings.empty());
    BOOST_REQUIRE(r.notes.size() == 1u);
    BOOST_TEST(r.notes.front().text.find("logs/nccl.log:9") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(flushes_after_an_error_are_cited_by_its_finding) {
    SeriesStore store;
    store.add_log_event(retry_error(100));
    for (int i = 0; i < 3; ++i) {
        auto flush = placed("gpu01", "completion_error", 101 + i, true,
                            "logs/nccl.log:" + std::to_string(60 + i), "status=5");
        flush.event.wc_status = 5;
        store.add_log_event(flush);
    }
    EngineResult r;
    judge_log_events(store, r);
    BOOST_REQUIRE(r.findings.size() == 1u);
    bool cited = false;
    for (const auto& e : r.findings.front().evidence)
        cited |= e.value.find("3 work requests flushed") == 0;
    BOOST_TEST(cited);
}

BOOST_AUTO_TEST_CASE(status_10_is_host_side_not_the_link) {
    SeriesStore store;
    auto e = retry_error(100);
    e.event.wc_status = 10;
    store.add_log_event(e);
    EngineResult r;
    judge_log_events(store, r);
    const Finding* f = find(r, "job_remote_access_error");
    BOOST_REQUIRE(f);
    BOOST_TEST(f->summary.find("not the link") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_link_down_at_boot_never_up_is_no_fault_one_while_running_is) {
    for (const double boot_s : {15.0, 5000.0}) {
        SeriesStore store;
        auto down = placed("gpu01", "link_down", 0, false, "t0/dmesg.txt:7",
                           "mlx5_core 0000:3b:00.1 ens1f1np1: Link down");
        down.event.reader = "kernel";
        down.event.clock = LogClock::boot;
        down.event.time_s = boot_s;
        down.event.netdev = "ens1f1np1";
        store.add_log_event(down);
        EngineResult r;
        judge_log_events(store, r);
        BOOST_TEST((find(r, "kernel_link_down") != nullptr) == (boot_s > 1000),
                   "boot_s " << boot_s);
    }
}

BOOST_AUTO_TEST_CASE(roce_priority_follows_trust_dscp2prio_and_sl) {
    using joblog_rules::roce_priority;
    // NCCL_IB_TC = DSCP << 2 | ECN: 106 is DSCP 26, priority 3 by the default dscp2prio.
    BOOST_TEST(roce_priority("dscp", {}, 106u, std::nullopt).value() == 3u);
    BOOST_TEST(roce_priority("dscp", {}, 32u, std::nullopt).value() == 1u);
    // An APP table entry (selector 5 = DSCP) maps DSCP 26 elsewhere.
    BOOST_TEST(roce_priority("dscp", {DcbApp{5, 5, 26}}, 106u, std::nullopt).value() == 5u);
    // PCP trust: the QP's service level, 0 when unset.
    BOOST_TEST(roce_priority("pcp", {}, 106u, 3u).value() == 3u);
    BOOST_TEST(roce_priority("", {}, 106u, std::nullopt).value() == 0u);
    BOOST_TEST(!roce_priority("dscp", {}, std::nullopt, 3u));
}

BOOST_AUTO_TEST_SUITE_END()

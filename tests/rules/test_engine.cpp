// The rule engine (rules/engine) on small hand-written rules over data built in code: holds,
// escalation, missing series, other hosts, PFC priorities, bundle intervals, alternatives and
// confidence, and the summary sentence. (tests/scenarios covers the shipped rules end to end.)
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "../store/make_sample.h"
#include "rules/engine/engine.h"

BOOST_AUTO_TEST_SUITE(test_rules_engine)

namespace {

using nlohmann::json;
using rh::EngineResult;
using rh::Labels;
using rh::SeriesStore;

const Labels kPort{{"device", "mlx5_0"}, {"port", "1"}};

/// `l` plus the labels of `more`.
Labels with(Labels l, const Labels& more) {
    l.insert(more.begin(), more.end());
    return l;
}

/// Growth of a counter over the pass interval (k-1, k], k = 1..last.
using Growth = std::function<std::uint64_t(int k)>;

Growth during(int first, int last, std::uint64_t per_pass) {
    return [=](int k) { return k >= first && k <= last ? per_pass : 0; };
}

/// Counter `series` of `host` read at t = 0, 1, ..., last (seconds, no wall clock).
void add_counter(SeriesStore& store, const std::string& host, const std::string& series,
                 const Labels& labels, int last, const Growth& growth) {
    std::uint64_t v = 1000;
    for (int k = 0; k <= last; ++k) {
        if (k > 0) v += growth(k);
        store.add(rh::test::counter(host, series, labels, k, v));
    }
}

/// Gauge `series` of `host` reading `value` at t = 0, 1, ..., last.
void add_gauge(SeriesStore& store, const std::string& host, const std::string& series,
               const Labels& labels, int last, double value) {
    for (int k = 0; k <= last; ++k) store.add(rh::test::gauge(host, series, labels, k, value));
}

/// A RuleSet of one rule: identity fields filled in, `fields` (when, hold_s, ...) merged over.
rh::RuleSet one_rule(const std::string& fields) {
    json rule = {{"id", "test_rule"},     {"title", "Test rule"},
                 {"severity", "warning"}, {"summary", "{host} {device} port {port}"},
                 {"explanation", "why"},  {"group_by", {"device", "port"}}};
    rule.update(json::parse(fields));
    auto set = rh::parse_rules(json{{"schema", 1}, {"rules", {rule}}}, "test");
    BOOST_REQUIRE_MESSAGE(set.ok(), (set.ok() ? "" : set.error().message()));
    return *set;
}

/// The one finding (a copy, so it may be taken from a temporary result).
rh::Finding only_finding(const EngineResult& r) {
    BOOST_REQUIRE_EQUAL(r.findings.size(), 1u);
    return r.findings.front();
}

/// Evaluated and healthy: no finding, nothing unevaluated or not applicable.
void check_healthy(const EngineResult& r) {
    BOOST_TEST(r.findings.empty());
    BOOST_TEST(r.unevaluated.empty());
    BOOST_TEST(r.not_applicable.empty());
}

/// No finding and no unevaluated note, and exactly one not-applicable note: that one.
rh::Note only_not_applicable(const EngineResult& r) {
    BOOST_TEST(r.findings.empty());
    BOOST_TEST(r.unevaluated.empty());
    BOOST_REQUIRE_EQUAL(r.not_applicable.size(), 1u);
    return r.not_applicable.front();
}

/// No finding and no not-applicable note, and exactly one unevaluated note: that one.
rh::Note only_unevaluated(const EngineResult& r) {
    BOOST_TEST(r.findings.empty());
    BOOST_TEST(r.not_applicable.empty());
    BOOST_REQUIRE_EQUAL(r.unevaluated.size(), 1u);
    return r.unevaluated.front();
}

/// The finding's one alternative (a copy).
rh::AlternativeCheck only_alternative(const rh::Finding& f) {
    BOOST_REQUIRE_EQUAL(f.alternatives.size(), 1u);
    return f.alternatives.front();
}

/// Rule fields: ACK timeouts above 1/s over each pass interval, held `hold` seconds, escalated
/// to error by the `escalate` expression when given.
std::string timeouts_rule(int hold, const std::string& escalate = "") {
    return R"({"hold_s": )" + std::to_string(hold) +
           R"(, "when": {"signal": "timeouts", "series": "ack_timeouts", "measure": "rate_per_s",
                         "op": ">", "threshold": 1})" +
           (escalate.empty()
                ? ""
                : R"(, "escalate": [{"severity": "error", "when": )" + escalate + "}]") +
           "}";
}

const char* kRetriesExceeded =
    R"({"signal": "retries", "series": "retry_exceeded", "measure": "increase", "op": ">",
        "threshold": 0})";

}  // namespace

BOOST_AUTO_TEST_CASE(hold_shorter_than_required_gives_no_finding) {
    // 5 timeouts/s over (4,5], (5,6], (6,7]: 3 s against a 5 s hold.
    SeriesStore store;
    add_counter(store, "gpu01", "ack_timeouts", kPort, 20, during(5, 7, 5));
    check_healthy(rh::run_rules(store, one_rule(timeouts_rule(5))));
}

BOOST_AUTO_TEST_CASE(hold_met_gives_one_finding_with_open_and_close) {
    // 6 s: the intervals (4,5] .. (9,10]. Opened at the pass the first bad interval starts
    // from, closed at the last pass it held; the data goes on to t=20.
    SeriesStore store;
    add_counter(store, "gpu01", "ack_timeouts", kPort, 20, during(5, 10, 5));
    const auto r = rh::run_rules(store, one_rule(timeouts_rule(5)));
    const auto& f = only_finding(r);
    BOOST_TEST(f.rule_id == "test_rule");
    BOOST_TEST(f.host == "gpu01");
    BOOST_TEST(f.device == "mlx5_0");
    BOOST_TEST(f.port == 1u);
    BOOST_TEST(f.severity == rh::Severity::warning);
    BOOST_TEST(f.opened_t == 4.0);
    BOOST_TEST(f.closed_t == 10.0);
    BOOST_TEST(f.episodes == 1u);
    BOOST_TEST(f.summary == "gpu01 mlx5_0 port 1");
    // No wall clock in the data: no UTC times invented.
    BOOST_TEST(f.opened_wall_ms == 0);
    BOOST_TEST(!r.wall_clock);
    BOOST_TEST(r.t_first == 0.0);
    BOOST_TEST(r.t_last == 20.0);
}

BOOST_AUTO_TEST_CASE(findings_carry_utc_times_when_the_data_has_a_wall_clock) {
    // Same data as above, sampled with wall_ms: t=0 is 2023-11-14T22:13:20Z.
    SeriesStore store;
    std::uint64_t v = 1000;
    for (int k = 0; k <= 20; ++k) {
        if (k >= 5 && k <= 10) v += 5;
        auto s = rh::test::counter("gpu01", "ack_timeouts", kPort, 300.0 + k, v);
        s.wall_ms = 1700000000000 + k * 1000;
        store.add(s);
    }
    const auto r = rh::run_rules(store, one_rule(timeouts_rule(5)));
    BOOST_TEST(r.wall_clock);
    const auto& f = only_finding(r);
    BOOST_TEST(f.opened_wall_ms == 1700000004000);
    BOOST_TEST(f.closed_wall_ms == 1700000010000);
}

BOOST_AUTO_TEST_CASE(finding_still_holding_at_the_end_is_not_closed) {
    SeriesStore store;
    add_counter(store, "gpu01", "ack_timeouts", kPort, 20, during(12, 20, 5));
    const auto& f = only_finding(rh::run_rules(store, one_rule(timeouts_rule(5))));
    BOOST_TEST(f.opened_t == 11.0);
    BOOST_TEST(f.closed_t == 0.0);
}

BOOST_AUTO_TEST_CASE(two_held_periods_are_two_episodes_of_one_finding) {
    SeriesStore store;
    add_counter(store, "gpu01", "ack_timeouts", kPort, 40,
                [](int k) { return (k >= 5 && k <= 11) || (k >= 25 && k <= 31) ? 5u : 0u; });
    const auto& f = only_finding(rh::run_rules(store, one_rule(timeouts_rule(5))));
    BOOST_TEST(f.episodes == 2u);
    BOOST_TEST(f.opened_t == 4.0);
    BOOST_TEST(f.closed_t == 31.0);
}

BOOST_AUTO_TEST_CASE(escalation_counts_only_inside_an_episode) {
    // Timeouts in (4,5] .. (7,8]: one episode [4, 8]. retry_exceeded +1 in one interval.
    const auto severity_with_retry_at = [](int k) {
        SeriesStore store;
        add_counter(store, "gpu01", "ack_timeouts", kPort, 20, during(5, 8, 5));
        add_counter(store, "gpu01", "retry_exceeded", kPort, 20, during(k, k, 1));
        return only_finding(rh::run_rules(store, one_rule(timeouts_rule(0, kRetriesExceeded))))
            .severity;
    };
    BOOST_TEST(severity_with_retry_at(7) == rh::Severity::error);     // inside
    BOOST_TEST(severity_with_retry_at(5) == rh::Severity::error);     // first interval of it
    BOOST_TEST(severity_with_retry_at(8) == rh::Severity::error);     // last interval of it
    BOOST_TEST(severity_with_retry_at(15) == rh::Severity::warning);  // after it
    BOOST_TEST(severity_with_retry_at(2) == rh::Severity::warning);   // before it
    // (3,4] ends at the pass the episode is opened from, but is not part of it.
    BOOST_TEST(severity_with_retry_at(4) == rh::Severity::warning);
}

BOOST_AUTO_TEST_CASE(escalation_inside_a_run_too_short_to_hold_does_not_count) {
    // Hold 5: a 2 s run with the retries (not a finding), then a 6 s run without.
    SeriesStore store;
    add_counter(store, "gpu01", "ack_timeouts", kPort, 30,
                [](int k) { return (k >= 5 && k <= 6) || (k >= 15 && k <= 20) ? 5u : 0u; });
    add_counter(store, "gpu01", "retry_exceeded", kPort, 30, during(6, 6, 1));
    const auto& f =
        only_finding(rh::run_rules(store, one_rule(timeouts_rule(5, kRetriesExceeded))));
    BOOST_TEST(f.severity == rh::Severity::warning);
    BOOST_TEST(f.opened_t == 14.0);
}

namespace {

// rnr-like: any of RNR NAKs >= 10 in 10 s or retries exceeded.
const char* kAnyRnr = R"({"when": {"any": [
    {"signal": "rnr_naks", "series": "rnr_nak_received", "measure": "increase", "op": ">=",
     "threshold": 10, "window_s": 10},
    {"signal": "rnr_retries_exceeded", "series": "rnr_retry_exceeded", "measure": "increase",
     "op": ">", "threshold": 0, "window_s": 10}]}})";

// Both RNR NAKs and retries exceeded.
const char* kAllRnr = R"({"when": {"all": [
    {"signal": "rnr_naks", "series": "rnr_nak_received", "measure": "increase", "op": ">=",
     "threshold": 10, "window_s": 10},
    {"signal": "rnr_retries_exceeded", "series": "rnr_retry_exceeded", "measure": "increase",
     "op": ">", "threshold": 0, "window_s": 10}]}})";

}  // namespace

BOOST_AUTO_TEST_CASE(any_skips_conditions_whose_series_the_host_lacks) {
    // The kernel has no rnr_retry_exceeded: a flat rnr_nak_received decides "healthy".
    SeriesStore flat;
    add_counter(flat, "gpu01", "rnr_nak_received", kPort, 30, during(0, 0, 0));
    check_healthy(rh::run_rules(flat, one_rule(kAnyRnr)));
    // ... and a growing one decides a finding.
    SeriesStore growing;
    add_counter(growing, "gpu01", "rnr_nak_received", kPort, 30, during(10, 30, 2));
    BOOST_TEST(rh::run_rules(growing, one_rule(kAnyRnr)).findings.size() == 1u);
}

BOOST_AUTO_TEST_CASE(all_with_a_missing_series_is_not_applicable) {
    // The kernel has no rnr_retry_exceeded, so "all" can never hold on this host. Whenever
    // that left it undecided (RNR NAKs present), the rule is reported as not applicable, also
    // when the NAKs were quiet at first (decided false then): not silently as healthy.
    for (const Growth& naks : {during(10, 30, 2), during(1, 30, 2)}) {
        SeriesStore store;
        add_counter(store, "gpu01", "rnr_nak_received", kPort, 30, naks);
        const auto n = only_not_applicable(rh::run_rules(store, one_rule(kAllRnr)));
        BOOST_TEST(n.text.find("test_rule") != std::string::npos);
        BOOST_TEST(n.text.find("rnr_retry_exceeded") != std::string::npos, n.text);
        BOOST_TEST(n.subject.find("gpu01") != std::string::npos);
    }
    // No NAK at all: "all" is false at every pass whatever the missing series would say.
    SeriesStore quiet;
    add_counter(quiet, "gpu01", "rnr_nak_received", kPort, 30, during(0, 0, 0));
    check_healthy(rh::run_rules(quiet, one_rule(kAllRnr)));
}

BOOST_AUTO_TEST_CASE(host_without_any_series_of_the_rule_is_not_applicable) {
    SeriesStore store;
    add_counter(store, "vm1", "ack_timeouts", kPort, 10, during(0, 0, 0));
    BOOST_TEST(only_not_applicable(rh::run_rules(store, one_rule(kAnyRnr))).subject == "vm1");
}

BOOST_AUTO_TEST_CASE(present_series_with_only_nulls_is_unevaluated) {
    // rnr_nak_received exists but every read failed: not healthy, not "no such counter".
    for (const char* rule : {kAnyRnr, kAllRnr}) {
        SeriesStore store;
        for (int k = 0; k <= 30; ++k) {
            store.add(rh::test::counter("gpu01", "rnr_nak_received", kPort, k, std::nullopt));
            store.add(rh::test::counter("gpu01", "rnr_retry_exceeded", kPort, k, std::nullopt));
        }
        const auto n = only_unevaluated(rh::run_rules(store, one_rule(rule)));
        BOOST_TEST(n.text.find("test_rule") != std::string::npos);
        BOOST_TEST(n.text.find("rnr_nak_received") != std::string::npos, n.text);
        BOOST_TEST(n.subject.find("gpu01") != std::string::npos);
    }
}

namespace {

/// gpu01: rnr_nak_received growing as `naks`; rnr_retry_exceeded exists but never reads.
SeriesStore naks_and_unreadable_retries(const Growth& naks) {
    SeriesStore store;
    add_counter(store, "gpu01", "rnr_nak_received", kPort, 30, naks);
    for (int k = 0; k <= 30; ++k)
        store.add(rh::test::counter("gpu01", "rnr_retry_exceeded", kPort, k, std::nullopt));
    return store;
}

}  // namespace

BOOST_AUTO_TEST_CASE(any_skips_a_series_that_never_had_a_value) {
    // rules/README.md: in "any", a series the host never could read counts as absent.
    check_healthy(rh::run_rules(naks_and_unreadable_retries(during(0, 0, 0)), one_rule(kAnyRnr)));
}

BOOST_AUTO_TEST_CASE(all_needing_a_series_that_never_had_a_value_is_unevaluated) {
    // The NAKs are quiet at first (rule decided false) then grow (undecided: retries unread).
    const auto n = only_unevaluated(
        rh::run_rules(naks_and_unreadable_retries(during(10, 30, 2)), one_rule(kAllRnr)));
    BOOST_TEST(n.text.find("rnr_retry_exceeded never had a usable value") != std::string::npos,
               n.text);
}

namespace {

// cnp_not_handled-like: this host sends CNPs, no other host handles any.
const char* kCnpRule = R"({"when": {"all": [
    {"signal": "cnps", "series": "cnp_sent", "measure": "increase", "op": ">", "threshold": 100,
     "window_s": 10},
    {"signal": "handled", "series": "cnp_handled", "measure": "increase", "op": "==",
     "threshold": 0, "window_s": 10, "host": "other"}]}})";

/// gpu01 (mlx5_0) sends 50 CNPs/s; its own and gpu02's (mlx5_1) cnp_handled grow as given.
SeriesStore cnp_store(std::uint64_t gpu01_handled, std::uint64_t gpu02_handled) {
    SeriesStore store;
    const Labels other_port{{"device", "mlx5_1"}, {"port", "1"}};
    add_counter(store, "gpu01", "cnp_sent", kPort, 30, during(1, 30, 50));
    add_counter(store, "gpu01", "cnp_handled", kPort, 30, during(1, 30, gpu01_handled));
    add_counter(store, "gpu02", "cnp_sent", other_port, 30, during(0, 0, 0));
    add_counter(store, "gpu02", "cnp_handled", other_port, 30, during(1, 30, gpu02_handled));
    return store;
}

}  // namespace

BOOST_AUTO_TEST_CASE(other_host_conditions_read_only_other_hosts) {
    // gpu01 handles CNPs itself (its own reaction point) but gpu02 handles none: finding.
    const auto r = rh::run_rules(cnp_store(50, 0), one_rule(kCnpRule));
    const auto& f = only_finding(r);
    BOOST_TEST(f.host == "gpu01");
    // gpu02 handles them and gpu01 does not: no finding (gpu01's own counter is not read).
    BOOST_TEST(rh::run_rules(cnp_store(0, 50), one_rule(kCnpRule)).findings.empty());
}

BOOST_AUTO_TEST_CASE(other_host_condition_without_other_hosts_is_not_applicable) {
    SeriesStore store;
    add_counter(store, "gpu01", "cnp_sent", kPort, 30, during(1, 30, 50));
    add_counter(store, "gpu01", "cnp_handled", kPort, 30, during(0, 0, 0));
    const auto n = only_not_applicable(rh::run_rules(store, one_rule(kCnpRule)));
    BOOST_TEST(n.text.find("cnp_handled on another host") != std::string::npos, n.text);
}

namespace {

// roce_outside_lossless-like, per priority: a priority without PFC carries > 10 MB/s while
// every PFC priority moves < 1 MB/s.
const char* kLossyRule = R"({"group_by": ["device", "port", "priority"], "when": {"all": [
    {"signal": "pfc_off", "series": "pfc_enabled", "measure": "value", "op": "==", "threshold": 0},
    {"signal": "bytes", "series": "priority_bytes", "match": {"direction": "rx"},
     "measure": "rate_per_s", "op": ">", "threshold": 10000000},
    {"signal": "lossless_bytes", "series": "priority_bytes", "match": {"direction": "rx"},
     "on_pfc_priorities": 1, "measure": "rate_per_s", "op": "<", "threshold": 1000000}]}})";

/// PFC on priority `pfc_prio` only; priority 0 receives 20 MB/s, priority 3 `prio3_rate` B/s.
SeriesStore lossy_store(int pfc_prio, std::uint64_t prio3_rate) {
    SeriesStore store;
    for (int p = 0; p < 8; ++p) {
        const Labels prio = with(kPort, {{"priority", std::to_string(p)}});
        add_gauge(store, "gpu01", "pfc_enabled", prio, 20, p == pfc_prio ? 1 : 0);
        const std::uint64_t rate = p == 0 ? 20000000 : p == 3 ? prio3_rate : 0;
        add_counter(store, "gpu01", "priority_bytes", with(prio, {{"direction", "rx"}}), 20,
                    during(1, 20, rate));
    }
    return store;
}

/// The priority labels of the findings.
std::set<std::string> flagged_priorities(const EngineResult& r) {
    std::set<std::string> out;
    for (const auto& f : r.findings) out.insert(f.labels.at("priority"));
    return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(on_pfc_priorities_follows_the_pfc_enabled_gauge) {
    const auto rules = one_rule(kLossyRule);
    // PFC on 3, priority 3 idle: RoCE went to lossy priority 0.
    BOOST_TEST((flagged_priorities(rh::run_rules(lossy_store(3, 100000), rules)) ==
                std::set<std::string>{"0"}));
    // PFC on 3 and priority 3 busy: RoCE is where it belongs; priority 0 is other traffic.
    BOOST_TEST(rh::run_rules(lossy_store(3, 50000000), rules).findings.empty());
    // Same traffic, but PFC is on priority 5 (idle): busy priority 3 is lossy too, and both
    // lossy busy priorities are flagged.
    BOOST_TEST((flagged_priorities(rh::run_rules(lossy_store(5, 50000000), rules)) ==
                std::set<std::string>{"0", "3"}));
}

BOOST_AUTO_TEST_CASE(increases_are_scaled_per_window_when_passes_are_further_apart) {
    // Bundle captures 60 s apart against ">= 10 in 10 s": +30 in 60 s is 5 per 10 s (no
    // finding, though 30 >= 10); +120 in 60 s is 20 per 10 s.
    const auto rules = one_rule(kAnyRnr);
    const auto captures = [](std::uint64_t grew) {
        SeriesStore store;
        store.add(rh::test::counter("gpu01", "rnr_nak_received", kPort, 0, 1000));
        store.add(rh::test::counter("gpu01", "rnr_nak_received", kPort, 60, 1000 + grew));
        return store;
    };
    const auto quiet = rh::run_rules(captures(30), rules);
    BOOST_TEST(quiet.findings.empty());
    BOOST_TEST(quiet.unevaluated.empty());
    const auto busy = rh::run_rules(captures(120), rules);
    const auto& f = only_finding(busy);
    BOOST_REQUIRE(!f.evidence.empty());
    BOOST_TEST(f.evidence[0].name == "rnr_nak_received");  // the series read, not the signal
    BOOST_TEST(f.evidence[0].value.find("20 packets in 10 s") == 0u, f.evidence[0].value);
    // Passes 1 s apart: the same +30, but within 10 s, is 30 per 10 s.
    SeriesStore live;
    add_counter(live, "gpu01", "rnr_nak_received", kPort, 60, during(21, 30, 3));
    const auto& g = only_finding(rh::run_rules(live, rules));
    BOOST_REQUIRE(!g.evidence.empty());
    BOOST_TEST(g.evidence[0].value.find("30 packets in 10 s") == 0u, g.evidence[0].value);
}

namespace {

// rnr with a supporting signal on the responder and one alternative (packet loss).
const char* kRnrWithAlternative = R"({"when":
    {"signal": "rnr_naks", "series": "rnr_nak_received", "measure": "increase", "op": ">=",
     "threshold": 10, "window_s": 10},
  "supports": [{"signal": "responder_naks", "series": "rnr_nak_sent", "measure": "increase",
                "op": ">", "threshold": 0, "window_s": 10, "host": "other"}],
  "alternatives": [{"name": "packet loss", "indicated_by":
    {"signal": "retransmissions", "series": "ack_timeouts", "measure": "increase", "op": ">=",
     "threshold": 10, "window_s": 10}}]})";

/// gpu01 gets 3 RNR NAKs/s in (20, 40]; gpu02 (when `responder`) sends them. ACK timeouts on
/// gpu01 grow by 3/s over `timeouts` (nullptr: the series does not exist).
EngineResult rnr_case(const Growth* timeouts, bool responder = true) {
    SeriesStore store;
    add_counter(store, "gpu01", "rnr_nak_received", kPort, 60, during(21, 40, 3));
    if (responder) add_counter(store, "gpu02", "rnr_nak_sent", kPort, 60, during(21, 40, 3));
    if (timeouts) add_counter(store, "gpu01", "ack_timeouts", kPort, 60, *timeouts);
    return rh::run_rules(store, one_rule(kRnrWithAlternative));
}

}  // namespace

BOOST_AUTO_TEST_CASE(alternative_quiet_during_the_finding_is_ruled_out) {
    const Growth flat = during(0, 0, 0);
    const auto r = rnr_case(&flat);
    const auto& f = only_finding(r);
    BOOST_TEST(only_alternative(f).alternative == "packet loss");
    BOOST_TEST(only_alternative(f).status == "ruled out");
    BOOST_TEST(f.confidence == "high");  // support seen, every alternative ruled out
    BOOST_TEST(!f.confidence_reason.empty());
    // Loss well before the finding (t 0..5) does not keep it open either.
    const Growth early = during(1, 5, 3);
    BOOST_TEST(only_alternative(only_finding(rnr_case(&early))).status == "ruled out");
}

BOOST_AUTO_TEST_CASE(alternative_present_during_the_finding_is_not_ruled_out) {
    const Growth loss = during(25, 35, 3);
    const auto r = rnr_case(&loss);
    const auto& f = only_finding(r);
    BOOST_TEST(only_alternative(f).status == "not ruled out");
    BOOST_TEST(f.confidence == "low");
}

BOOST_AUTO_TEST_CASE(alternative_without_data_is_not_checked) {
    const auto& f = only_finding(rnr_case(nullptr));
    BOOST_TEST(only_alternative(f).status == "not checked");
    BOOST_TEST(f.confidence == "medium");
}

BOOST_AUTO_TEST_CASE(missing_support_lowers_confidence_to_medium) {
    const Growth flat = during(0, 0, 0);
    const auto& f = only_finding(rnr_case(&flat, false));
    BOOST_TEST(only_alternative(f).status == "ruled out");
    BOOST_TEST(f.confidence == "medium");
}

namespace {

// pause_storm-like with its summary template.
const char* kStormRule = R"({"group_by": ["device", "port", "priority", "direction"],
  "hold_s": 5,
  "summary": "{host} {device} port {port}: priority {priority} paused {paused} ({direction} pause) for {held}: {direction_text}.",
  "label_text": {"direction": {"tx": "this host sent the pauses", "rx": "the peer paused this host"}},
  "when": {"signal": "paused", "series": ["pfc_pause_duration_us", "pfc_pause_frames"],
           "measure": "pause_fraction", "op": ">=", "threshold": 0.2}})";

}  // namespace

BOOST_AUTO_TEST_CASE(summary_placeholders_are_filled) {
    for (const char* d : {"tx", "rx"}) {
        const std::string dir = d;
        BOOST_TEST_CONTEXT("direction " << dir) {
            SeriesStore store;
            const Labels prio3 = with(kPort, {{"netdev", "eth2"}, {"priority", "3"}});
            const std::string quiet = dir == "tx" ? "rx" : "tx";
            // 400 ms paused per second (40%) over (10, 30]: held from t=10 to t=30.
            add_counter(store, "gpu01", "pfc_pause_duration_us", with(prio3, {{"direction", dir}}),
                        40, during(11, 30, 400000));
            add_counter(store, "gpu01", "pfc_pause_duration_us",
                        with(prio3, {{"direction", quiet}}), 40, during(0, 0, 0));
            const auto& f = only_finding(rh::run_rules(store, one_rule(kStormRule)));
            BOOST_TEST((f.labels == Labels{{"direction", dir}, {"priority", "3"}}));
            const std::string text =
                dir == "tx" ? "this host sent the pauses" : "the peer paused this host";
            BOOST_TEST(f.summary == "gpu01 mlx5_0 port 1: priority 3 paused 40% of the time (" +
                                        dir + " pause) for 20 s: " + text + ".");
        }
    }
}

BOOST_AUTO_TEST_CASE(unknown_placeholder_reads_as_question_mark) {
    SeriesStore store;
    add_counter(store, "gpu01", "ack_timeouts", kPort, 20, during(5, 10, 5));
    auto rules = one_rule(timeouts_rule(0));
    rules.rules[0].summary = "{host} {netdev}: {timeouts} for {held}";
    const auto& f = only_finding(rh::run_rules(store, rules));
    BOOST_TEST(f.summary.find('{') == std::string::npos, f.summary);
    BOOST_TEST(f.summary.find("gpu01 ?: 5 packets/s for 6 s") == 0u, f.summary);
}

BOOST_AUTO_TEST_CASE(non_numeric_port_label_does_not_throw) {
    // Data content (a recording's labels) must never make the engine throw.
    SeriesStore store;
    add_counter(store, "gpu01", "ack_timeouts", {{"device", "mlx5_0"}, {"port", "p1"}}, 20,
                during(5, 10, 5));
    EngineResult r;
    BOOST_REQUIRE_NO_THROW(r = rh::run_rules(store, one_rule(timeouts_rule(0))));
    const auto& f = only_finding(r);
    BOOST_TEST(f.device == "mlx5_0");
    BOOST_TEST(f.port == 0u);  // unknown, not a guess
}

namespace {

/// Events of f's timeline on `series` (first rises).
std::size_t rises_of(const rh::Finding& f, const std::string& series) {
    return static_cast<std::size_t>(
        std::count_if(f.timeline.begin(), f.timeline.end(),
                      [&](const rh::TimelineEvent& e) { return e.series == series; }));
}

}  // namespace

// As in the lab's RNR recordings: each host samples on its own clock (every 0.5 s, but a loaded
// guest drifts to 0.53 s), and the requester's probe results add passes between its counter
// samples. The first rise of the responder's RNR NAKs is found on its own sample intervals, not
// on the requester's, whatever the phase between the two hosts.
BOOST_AUTO_TEST_CASE(first_rise_of_another_host_is_found_on_its_own_samples) {
    for (const double phase : {0.0, 0.1, 0.2, 0.27, 0.4, 0.49}) {
        for (const double period : {0.5, 0.53, 0.6}) {
            BOOST_TEST_CONTEXT("gpu02 phase " << phase << " s, period " << period << " s") {
                SeriesStore store;
                std::uint64_t naks = 1000;
                for (int k = 0; k <= 60; ++k) {
                    const double t = 0.5 * k;
                    if (t > 15 && t <= 17) naks += 6;
                    store.add(rh::test::counter("gpu01", "rnr_nak_received", kPort, t, naks));
                }
                for (const double t : {14.9, 15.3, 16.2, 16.7})  // probe results
                    store.add(rh::test::gauge("gpu01", "probe_errors", {}, t, 1));
                for (int k = 0; phase + period * k <= 30; ++k) {  // 12 NAKs sent at 14.8 s
                    const double t = phase + period * k;
                    const std::uint64_t sent = t > 14.8 ? 512 : 500;
                    store.add(rh::test::counter("gpu02", "rnr_nak_sent", kPort, t, sent));
                }
                const Growth flat = during(0, 0, 0);
                add_counter(store, "gpu01", "ack_timeouts", kPort, 30, flat);
                const auto& f = only_finding(rh::run_rules(store, one_rule(kRnrWithAlternative)));
                BOOST_TEST(f.confidence == "high");
                BOOST_TEST(rises_of(f, "rnr_nak_received") == 1u);
                BOOST_TEST(rises_of(f, "rnr_nak_sent") == 1u);
            }
        }
    }
}

// The new user's report: a rise first seen between capture 1 and capture 2 was dated
// "already present when the data begins". It began in that interval: "started", at the
// second sample. Only a state (a gauge) met at the first sample was there before the data.
BOOST_AUTO_TEST_CASE(a_rise_between_the_first_two_samples_started_in_that_interval) {
    SeriesStore store;
    add_counter(store, "gpu01", "rnr_nak_received", kPort, 3, during(1, 3, 50));
    add_gauge(store, "gpu01", "port_width_lanes", kPort, 3, 4);
    const auto& f = only_finding(rh::run_rules(store, one_rule(R"({"when": {"all": [
            {"signal": "naks", "series": "rnr_nak_received", "measure": "increase", "op": ">", "threshold": 0},
            {"signal": "lanes", "series": "port_width_lanes", "measure": "value", "op": ">=", "threshold": 2}]}})")));
    std::map<std::string, const rh::TimelineEvent*> by_series;
    for (const rh::TimelineEvent& e : f.timeline)
        if (!e.series.empty()) by_series[e.series] = &e;
    BOOST_TEST_REQUIRE(by_series.count("rnr_nak_received") == 1u);
    BOOST_TEST_REQUIRE(by_series.count("port_width_lanes") == 1u);
    const rh::TimelineEvent& naks = *by_series["rnr_nak_received"];
    BOOST_TEST(naks.t == 1.0);
    BOOST_TEST(naks.what.find("naks started:") == 0u, naks.what);
    BOOST_TEST(naks.what.find("already present") == std::string::npos, naks.what);
    const rh::TimelineEvent& lanes = *by_series["port_width_lanes"];
    BOOST_TEST(lanes.t == 0.0);
    BOOST_TEST(lanes.what.find("lanes already present when the data begins") == 0u, lanes.what);
}

BOOST_AUTO_TEST_SUITE_END()  // test_rules_engine

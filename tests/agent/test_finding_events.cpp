// agent/daemon/finding_events: successive rule runs -> one log event per finding change.
#include <boost/test/unit_test.hpp>

#include "agent/daemon/finding_events.h"

BOOST_AUTO_TEST_SUITE(test_agent_finding_events)

using namespace rh;
using rh::agent::FindingEvent;
using rh::agent::FindingTracker;

namespace {

Finding storm(Severity sev, double opened, double closed = 0) {
    Finding f = make_finding("pause_storm", sev, "h1", "mlx5_0", 1);
    f.labels = {{"priority", "3"}, {"direction", "rx"}};
    f.opened_t = opened;
    f.closed_t = closed;
    f.summary = "paused";
    return f;
}

std::vector<std::string> names(const std::vector<FindingEvent>& ev) {
    std::vector<std::string> out;
    for (const auto& e : ev) out.push_back(e.event);
    return out;
}

using V = std::vector<std::string>;

}  // namespace

BOOST_AUTO_TEST_CASE(open_escalate_close_each_logged_once) {
    FindingTracker t;
    BOOST_TEST(t.update({}).empty());
    auto e = t.update({storm(Severity::warning, 100)});
    BOOST_TEST(names(e) == V{"finding_opened"});
    BOOST_TEST(e[0].level == "warning");
    BOOST_TEST(e[0].fields["rule"] == "pause_storm");
    BOOST_TEST(e[0].fields["labels"]["priority"] == "3");
    BOOST_TEST(e[0].fields["opened_t"] == 100.0);
    BOOST_TEST(t.update({storm(Severity::warning, 100)}).empty());  // still holding: quiet
    e = t.update({storm(Severity::error, 100)});
    BOOST_TEST(names(e) == V{"finding_severity_changed"});
    BOOST_TEST(e[0].fields["previous_severity"] == "warning");
    e = t.update({storm(Severity::error, 100, 130)});
    BOOST_TEST(names(e) == V{"finding_closed"});
    BOOST_TEST(e[0].fields["closed_t"] == 130.0);
    BOOST_TEST(t.open_count() == 0u);
    // The engine keeps reporting the closed finding while its data is in the store: no repeat.
    BOOST_TEST(t.update({storm(Severity::error, 100, 130)}).empty());
}

BOOST_AUTO_TEST_CASE(short_episode_between_runs_gives_opened_and_closed_once) {
    FindingTracker t;
    auto e = t.update({storm(Severity::warning, 100, 101)});
    BOOST_TEST(names(e) == (V{"finding_opened", "finding_closed"}));
    BOOST_TEST(t.update({storm(Severity::warning, 100, 101)}).empty());
    // A later episode of the same finding closes at a later time: reported again.
    e = t.update({storm(Severity::warning, 100, 160)});
    BOOST_TEST(names(e) == (V{"finding_opened", "finding_closed"}));
}

BOOST_AUTO_TEST_CASE(finding_no_longer_reported_is_closed) {
    FindingTracker t;
    (void)t.update({storm(Severity::warning, 100)});
    auto e = t.update({});
    BOOST_TEST(names(e) == V{"finding_closed"});
    BOOST_TEST(e[0].fields["reason"].get<std::string>().find("no longer shows it") !=
               std::string::npos);
    // The close names the finding as its open did (an operator greps for the rule).
    BOOST_TEST(e[0].fields["rule"] == "pause_storm");
}

BOOST_AUTO_TEST_CASE(findings_differing_in_labels_are_separate) {
    FindingTracker t;
    Finding tx = storm(Severity::warning, 100);
    tx.labels["direction"] = "tx";
    auto e = t.update({storm(Severity::warning, 100), tx});
    BOOST_TEST(names(e) == (V{"finding_opened", "finding_opened"}));
    BOOST_TEST(t.open_count() == 2u);
    BOOST_TEST(agent::finding_key(tx) == "pause_storm|h1|mlx5_0|1|direction=tx|priority=3");
}

BOOST_AUTO_TEST_SUITE_END()  // test_agent_finding_events

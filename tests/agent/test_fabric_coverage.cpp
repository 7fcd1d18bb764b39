// agent/fabric/fabric_coverage: data that stops before the range's end, and hosts that stopped
// reporting, are "not judged since", never healthy (a host gone silent 30 min before --to once
// passed as healthy, exit 0).
#include <boost/test/unit_test.hpp>
#include <cmath>

#include "agent/fabric/fabric_analysis.h"
#include "agent/fabric/fabric_coverage.h"
#include "fabric_test_series.h"

BOOST_AUTO_TEST_SUITE(test_fabric_coverage)

using namespace rh::fabric;
using namespace rh::fabric::test;

namespace {

constexpr double kSpan = 3600, kGap = 300;

std::string inst(int i) {
    return "h" + std::to_string(i) + ":9900";
}

/// Four hosts with host_info; host i's MTU series (raw, every step) ends at `end_s[i-1]` after kT0.
FabricSeries fleet(const std::vector<double>& end_s) {
    FabricSeries in;
    for (int i = 1; i <= static_cast<int>(end_s.size()); ++i) {
        const double end = kT0 + end_s[i - 1];
        in.host_info.push_back(series(
            {{"instance", inst(i)}, {"host", "h" + std::to_string(i)}}, [](double) { return 1.0; },
            kSpan));
        in.port_config.push_back(series(
            {{"__name__", "rocehealth_netdev_mtu_bytes"},
             {"instance", inst(i)},
             {"device", "eth0"}},
            [=](double t) { return t <= end ? 9000.0 : std::nan(""); }, kSpan));
    }
    return in;
}

const rh::Note* subject(const std::vector<rh::Note>& v, const std::string& s) {
    for (const auto& n : v)
        if (n.subject == s) return &n;
    return nullptr;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_host_to_the_end_is_covered) {
    const FabricSeries in = fleet({kSpan, kSpan, kSpan, kSpan - 120});  // a missed scrape or two
    const FabricResult r = analyse_fabric(in);
    BOOST_TEST(coverage_gaps(in, r, kT0 + kSpan, kGap, true).empty());
}

BOOST_AUTO_TEST_CASE(a_host_silent_for_30_min_is_named_with_its_last_point) {
    const FabricSeries in = fleet({kSpan, kSpan, kSpan, kSpan - 1800});
    const FabricResult r = analyse_fabric(in);
    const auto gaps = coverage_gaps(in, r, kT0 + kSpan, kGap, true);
    BOOST_REQUIRE_EQUAL(gaps.size(), 1u);
    BOOST_TEST(gaps[0].subject == "hosts");
    BOOST_TEST(gaps[0].text.find("h4 (last 2025-12-03T12:30:00Z)") == 0, gaps[0].text);
    BOOST_TEST(gaps[0].text.find("h1") == std::string::npos);
    // Through add_not_judged: no finding, so the run is not healthy (exit 2), and says why.
    FabricResult with = r;
    add_not_judged(with, gaps);
    BOOST_TEST(!with.not_judged.empty());
}

BOOST_AUTO_TEST_CASE(data_that_ends_45_min_early_leaves_every_rule_not_judged) {
    const FabricSeries in = fleet({kSpan - 2700, kSpan - 2700, kSpan - 2700, kSpan - 2700});
    const FabricResult r = analyse_fabric(in);
    const auto gaps = coverage_gaps(in, r, kT0 + kSpan, kGap, true);
    for (const char* rule :
         {"fabric_pause_storm_origin", "fabric_tor_probes_failing", "fabric_config_drift"}) {
        const bool already = subject(r.not_judged, rule) != nullptr;
        const rh::Note* n = subject(gaps, rule);
        BOOST_TEST((n != nullptr) == !already, rule);  // one state per rule
        if (n)
            BOOST_TEST(n->text.find("no series after 2025-12-03T12:15:00Z (2700 s") == 0, n->text);
    }
    BOOST_TEST(!subject(gaps, "hosts"));  // all stopped together: the data's end, not a host
}

BOOST_AUTO_TEST_CASE(recorded_pause_shares_are_no_heartbeat) {
    // The recorded pause source keeps only nonzero shares: a host whose storm ended is no
    // silent host. Raw, the same series would make it one.
    FabricSeries in = fleet({kSpan, kSpan});
    in.pause_fraction.push_back(series(
        {{"instance", inst(3)}, {"priority", "3"}, {"direction", "tx"}},
        [](double t) { return t < kT0 + 600 ? 0.3 : std::nan(""); }, kSpan));
    const FabricResult r = analyse_fabric(in);
    BOOST_TEST(coverage_gaps(in, r, kT0 + kSpan, kGap, false).empty());
    const auto raw = coverage_gaps(in, r, kT0 + kSpan, kGap, true);
    BOOST_REQUIRE_EQUAL(raw.size(), 1u);
    BOOST_TEST(raw[0].text.find(inst(3)) == 0, raw[0].text);  // no host_info: its instance
}

BOOST_AUTO_TEST_CASE(many_silent_hosts_are_counted_past_ten) {
    std::vector<double> ends(14, kSpan - 1200);
    ends[0] = kSpan;
    const FabricSeries in = fleet(ends);
    const FabricResult r = analyse_fabric(in);
    const auto gaps = coverage_gaps(in, r, kT0 + kSpan, kGap, true);
    BOOST_REQUIRE_EQUAL(gaps.size(), 1u);
    BOOST_TEST(gaps[0].text.find(" and 3 more: ") != std::string::npos, gaps[0].text);
}

BOOST_AUTO_TEST_SUITE_END()

// agent/daemon/mesh_budget: the topology-aware mesh's series budget (issue 29). A host of a
// planned fleet of 1k, 10k and 50k hosts (48 per ToR, K = 4) runs a minute of rounds as the
// planner gives them, its results fed to the agent's summaries as the mesh thread does, one
// ToR failing and one own-ToR peer slow; the /metrics page the agent renders must hold at most
// kMeshSeriesBudget mesh series (the per-row form it replaces holds more from 1k hosts on), and
// the failing ToR and the slow peer must be among the rows shown.
#include <boost/test/unit_test.hpp>

#include "agent/daemon/mesh_budget.h"
#include "agent/daemon/metrics.h"
#include "store/series_store.h"

BOOST_AUTO_TEST_SUITE(test_agent_mesh_budget)

using namespace rh;
using namespace rh::agent;

namespace {

constexpr unsigned kPerTor = 48;

std::vector<FleetHost> make_fleet(unsigned hosts) {
    std::vector<FleetHost> f;
    for (unsigned i = 0; i < hosts; ++i) {
        char tor[16];
        std::snprintf(tor, sizeof tor, "r%04u", i / kPerTor);
        f.push_back(
            {"gpu" + std::to_string(100000 + i), "10.0." + std::to_string(i) + ":18520", tor});
    }
    return f;
}

struct Planned {
    ProbeMetrics own, tors;   ///< the views as /metrics gets them before the budget
    std::string failing_tor;  ///< every probe into it fails
    std::string slow_peer;    ///< own-ToR peer 10x slower
};

/// One minute (60 rounds of 1 s, the summary window) of host gpu100000's plan in a fleet of
/// `hosts`, with 1000 samples a phase (so p99.9 exists: the most series a row can have).
Planned run_minute(unsigned hosts) {
    const auto plan = MeshPlan::make(make_fleet(hosts), "gpu100000", {4, 64});
    BOOST_REQUIRE(plan);
    const MeshRows rows = mesh_rows(*plan);
    ProbeSummaries own, tors;
    own.configure(rows.own_peers, {"write"}, {64}, 60);
    tors.configure(rows.other_tors, {"write"}, {64}, 60);
    Planned out;
    out.slow_peer = rows.own_peers.at(5);
    for (std::uint64_t r = 0; r < 60; ++r) {
        for (std::size_t i : plan->peers(r)) {
            const FleetHost& h = plan->fleet()[i];
            const auto t = rows.tor_of.find(h.address);
            ProbeSummaries& to = t == rows.tor_of.end() ? own : tors;
            const std::string key = t == rows.tor_of.end() ? h.address : t->second;
            if (out.failing_tor.empty() && t != rows.tor_of.end()) out.failing_tor = t->second;
            if (key == out.failing_tor) {
                to.add_error(key, "connect", static_cast<double>(r));
                continue;
            }
            const double base = h.address == out.slow_peer ? 50 : 2 + static_cast<double>(i % 7);
            to.add_phase(key, "write", 64, std::vector<double>(1000, base), static_cast<double>(r));
        }
    }
    out.own = own.view(59);
    out.tors = tors.view(59);
    return out;
}

std::size_t mesh_series(const std::optional<ProbeMetrics>& own,
                        const std::optional<ProbeMetrics>& tors, std::string* page = nullptr) {
    SeriesStore store(StoreLimits{300, 316});
    AgentStats st;
    st.probes = own;
    st.tor_probes = tors;
    const std::string m = render_metrics(store, {}, st);
    if (page) *page = m;
    return mesh_series_in(m);
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_planned_host_stays_within_the_budget_at_1k_10k_and_50k_hosts) {
    for (unsigned hosts : {1000u, 10000u, 50000u}) {
        BOOST_TEST_CONTEXT(hosts << " hosts") {
            const Planned p = run_minute(hosts);
            // The per-row form (every own-ToR peer and every other ToR) is over the budget.
            BOOST_TEST(mesh_series(p.own, p.tors) > kMeshSeriesBudget);
            std::string page;
            const std::size_t n =
                mesh_series(keep_worst(p.own, kWorstPeers), keep_worst(p.tors, kWorstTors), &page);
            BOOST_TEST(n <= kMeshSeriesBudget);
            BOOST_TEST(n >= 100u);  // not empty: the worst rows and the group totals
            BOOST_TEST(page.find("rocehealth_probe_tor_window_errors{dst_tor=\"" + p.failing_tor +
                                 "\"} ") != std::string::npos);
            BOOST_TEST(page.find("rocehealth_probe_latency_seconds{peer=\"" + p.slow_peer +
                                 "\",op=\"write\",size_bytes=\"64\",quantile=\"0.5\"} 5e-05") !=
                       std::string::npos);
            BOOST_TEST(page.find("rocehealth_probe_group_errors_total{dst_group=\"other_tors\","
                                 "op=\"connect\"} ") != std::string::npos);
            BOOST_TEST(page.find("rocehealth_probe_errors_total") == std::string::npos);
            BOOST_TEST(page.find("rocehealth_probe_tor_latency_seconds_count") ==
                       std::string::npos);
        }
    }
}

BOOST_AUTO_TEST_CASE(worst_destinations_failures_first_then_slowest_unprobed_left_out) {
    ProbeSummaries s;
    s.configure({"a", "b", "c", "d", "e"}, {"write"}, {64}, 60);
    s.add_phase("a", "write", 64, {5}, 100);
    s.add_phase("b", "write", 64, {9}, 100);
    s.add_phase("c", "write", 64, {7}, 100);
    s.add_error("d", "write", 100);
    s.add_error("e", "connect", 10);  // out of the window at 100: e has nothing to say
    const ProbeMetrics m = s.view(100);
    BOOST_TEST(worst_destinations(m, 10) == (std::vector<std::string>{"d", "b", "c", "a"}),
               boost::test_tools::per_element());
    BOOST_TEST(worst_destinations(m, 2) == (std::vector<std::string>{"d", "b"}),
               boost::test_tools::per_element());
    const ProbeMetrics w = keep_worst(m, 2);
    BOOST_TEST(w.summarised);
    BOOST_TEST(w.latency.size() == 2u);
    BOOST_TEST(w.window_errors.at({"d", "write"}) == 1u);
    BOOST_TEST(w.window_errors.count({"a", "write"}) == 0u);
    // Totals keep every row: 3 samples, 2 failures (e's too).
    BOOST_TEST(w.total_latency.at({"write", 64}).second == 3u);
    BOOST_TEST(w.total_errors.at("write") == 1u);
    BOOST_TEST(w.total_errors.at("connect") == 1u);
}

// The window failures are one gauge per destination, whatever failed (connect or a phase): the
// fabric rules read every row's gauge each cycle, and one per op doubled them.
BOOST_AUTO_TEST_CASE(a_destinations_window_failures_are_one_gauge_over_its_ops) {
    ProbeSummaries s;
    s.configure({"a", "d"}, {"write", "read"}, {64}, 60);
    s.add_phase("a", "write", 64, {5}, 100);
    s.add_error("d", "connect", 90);
    s.add_error("d", "write", 95);
    s.add_error("d", "read", 99);
    std::string page;
    mesh_series(keep_worst(s.view(100), kWorstPeers), std::nullopt, &page);
    BOOST_TEST(page.find("\nrocehealth_probe_window_errors{peer=\"d\"} 3\n") != std::string::npos);
    BOOST_TEST(page.find("\nrocehealth_probe_window_errors{peer=\"a\"} 0\n") != std::string::npos);
    BOOST_TEST(page.find("rocehealth_probe_window_errors{peer=\"d\",op=") == std::string::npos);
    // Which op failed stays in the group's counters.
    BOOST_TEST(
        page.find("rocehealth_probe_group_errors_total{dst_group=\"own_tor\",op=\"read\"} 1") !=
        std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()  // test_agent_mesh_budget

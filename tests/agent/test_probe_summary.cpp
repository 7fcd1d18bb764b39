// agent/daemon/probe_summary: the mesh's latency as summaries — quantiles over the window only,
// sum and count since the start, p99.9 only with 1000 samples, failures per (peer, op) from 0,
// and what survives a reconfiguration.
#include <boost/test/unit_test.hpp>

#include "agent/daemon/probe_summary.h"

BOOST_AUTO_TEST_SUITE(test_agent_probe_summary)

using rh::agent::ProbeMetrics;
using rh::agent::ProbeSummaries;

namespace {

const rh::agent::ProbeLatencyRow* row(const ProbeMetrics& m, const std::string& peer,
                                      const std::string& op, std::uint64_t size) {
    for (const auto& r : m.latency)
        if (r.peer == peer && r.op == op && r.size_bytes == size) return &r;
    return nullptr;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_configured_row_exists_from_zero) {
    ProbeSummaries s;
    s.configure({"a", "b:18521"}, {"write", "read"}, {64, 4096}, 60);
    const ProbeMetrics m = s.view(0);
    BOOST_TEST(m.latency.size() == 8u);
    const auto* r = row(m, "b:18521", "read", 4096);
    BOOST_REQUIRE(r);
    BOOST_TEST(r->count == 0u);
    BOOST_TEST(!r->p50_s.has_value());  // empty window: exported as NaN
    BOOST_TEST(m.errors.size() == 6u);  // (write, read, connect) x 2 peers
    BOOST_TEST(m.errors.at({"a", "connect"}) == 0u);
    BOOST_TEST(m.window_s == 60.0);
}

BOOST_AUTO_TEST_CASE(quantiles_over_the_window_sum_and_count_since_start) {
    ProbeSummaries s;
    s.configure({"a"}, {"write"}, {64}, 10);
    std::vector<double> old(100, 1000.0);  // 1 ms, at t = 0: leaves the window at t > 10
    s.add_phase("a", "write", 64, old, 0);
    std::vector<double> fresh;
    for (int i = 1; i <= 100; ++i) fresh.push_back(i);  // 1..100 us at t = 5
    s.add_phase("a", "write", 64, fresh, 5);
    s.add_phase("zz", "write", 64, fresh, 5);  // not configured: ignored
    const ProbeMetrics at5 = s.view(5);
    BOOST_TEST(row(at5, "a", "write", 64)->window_samples == 200u);
    const ProbeMetrics at12 = s.view(12);
    const auto* r = row(at12, "a", "write", 64);
    BOOST_TEST(r->window_samples == 100u);
    BOOST_TEST(*r->p50_s == 50e-6);  // nearest rank of 1..100 us
    BOOST_TEST(*r->p99_s == 99e-6);
    BOOST_TEST(!r->p999_s.has_value());  // fewer than 1000 samples
    BOOST_TEST(r->count == 200u);        // cumulative: both phases
    BOOST_TEST(r->sum_s == (100 * 1000.0 + 5050.0) / 1e6, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(at12.latency.size() == 1u);
}

BOOST_AUTO_TEST_CASE(p999_with_a_thousand_samples) {
    ProbeSummaries s;
    s.configure({"a"}, {"write"}, {64}, 60);
    std::vector<double> v;
    for (int i = 1; i <= 1000; ++i) v.push_back(i);
    s.add_phase("a", "write", 64, v, 1);
    const ProbeMetrics m = s.view(1);
    const auto* r = row(m, "a", "write", 64);
    BOOST_REQUIRE(r->p999_s.has_value());
    BOOST_TEST(*r->p999_s == 999e-6);
}

BOOST_AUTO_TEST_CASE(errors_count_and_survive_reconfiguration_of_kept_peers) {
    ProbeSummaries s;
    s.configure({"a", "b"}, {"write"}, {64}, 60);
    s.add_error("a", "connect", 1);
    s.add_error("a", "write", 1);
    s.add_error("a", "write", 1);
    s.add_error("c", "write", 1);  // not configured: ignored
    s.add_phase("a", "write", 64, {10, 20}, 1);
    s.configure({"a"}, {"write"}, {64, 4096}, 60);  // b dropped, a size added
    const ProbeMetrics m = s.view(1);
    BOOST_TEST(m.errors.at({"a", "write"}) == 2u);
    BOOST_TEST(m.errors.at({"a", "connect"}) == 1u);
    BOOST_TEST(m.errors.count({"b", "write"}) == 0u);
    BOOST_TEST(row(m, "a", "write", 64)->count == 2u);
    BOOST_TEST(row(m, "a", "write", 4096)->count == 0u);
    BOOST_TEST(!row(m, "b", "write", 64));
}

BOOST_AUTO_TEST_SUITE_END()  // test_agent_probe_summary

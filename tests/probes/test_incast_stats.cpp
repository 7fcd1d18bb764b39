// The incast figures (probes/incast/incast_stats.h): goodput units, Jain's fairness index,
// aggregate against the link, completion spread, per-second aggregate.
#include <boost/test/unit_test.hpp>

#include "probes/incast/incast_stats.h"

BOOST_AUTO_TEST_SUITE(test_incast_stats)

using namespace rh::incast;
namespace tt = boost::test_tools;

BOOST_AUTO_TEST_CASE(goodput_units) {
    // 1.25e9 bytes in 1 s = 10 Gb/s (10^9 bit/s), and 1192.09 MiB/s (2^20 byte/s).
    BOOST_TEST(gbps(1'250'000'000, 1.0) == 10.0, tt::tolerance(1e-12));
    BOOST_TEST(mib_per_s(1'250'000'000, 1.0) == 1192.0928955078125, tt::tolerance(1e-12));
    BOOST_TEST(gbps(1 << 20, 2.0) == 0.004194304, tt::tolerance(1e-12));
    BOOST_TEST(gbps(100, 0) == 0.0);
    BOOST_TEST(mib_per_s(100, -1) == 0.0);
}

BOOST_AUTO_TEST_CASE(jain_index_bounds) {
    BOOST_TEST(*jain_index({5, 5, 5}) == 1.0, tt::tolerance(1e-12));
    BOOST_TEST(*jain_index({9, 0, 0}) == 1.0 / 3, tt::tolerance(1e-12));
    // (1+2+3)^2 / (3 * (1+4+9)) = 36/42
    BOOST_TEST(*jain_index({1, 2, 3}) == 36.0 / 42, tt::tolerance(1e-12));
    BOOST_TEST(*jain_index({7}) == 1.0, tt::tolerance(1e-12));
    BOOST_TEST(!jain_index({}).has_value());
    BOOST_TEST(!jain_index({0, 0}).has_value());
    // Scale-free: the same shares in other units give the same index.
    BOOST_TEST(*jain_index({1, 2, 3}) == *jain_index({1000, 2000, 3000}), tt::tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(figures_leave_out_senders_that_did_not_run) {
    // Two senders ran 8 s and 10 s; one never started.
    const std::vector<SenderShare> shares{
        {"a", 1'000'000'000, 8.0}, {"b", 1'000'000'000, 10.0}, {"c", 0, 0}};
    const auto f = compute_figures(shares, 25.0);
    BOOST_TEST(f.gbps[0] == 1.0, tt::tolerance(1e-12));
    BOOST_TEST(f.gbps[1] == 0.8, tt::tolerance(1e-12));
    BOOST_TEST(f.gbps[2] == 0.0);
    // Aggregate: 2e9 bytes over the longest active time, 10 s = 1.6 Gb/s = 6.4% of 25 Gb/s.
    BOOST_TEST(f.aggregate_gbps == 1.6, tt::tolerance(1e-12));
    BOOST_TEST(*f.share_of_link == 0.064, tt::tolerance(1e-12));
    BOOST_TEST(f.aggregate_mib_per_s == 2e9 / 1048576 / 10, tt::tolerance(1e-12));
    // Jain over a and b only: (1.8)^2 / (2 * (1 + 0.64)).
    BOOST_TEST(*f.jain == 3.24 / 3.28, tt::tolerance(1e-12));
    BOOST_TEST(*f.spread_ms == 2000.0, tt::tolerance(1e-9));
    BOOST_TEST(*f.first_finish_s == 8.0);
    BOOST_TEST(*f.last_finish_s == 10.0);
    // Link rate unknown: no share, the rest stands.
    BOOST_TEST(!compute_figures(shares, std::nullopt).share_of_link.has_value());
    // Nobody ran: nothing but zeros.
    const auto none = compute_figures({{"x", 0, 0}}, 25.0);
    BOOST_TEST(!none.jain.has_value());
    BOOST_TEST(!none.spread_ms.has_value());
    BOOST_TEST(none.aggregate_gbps == 0.0);
}

BOOST_AUTO_TEST_CASE(per_second_aggregate) {
    // Sender a: 125 MB per second steadily (1 Gb/s); b: starts at 1 s, 250 MB/s (2 Gb/s), last
    // report at 2 s (flat after).
    const ProgressSeries a{{1.0, 125'000'000}, {2.0, 250'000'000}, {3.0, 375'000'000}};
    const ProgressSeries b{{1.0, 0}, {2.0, 250'000'000}};
    const auto s = per_second_gbps({a, b}, 3);
    BOOST_REQUIRE(s.size() == 3u);
    BOOST_TEST(s[0] == 1.0, tt::tolerance(1e-9));
    BOOST_TEST(s[1] == 3.0, tt::tolerance(1e-9));
    BOOST_TEST(s[2] == 1.0, tt::tolerance(1e-9));
    BOOST_TEST(per_second_gbps({}, 2)[1] == 0.0);
}

BOOST_AUTO_TEST_SUITE_END()  // test_incast_stats

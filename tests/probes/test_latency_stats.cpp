#define BOOST_TEST_MODULE latency_stats
#include <boost/test/unit_test.hpp>

#include <vector>

#include "probes/latency_stats.h"

using namespace rh;

BOOST_AUTO_TEST_CASE(nearest_rank_definition) {
    const std::vector<double> four{1, 2, 3, 4};
    BOOST_TEST(nearest_rank(four, 50) == 2);   // ceil(0.5 * 4) = 2
    BOOST_TEST(nearest_rank(four, 99) == 4);
    BOOST_TEST(nearest_rank(four, 0) == 1);
    std::vector<double> thousand;
    for (int i = 1; i <= 1000; ++i) thousand.push_back(i);
    BOOST_TEST(nearest_rank(thousand, 50) == 500);
    BOOST_TEST(nearest_rank(thousand, 99) == 990);
    BOOST_TEST(nearest_rank(thousand, 99.9) == 999);
    BOOST_TEST(nearest_rank(thousand, 100) == 1000);
}

BOOST_AUTO_TEST_CASE(summarize_unsorted_samples) {
    std::vector<double> s;
    for (int i = 100; i >= 1; --i) s.push_back(i);  // 100..1
    LatencyStats st;
    summarize(s, 0.5, st);
    BOOST_TEST(st.iterations == 100u);
    BOOST_TEST(st.min_us == 1);
    BOOST_TEST(st.max_us == 100);
    BOOST_TEST(st.p50_us == 50);
    BOOST_TEST(st.p99_us == 99);
    BOOST_TEST(st.p999_us == 100);  // fewer than 1000 samples: p99.9 is the maximum
    BOOST_TEST(st.mean_us == 50.5);
    BOOST_TEST(st.msg_rate_per_s == 200);
}

BOOST_AUTO_TEST_CASE(empty_samples_leave_zeros) {
    std::vector<double> s;
    LatencyStats st;
    summarize(s, 1, st);
    BOOST_TEST(st.iterations == 0u);
    BOOST_TEST(st.p50_us == 0);
}

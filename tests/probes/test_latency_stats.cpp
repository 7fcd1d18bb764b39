#include <boost/test/unit_test.hpp>

#include <vector>

#include "probes/latency/latency_stats.h"
#include "probes/latency/probe.h"

BOOST_AUTO_TEST_SUITE(test_latency_stats)

using namespace rh;

BOOST_AUTO_TEST_CASE(nearest_rank_definition) {
    const std::vector<double> four{1, 2, 3, 4};
    BOOST_TEST(nearest_rank(four, 50) == 2);  // ceil(0.5 * 4) = 2
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

BOOST_AUTO_TEST_CASE(p999_needs_a_thousand_samples) {
    std::vector<double> s(999, 1.0);
    LatencyStats st;
    summarize(s, 1, st);
    BOOST_TEST(!st.has_p999());
    std::vector<double> t(1000, 1.0);
    summarize(t, 1, st);
    BOOST_TEST(st.has_p999());
}

BOOST_AUTO_TEST_CASE(failed_and_skipped_phases_in_json) {
    LatencyStats ok;
    ok.op = "write";
    ok.size_bytes = 64;
    std::vector<double> s{1, 2, 3};
    summarize(s, 1, ok);
    auto j = to_json(ok);
    BOOST_TEST(j["min_us"].get<double>() == 1);
    BOOST_TEST(j["p999_us"].is_null());
    BOOST_TEST(j.contains("p999_note"));
    BOOST_TEST(!j.contains("error"));

    LatencyStats failed = ok;
    failed.error = "WRITE 64 B message 2: wait peer's WRITE: Connection timed out";
    j = to_json(failed);
    for (const char* k : {"iterations", "min_us", "p50_us", "p99_us", "p999_us", "max_us",
                          "mean_us", "msg_rate_per_s"})
        BOOST_TEST(j[k].is_null(), k);
    BOOST_TEST(j["iterations_completed"].get<int>() == 3);
    BOOST_TEST(j["error"].get<std::string>() == failed.error);

    LatencyStats skipped;
    skipped.op = "read";
    skipped.size_bytes = 4096;
    skipped.skipped = "not run: write 64 B failed before it";
    j = to_json(skipped);
    BOOST_TEST(j["skipped"].get<std::string>() == skipped.skipped);
    BOOST_TEST(!j.contains("min_us"));

    ProbeReport r;
    r.results = {failed, skipped};
    r.errors = {failed.error};
    BOOST_TEST(!r.ok());
    BOOST_TEST(to_json(r)["results"].size() == 2u);
}

// The report draws each pair's latency CDF from these points: they must follow the samples,
// rise in both coordinates, start at the minimum and reach the maximum at 1.
BOOST_AUTO_TEST_CASE(cdf_follows_the_samples) {
    std::vector<double> few{5, 1, 3};
    LatencyStats st;
    summarize(few, 1, st);
    BOOST_REQUIRE(st.cdf.size() == 3u);  // few samples: every one
    BOOST_TEST(st.cdf[0].first == 1);
    BOOST_TEST(st.cdf[0].second == 1.0 / 3);
    BOOST_TEST(st.cdf[2].first == 5);
    BOOST_TEST(st.cdf[2].second == 1.0);

    std::vector<double> many;
    for (int i = 1; i <= 10000; ++i) many.push_back(i * 0.5);  // 0.5 .. 5000 µs
    summarize(many, 1, st);
    BOOST_TEST(st.cdf.size() <= LatencyStats::kCdfPoints + 4);
    BOOST_TEST(st.cdf.front().first == 0.5);  // the minimum at 1/n
    BOOST_TEST(st.cdf.back().first == 5000);  // the maximum at 1
    BOOST_TEST(st.cdf.back().second == 1.0);
    for (std::size_t i = 1; i < st.cdf.size(); ++i) {
        BOOST_TEST(st.cdf[i].first >= st.cdf[i - 1].first);
        BOOST_TEST(st.cdf[i].second > st.cdf[i - 1].second);
    }
    bool median = false, tail = false;  // the median and the p99.9 are among the points
    for (const auto& [us, f] : st.cdf) {
        median |= f == 0.5 && us == 2500;
        tail |= f == 0.999 && us == 4995;
    }
    BOOST_TEST(median);
    BOOST_TEST(tail);
    // 51..999 samples: no tail point the samples cannot resolve, and never F(max) < 1 (ties).
    for (std::size_t n : {51u, 200u, 999u}) {
        LatencyStats st;
        std::vector<double> v(n, 7.0);  // every sample the same (a quantized clock)
        v[0] = 1.0;
        summarize(v, 1, st);
        BOOST_TEST(st.cdf.size() == 2u, n);
        BOOST_TEST(st.cdf[0].second == 1.0 / static_cast<double>(n), n);
        BOOST_TEST(st.cdf[1].first == 7.0, n);
        BOOST_TEST(st.cdf[1].second == 1.0, n);
        std::vector<double> ramp;
        for (std::size_t i = 1; i <= n; ++i) ramp.push_back(static_cast<double>(i));
        summarize(ramp, 1, st);
        for (const auto& [us, f] : st.cdf) {
            BOOST_TEST(f == us / static_cast<double>(n), n << ": " << us << " at " << f);
            BOOST_TEST(!(n < 1000 && f == 0.999), n);
        }
    }
    // probe --json carries them (the acceptance runner reads them from there)
    st.op = "write";
    const auto j = to_json(st);
    BOOST_REQUIRE(j["cdf"].is_array());
    BOOST_TEST(j["cdf"].size() == st.cdf.size());
    BOOST_TEST(j["cdf"][0][0].get<double>() == 0.5);
}

BOOST_AUTO_TEST_SUITE_END()  // test_latency_stats

#include <boost/test/unit_test.hpp>

#include <algorithm>

#include "probes/latency/probe_samples.h"

BOOST_AUTO_TEST_SUITE(test_probe_samples)

// A probe run becomes samples the rules read (store/README.md): latency gauges per quantile and
// error counters that start at 0 at the run's start.

namespace {

rh::LatencyStats measured(const char* op, std::uint64_t size, std::uint64_t iterations) {
    rh::LatencyStats s;
    s.op = op;
    s.size_bytes = size;
    s.iterations = iterations;
    s.p50_us = 3.5;
    s.p99_us = 9.25;
    s.p999_us = 20;
    return s;
}

const rh::Sample* find(const std::vector<rh::Sample>& v, const std::string& series,
                       const rh::Labels& want, double t_s) {
    for (const auto& s : v) {
        if (s.series != series || s.t_s != t_s) continue;
        if (std::all_of(want.begin(), want.end(), [&](const auto& kv) {
                const auto it = s.labels.find(kv.first);
                return it != s.labels.end() && it->second == kv.second;
            }))
            return &s;
    }
    return nullptr;
}

}  // namespace

BOOST_AUTO_TEST_CASE(latency_and_errors) {
    rh::ProbeReport r;
    r.results.push_back(measured("write", 64, 2000));
    r.results.push_back(measured("read", 4096, 200));  // < 1000: no p99.9 (it is the max)
    rh::LatencyStats failed;
    failed.op = "send";
    failed.size_bytes = 64;
    failed.error =
        "SEND 64 B message 0: completion rxe0: IBV_WC_RNR_RETRY_EXC_ERR (RNR retry counter "
        "exceeded), wr_id 0, vendor_err 0x0";
    failed.error_cause = "IBV_WC_RNR_RETRY_EXC_ERR";  // as ProbeSession::run_phase sets it
    r.results.push_back(failed);
    rh::LatencyStats skipped;
    skipped.op = "send";
    skipped.size_bytes = 4096;
    skipped.skipped = "an earlier phase failed";
    r.results.push_back(skipped);

    const rh::ProbeRunTimes when{100.0, 103.5, 1'800'000'000'000, 1'800'000'003'500};
    const auto v = rh::samples_from_probe(r, "g1", "10.99.0.12", when);

    const auto* p99 = find(v, "probe_latency_us",
                           {{"op", "write"}, {"size_bytes", "64"}, {"quantile", "p99"}}, 103.5);
    BOOST_TEST_REQUIRE(p99);
    BOOST_TEST(*p99->value == 9.25);
    BOOST_TEST(p99->host == "g1");
    BOOST_TEST(p99->labels.at("peer") == "10.99.0.12");
    BOOST_TEST(p99->unit == "us");
    BOOST_TEST(p99->wall_ms == 1'800'000'003'500);
    BOOST_TEST(find(v, "probe_latency_us", {{"op", "write"}, {"quantile", "p999"}}, 103.5));
    BOOST_TEST(!find(v, "probe_latency_us", {{"op", "read"}, {"quantile", "p999"}}, 103.5));
    BOOST_TEST(!find(v, "probe_latency_us", {{"op", "send"}}, 103.5));  // failed, skipped

    // The RNR failure: 0 at the start, 1 at the end -> an increase of 1 for the rnr rule.
    const rh::Labels rnr{{"op", "send"}, {"status", "IBV_WC_RNR_RETRY_EXC_ERR"}};
    const auto* before = find(v, "probe_errors", rnr, 100.0);
    const auto* after = find(v, "probe_errors", rnr, 103.5);
    BOOST_TEST_REQUIRE(before);
    BOOST_TEST_REQUIRE(after);
    BOOST_TEST(*before->count == 0u);
    BOOST_TEST(*after->count == 1u);
    BOOST_TEST(static_cast<int>(after->kind) == static_cast<int>(rh::SampleKind::counter));
    // A skipped phase is not an error of its own.
    BOOST_TEST(std::count_if(v.begin(), v.end(),
                             [](const rh::Sample& s) { return s.series == "probe_errors"; }) == 2);
}

BOOST_AUTO_TEST_SUITE_END()  // test_probe_samples

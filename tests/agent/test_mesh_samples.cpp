// agent/daemon/mesh_samples: the mesh's samples taken in at a collection pass keep the store's
// pass times one per pass — the newest sample of each series at the pass, a new error counter's
// 0 at the previous pass.
#include <boost/test/unit_test.hpp>

#include "agent/daemon/mesh_samples.h"

BOOST_AUTO_TEST_SUITE(test_agent_mesh_samples)

using namespace rh;
using rh::agent::PassStamp;
using rh::agent::stamp_at_pass;

namespace {

Sample latency(double t, double v) {
    Sample s;
    s.t_s = t;
    s.wall_ms = 1796100000000 + static_cast<std::int64_t>(t * 1000);
    s.host = "g1";
    s.series = "probe_latency_us";
    s.labels = {{"peer", "g2"}, {"op", "write"}, {"size_bytes", "64"}, {"quantile", "p50"}};
    s.kind = SampleKind::gauge;
    s.unit = "us";
    s.value = v;
    return s;
}

Sample errors(double t, std::uint64_t n) {
    Sample s = latency(t, 0);
    s.series = "probe_errors";
    s.labels = {{"peer", "g2"}, {"op", "connect"}, {"status", "unreachable"}};
    s.kind = SampleKind::counter;
    s.unit = "events";
    s.value.reset();
    s.count = n;
    return s;
}

}  // namespace

BOOST_AUTO_TEST_CASE(newest_sample_of_each_series_at_the_pass_time) {
    SeriesStore store;
    const PassStamp prev{10, 1796100010000}, now{11, 1796100011000};
    const auto out = stamp_at_pass({latency(10.2, 30), latency(10.7, 40)}, now, prev, store);
    BOOST_REQUIRE(out.size() == 1u);
    BOOST_TEST(*out[0].value == 40.0);  // the later round
    BOOST_TEST(out[0].t_s == 11.0);
    BOOST_TEST(out[0].wall_ms == now.wall_ms);
}

BOOST_AUTO_TEST_CASE(a_new_error_counter_starts_at_zero_at_the_previous_pass) {
    SeriesStore store;
    const PassStamp prev{10, 1796100010000}, now{11, 1796100011000};
    auto out = stamp_at_pass({errors(0, 0), errors(10.5, 1)}, now, prev, store);
    BOOST_REQUIRE(out.size() == 2u);
    BOOST_TEST(*out[0].count == 0u);
    BOOST_TEST(out[0].wall_ms == prev.wall_ms);
    BOOST_TEST(*out[1].count == 1u);
    BOOST_TEST(out[1].wall_ms == now.wall_ms);
    for (const auto& s : out) store.add(s);
    // Pass times stay those of the passes.
    BOOST_TEST((store.pass_times("g1") == std::vector<double>{1796100010.0, 1796100011.0}));
    // Once the store holds the counter, only its newest value is added.
    out = stamp_at_pass({errors(11.5, 2)}, PassStamp{12, 1796100012000}, now, store);
    BOOST_REQUIRE(out.size() == 1u);
    BOOST_TEST(*out[0].count == 2u);
}

BOOST_AUTO_TEST_CASE(without_a_previous_pass_only_the_value) {
    SeriesStore store;
    const auto out = stamp_at_pass({errors(0, 0), errors(0.5, 1)}, PassStamp{1, 1796100001000},
                                   std::nullopt, store);
    BOOST_REQUIRE(out.size() == 1u);
    BOOST_TEST(*out[0].count == 1u);
}

BOOST_AUTO_TEST_SUITE_END()  // test_agent_mesh_samples

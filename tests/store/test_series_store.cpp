// The time-series store (store/series_store): bounded retention, out-of-order samples, pass
// times per host, engine time from the wall clock or the monotonic clock, latest inventory.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/inventory/inventory.h"
#include "make_sample.h"
#include "store/series_store.h"

BOOST_AUTO_TEST_SUITE(test_store_series_store)

namespace {

using rh::Sample;
using U = std::optional<std::uint64_t>;

const rh::Labels kPort{{"device", "mlx5_0"}, {"port", "1"}};

Sample acks(const std::string& host, double t_s, std::uint64_t v) {
    return rh::test::counter(host, "ack_timeouts", kPort, t_s, v);
}

Sample inventory(const std::string& host, double t_s, int marker) {
    Sample s;
    s.host = host;
    s.t_s = t_s;
    s.series = "inventory";
    s.kind = rh::SampleKind::inventory;
    rh::Snapshot facts;
    facts.host = host;
    facts.collected_at = std::to_string(marker);  // tells the inventories apart
    s.inventory = std::make_shared<const rh::Snapshot>(facts);
    return s;
}

const rh::Series& only_series(const rh::SeriesStore& store) {
    const auto found = store.find("ack_timeouts");
    BOOST_REQUIRE_EQUAL(found.size(), 1u);
    return *found.front();
}

}  // namespace

BOOST_AUTO_TEST_CASE(total_continues_across_wraps_resets_and_unreadable_points) {
    rh::SeriesStore store;
    auto w32 = [](double t, U v) {
        return rh::test::counter("h1", "ack_timeouts", kPort, t, v, 32);
    };
    store.add(w32(0, 4294967200ull));
    BOOST_TEST((only_series(store).total == U(4294967200ull)));
    store.add(w32(1, 100));  // wrapped: +196
    BOOST_TEST((only_series(store).total == U(4294967396ull)));
    store.add(w32(2, std::nullopt));  // unreadable: the next delta spans the gap
    store.add(w32(3, 150));
    BOOST_TEST((only_series(store).total == U(4294967446ull)));
    store.add(w32(4, 10));  // 140 back of a 2^32 range: a wrap would be ~4e9 -> a reset: +10
    BOOST_TEST((only_series(store).total == U(4294967456ull)));
}

namespace {}  // namespace

BOOST_AUTO_TEST_CASE(retention_by_time) {
    rh::SeriesStore store(rh::StoreLimits{10, 1000});
    for (int t = 0; t <= 20; ++t) store.add(acks("gpu01", t, 100 + t));
    const auto& s = only_series(store);
    // Newest is t=20: points older than 20 - 10 are gone, t=10 (exactly 10 s old) stays.
    BOOST_TEST(s.points.size() == 11u);
    BOOST_TEST(s.points.front().t == 10.0);
    BOOST_TEST(s.points.back().t == 20.0);
    BOOST_TEST(s.points.front().count().value_or(0) == 110u);
    // Pass times follow the same retention.
    const auto& passes = store.pass_times("gpu01");
    BOOST_TEST(passes.front() == 10.0);
    BOOST_TEST(passes.size() == 11u);
}

BOOST_AUTO_TEST_CASE(retention_by_max_points) {
    // A fast sampler (0.1 s) with a long retention is bounded by max_points.
    rh::SeriesStore store(rh::StoreLimits{3600, 5});
    for (int i = 0; i < 20; ++i) store.add(acks("gpu01", i * 0.1, i));
    const auto& s = only_series(store);
    BOOST_REQUIRE_EQUAL(s.points.size(), 5u);
    BOOST_TEST(s.points.front().count().value_or(0) == 15u);  // the newest five: 15..19
    BOOST_TEST(s.points.back().count().value_or(0) == 19u);
}

BOOST_AUTO_TEST_CASE(out_of_order_samples_are_dropped_and_counted) {
    rh::SeriesStore store;
    store.add(acks("gpu01", 1, 10));
    store.add(acks("gpu01", 3, 30));
    store.add(acks("gpu01", 2, 20));  // late: before the series' newest point
    store.add(acks("gpu01", 4, 40));
    const auto& s = only_series(store);
    BOOST_TEST(store.dropped_out_of_order() == 1u);
    BOOST_REQUIRE_EQUAL(s.points.size(), 3u);
    BOOST_TEST(s.points[0].t == 1.0);
    BOOST_TEST(s.points[1].t == 3.0);
    BOOST_TEST(s.points[2].t == 4.0);
    // The dropped sample's time is no pass either.
    const auto& passes = store.pass_times("gpu01");
    BOOST_TEST((passes == std::vector<double>{1, 3, 4}));
    // Order is per series: another series may still start earlier.
    store.add(rh::test::counter("gpu01", "cnp_sent", kPort, 0.5, 1));
    BOOST_TEST(store.dropped_out_of_order() == 1u);
    BOOST_TEST(store.find("cnp_sent").size() == 1u);
}

BOOST_AUTO_TEST_CASE(pass_times_per_host) {
    rh::SeriesStore store;
    for (double t : {1.0, 2.0, 3.0}) {
        store.add(acks("gpu01", t, 1));
        store.add(rh::test::counter("gpu01", "cnp_sent", kPort, t, 1));  // same pass, 2nd series
        store.add(rh::test::gauge("gpu01", "port_state_code", kPort, t, 4));
    }
    for (double t : {1.5, 2.5}) store.add(acks("gpu02", t, 1));
    BOOST_TEST((store.hosts() == std::vector<std::string>{"gpu01", "gpu02"}));
    BOOST_TEST((store.pass_times("gpu01") == std::vector<double>{1, 2, 3}));  // one per pass
    BOOST_TEST((store.pass_times("gpu02") == std::vector<double>{1.5, 2.5}));
    BOOST_TEST(store.pass_times("gpu03").empty());
    // One series per (host, name, labels), found in key order.
    const auto found = store.find("ack_timeouts");
    BOOST_REQUIRE_EQUAL(found.size(), 2u);
    BOOST_TEST(found[0]->key.host == "gpu01");
    BOOST_TEST(found[1]->key.host == "gpu02");
    BOOST_TEST(store.series_count() == 4u);
    const rh::Series* g = store.get(rh::SeriesKey{"gpu01", "port_state_code", kPort});
    BOOST_REQUIRE(g != nullptr);
    BOOST_TEST(rh::to_string(g->kind) == std::string("gauge"));
    BOOST_TEST(store.get(rh::SeriesKey{"gpu01", "port_state_code", {}}) == nullptr);
}

BOOST_AUTO_TEST_CASE(series_remembers_whether_it_ever_had_a_value) {
    // A counter the host never could read is told apart from one that failed for a while.
    rh::SeriesStore store;
    for (int t = 0; t < 3; ++t) {
        store.add(rh::test::counter("gpu01", "ack_timeouts", kPort, t, std::nullopt));
        store.add(rh::test::counter("gpu01", "cnp_sent", kPort, t, t == 1 ? U{5} : std::nullopt));
    }
    BOOST_TEST(!only_series(store).ever_valued);
    BOOST_TEST(store.find("cnp_sent").front()->ever_valued);
}

BOOST_AUTO_TEST_CASE(engine_time_is_wall_clock_when_known) {
    Sample s = acks("gpu07", 8123.004, 1532);
    s.wall_ms = 1795939200004;
    BOOST_TEST(rh::engine_time(s) == 1795939200.004, boost::test_tools::tolerance(1e-9));
    rh::SeriesStore store;
    store.add(s);
    BOOST_TEST(store.has_wall_clock());
    const auto& p = only_series(store).points.front();
    BOOST_TEST(p.t == 1795939200.004, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(p.t_s == 8123.004);  // the monotonic time is kept for interval lengths
    // Two hosts with different monotonic origins line up on the wall clock.
    Sample other = acks("gpu08", 17.5, 1);
    other.wall_ms = 1795939200004;
    store.add(other);
    BOOST_TEST(store.pass_times("gpu07") == store.pass_times("gpu08"));
}

BOOST_AUTO_TEST_CASE(engine_time_is_monotonic_without_wall_clock) {
    const Sample s = acks("gpu01", 5000.25, 1);
    BOOST_TEST(rh::engine_time(s) == 5000.25);
    rh::SeriesStore store;
    store.add(s);
    BOOST_TEST(!store.has_wall_clock());
    BOOST_TEST(only_series(store).points.front().t == 5000.25);
}

BOOST_AUTO_TEST_CASE(inventory_keeps_the_latest) {
    rh::SeriesStore store;
    store.add(inventory("gpu01", 10, 1));           // through add(): routed to the inventories
    store.add_inventory(inventory("gpu01", 5, 0));  // older: ignored
    BOOST_REQUIRE_EQUAL(store.inventories().count("gpu01"), 1u);
    BOOST_TEST(store.inventories().at("gpu01").t == 10.0);
    BOOST_TEST(store.inventories().at("gpu01").snapshot->collected_at == "1");
    store.add(inventory("gpu01", 20, 2));
    BOOST_TEST(store.inventories().at("gpu01").t == 20.0);
    BOOST_TEST(store.inventories().at("gpu01").snapshot->collected_at == "2");
    // Inventories are not series, but an inventory pass is a pass of its host.
    BOOST_TEST(store.series_count() == 0u);
    BOOST_TEST((store.hosts() == std::vector<std::string>{"gpu01"}));
    const auto& passes = store.pass_times("gpu01");
    BOOST_TEST(std::count(passes.begin(), passes.end(), 10.0) == 1);
    BOOST_TEST(std::count(passes.begin(), passes.end(), 20.0) == 1);
}

// The facts name their host (the engine's inventory checks and log rules read it), and facts
// that did not decode are kept as their error, so the checks can say why they did not run.
BOOST_AUTO_TEST_CASE(inventory_names_its_host_or_keeps_the_error) {
    rh::SeriesStore store;
    Sample unnamed = inventory("gpu01", 10, 1);
    rh::Snapshot facts = *unnamed.inventory;
    facts.host.clear();
    unnamed.inventory = std::make_shared<const rh::Snapshot>(facts);
    store.add(unnamed);
    BOOST_TEST(store.inventories().at("gpu01").snapshot->host == "gpu01");
    Sample bad = inventory("gpu02", 10, 1);
    bad.inventory = nullptr;
    bad.error = "devices: expected an array";
    store.add(bad);
    BOOST_TEST(!store.inventories().at("gpu02").snapshot);
    BOOST_TEST(store.inventories().at("gpu02").error == "devices: expected an array");
}

// Where a level first changed within the kept points (what the rules' changed_in_data reads):
// as points come, and again after the oldest are dropped (at most 6 points kept).
BOOST_AUTO_TEST_CASE(first_value_change_follows_added_and_dropped_points) {
    rh::SeriesStore store(rh::StoreLimits{3600, 6});
    const auto state = [&](double t, std::optional<double> v) {
        store.add(rh::test::gauge("gpu01", "port_state_code", kPort, t, v));
    };
    state(0, std::nullopt);  // unreadable: not a level
    const rh::Series& s = *store.find("port_state_code").front();
    const auto change_t = [&]() {  // -1: no change
        const auto it = s.first_value_change();
        return it == s.points.end() ? -1.0 : it->t;
    };
    state(1, 1);
    state(2, 1);
    BOOST_TEST(change_t() == -1.0);  // down throughout so far
    state(3, 4);
    BOOST_TEST(change_t() == 3.0);
    state(4, 1);
    state(5, 4);
    BOOST_TEST(change_t() == 3.0);  // the first change, not the last
    state(6, 4);                    // drops t=0 (unreadable)
    BOOST_TEST(change_t() == 3.0);
    state(7, 4);  // drops t=1: the oldest level is t=2's, 1
    BOOST_TEST(change_t() == 3.0);
    state(8, 4);  // drops t=2: the oldest level is t=3's, 4; t=4's 1 differs
    BOOST_TEST(change_t() == 4.0);
    state(9, 4);  // drops t=3: the oldest is t=4's 1; t=5's 4 differs
    BOOST_TEST(change_t() == 5.0);
    state(10, 4);  // drops t=4: 4 at every kept point
    BOOST_TEST(change_t() == -1.0);
    state(11, 2);
    BOOST_TEST(change_t() == 11.0);
}

BOOST_AUTO_TEST_SUITE_END()  // test_store_series_store

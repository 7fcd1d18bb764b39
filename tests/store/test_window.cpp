// Window queries (store/window): what a counter grew by over a time window, with wraps, resets,
// missing reads and alias switches handled as store/README.md promises; gauge levels over time.
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <optional>
#include <vector>

#include "make_sample.h"
#include "store/series_store.h"
#include "store/window.h"

BOOST_AUTO_TEST_SUITE(test_store_window)

namespace {

using rh::Sample;
using U = std::optional<std::uint64_t>;
constexpr std::uint64_t k2p32 = std::uint64_t{1} << 32;

/// Counter "rnr_nak_received" of gpu01 read once a second from t = 0 with `values`.
std::vector<Sample> every_second(const std::vector<U>& values, unsigned width_bits = 64) {
    std::vector<Sample> out;
    for (std::size_t i = 0; i < values.size(); ++i)
        out.push_back(rh::test::counter("gpu01", "rnr_nak_received", {{"device", "mlx5_0"}},
                                        static_cast<double>(i), values[i], width_bits));
    return out;
}

/// Checks a window's increase and how it was made up.
void check(const rh::WindowIncrease& w, U increase, std::size_t intervals, std::size_t gaps,
           bool reset, bool wrapped) {
    BOOST_TEST((w.increase == increase));
    BOOST_TEST(w.intervals == intervals);
    BOOST_TEST(w.gaps == gaps);
    BOOST_TEST(w.reset == reset);
    BOOST_TEST(w.wrapped == wrapped);
}

/// Stores `samples` and returns their one series.
const rh::Series& stored(rh::SeriesStore& store, const std::vector<Sample>& samples) {
    for (const Sample& s : samples) store.add(s);
    BOOST_REQUIRE_EQUAL(store.series_count(), 1u);
    const auto found = store.find(samples.front().series);
    BOOST_REQUIRE_EQUAL(found.size(), 1u);
    return *found.front();
}

}  // namespace

BOOST_AUTO_TEST_CASE(normal_growth) {
    rh::SeriesStore store;
    const auto& s = stored(store, every_second({100, 130, 130, 190}));
    const auto w = rh::increase_in(s, 0, 3);
    check(w, 90, 3, 0, false, false);
    BOOST_TEST(w.covered_s == 3.0);
    BOOST_TEST(rh::rate_in(s, 0, 3).value_or(-1) == 30.0);
    // Only the part of the series inside the window counts.
    BOOST_TEST((rh::increase_in(s, 2, 3).increase == U{60}));
}

BOOST_AUTO_TEST_CASE(thirty_two_bit_wrap_gives_the_true_increase) {
    // An mlx5 Q counter 30 below 2^32 growing by 20, 15, 20, 20 wraps between t=1 and t=2.
    const std::vector<U> v = {k2p32 - 30, k2p32 - 10, 5, 25, 45};
    rh::SeriesStore store;
    const auto& s = stored(store, every_second(v, 32));
    const auto w = rh::increase_in(s, 0, 4);
    check(w, 20 + 15 + 20 + 20, 4, 0, false, true);
    BOOST_TEST(rh::rate_in(s, 0, 4).value_or(-1) == 75.0 / 4);
}

// The new user's report: a 64-bit counter reading its maximum (all ones) between two good
// reads showed "18446744073709551616 packets in 10 s". No count is 2^64: the window is the
// growth between the good reads, the all-ones read a gap, and the store's total goes on from
// the last good reading too.
BOOST_AUTO_TEST_CASE(a_64_bit_counter_at_its_maximum_is_not_a_2_pow_64_delta) {
    constexpr std::uint64_t kMax64 = ~std::uint64_t{0};
    rh::SeriesStore store;
    const auto& s = stored(store, every_second({5, kMax64, 12, kMax64 - 3, 20}));
    check(rh::increase_in(s, 0, 4), 7 + 8, 2, 2, false, false);
    BOOST_TEST((rh::increase_in(s, 0, 1).increase == std::nullopt));
    BOOST_TEST((s.total == U{20}));
    // Also when the first reading is small and the counter goes "below zero" by one.
    rh::SeriesStore one;
    check(rh::increase_in(stored(one, every_second({5, kMax64})), 0, 1), std::nullopt, 0, 1, false,
          false);
}

BOOST_AUTO_TEST_CASE(same_drop_on_a_64_bit_counter_is_a_reset) {
    // The values of the wrap above, but 64 bits wide: going back is a reset (count since it).
    const std::vector<U> v = {k2p32 - 30, k2p32 - 10, 5, 25, 45};
    rh::SeriesStore store;
    const auto& s = stored(store, every_second(v));
    const auto w = rh::increase_in(s, 0, 4);
    check(w, 20 + 5 + 20 + 20, 4, 0, true, false);
}

BOOST_AUTO_TEST_CASE(counter_going_backwards_is_a_reset_lower_bound) {
    // Driver reload between t=2 and t=3: 1100 -> 30. The increase counts 100 + 30 + 20 (what is
    // known to have happened), flags the reset, and is never negative or ~2^64.
    rh::SeriesStore store;
    const auto& s = stored(store, every_second({1000, 1050, 1100, 30, 50}));
    const auto w = rh::increase_in(s, 0, 4);
    check(w, 50 + 50 + 30 + 20, 4, 0, true, false);
    const auto r = rh::rate_in(s, 0, 4);
    BOOST_REQUIRE(r.has_value());
    BOOST_TEST(*r >= 0.0);
    BOOST_TEST(*r == 150.0 / 4);
    // A 32-bit counter wraps from any value (issue 26), as long as the wrap fits the interval:
    // 100100 -> 40 in 1 s would be 4.29 G events, more than any port counts (~595 M/s): a reset.
    rh::SeriesStore store32;
    const auto& q = stored(store32, every_second({100000, 100100, 40}, 32));
    check(rh::increase_in(q, 0, 2), 100 + 40, 2, 0, true, false);
    // 30 s apart the same fall is a wrap: 2^32 - 100100 + 40 more, and ambiguous (at the fastest
    // rate 30 s hold several wraps).
    std::vector<Sample> slow = every_second({100100, 40}, 32);
    slow[1].t_s = 30;
    rh::SeriesStore store30;
    const auto w30 = rh::increase_in(stored(store30, slow), 0, 30);
    check(w30, k2p32 - 100100 + 40, 1, 0, false, true);
    BOOST_TEST(w30.wrap_ambiguous);
}

// A reboot between two captures (Sample::segment 0 -> 1): the two reads are never differenced,
// so the carrier count that restarted (6 -> 2) is no increase, and rates go on after it.
BOOST_AUTO_TEST_CASE(segment_change_is_a_gap_not_a_reset) {
    auto samples = every_second({4, 6, 2, 2, 3});
    for (std::size_t i = 2; i < samples.size(); ++i) samples[i].segment = 1;
    rh::SeriesStore store;
    const auto& s = stored(store, samples);
    check(rh::increase_in(s, 0, 4), 2 + 0 + 1, 3, 1, false, false);
    check(rh::increase_in(s, 1, 3), 0, 1, 1, false, false);
    BOOST_TEST(!rh::increase_in(s, 1, 2).increase.has_value());
    BOOST_TEST((s.total == U{4 + 2 + 0 + 1}));  // nothing added across the split
    // A 32-bit counter across the split is no wrap either.
    auto q32 = every_second({k2p32 - 10, 5}, 32);
    q32[1].segment = 1;
    rh::SeriesStore store32;
    check(rh::increase_in(stored(store32, q32), 0, 1), std::nullopt, 0, 1, false, false);
}

BOOST_AUTO_TEST_CASE(a_dip_below_the_last_reading_is_a_glitch_not_events) {
    // 1560, 1559 (a glitch), 1560, 1570: a reset would count 1559 + 1 new events (a false burst).
    // The dip is a gap, and the next reading is measured from the last good one: +0, then +10.
    rh::SeriesStore store;
    const auto& s = stored(store, every_second({1560, 1570, 1569, 1570, 1580}));
    check(rh::increase_in(s, 0, 4), 10 + 0 + 10, 3, 1, false, false);
    BOOST_TEST((s.total == U{1580}));  // what /metrics exports keeps counting the true events
}

BOOST_AUTO_TEST_CASE(null_point_is_a_gap_not_a_zero) {
    // 100, 110, (read failed), 130, 140: a null read as 0 would give a reset of 130 or a huge
    // jump. The two pairs touching the null are gaps; the rate is over the covered 2 s only.
    rh::SeriesStore store;
    const auto& s = stored(store, every_second({100, 110, std::nullopt, 130, 140}));
    const auto w = rh::increase_in(s, 0, 4);
    check(w, 20, 2, 2, false, false);
    BOOST_TEST(w.covered_s == 2.0);
    BOOST_TEST(rh::rate_in(s, 0, 4).value_or(-1) == 10.0);
    // A window holding only the null and one neighbour has no increase at all (unknown, not 0).
    BOOST_TEST(!rh::increase_in(s, 1.5, 3).increase.has_value());
    BOOST_TEST(!rh::rate_in(s, 1.5, 3).has_value());
}

BOOST_AUTO_TEST_CASE(all_null_or_single_point_has_no_increase) {
    rh::SeriesStore store;
    const auto& s = stored(store, every_second({std::nullopt, std::nullopt, std::nullopt}));
    const auto w = rh::increase_in(s, 0, 2);
    check(w, std::nullopt, 0, 2, false, false);
    BOOST_TEST(!rh::rate_in(s, 0, 2).has_value());
    rh::SeriesStore one;
    const auto& p = stored(one, every_second({5}));
    BOOST_TEST(!rh::increase_in(p, 0, 10).increase.has_value());
}

BOOST_AUTO_TEST_CASE(raw_name_change_is_a_gap) {
    // A driver update renames the kernel counter the series is read from (alias switch): the
    // old and new counters count different things, so their difference is no increase.
    auto samples = every_second({100, 110, 5000, 5010});
    samples[2].raw = samples[3].raw = "rnr_nak_retry_err_v2";
    rh::SeriesStore store;
    const auto& s = stored(store, samples);
    const auto w = rh::increase_in(s, 0, 3);
    check(w, 10 + 10, 2, 1, false, false);
    BOOST_TEST(rh::rate_in(s, 0, 3).value_or(-1) == 10.0);
}

BOOST_AUTO_TEST_CASE(window_slack_takes_a_late_pass_in) {
    // Passes meant for t=1 and t=3 sampled at 0.8 and 3.2 (scheduling jitter) belong to [1, 3];
    // points more than kWindowSlackS outside do not.
    std::vector<Sample> samples;
    const double times[] = {0.7, 0.8, 2.0, 3.2, 3.3};
    const std::uint64_t values[] = {0, 1000, 1010, 1030, 5000};
    for (int i = 0; i < 5; ++i)
        samples.push_back(rh::test::counter("gpu01", "ack_timeouts", {}, times[i], values[i]));
    rh::SeriesStore store;
    const auto& s = stored(store, samples);
    BOOST_REQUIRE(0.8 >= 1 - rh::kWindowSlackS && 0.7 < 1 - rh::kWindowSlackS);
    BOOST_REQUIRE(3.2 <= 3 + rh::kWindowSlackS && 3.3 > 3 + rh::kWindowSlackS);
    const auto w = rh::increase_in(s, 1, 3);
    check(w, 30, 2, 0, false, false);
    BOOST_TEST(w.covered_s == 3.2 - 0.8, boost::test_tools::tolerance(1e-9));
}

BOOST_AUTO_TEST_CASE(rate_uses_monotonic_seconds) {
    // Engine time comes from the wall clock, which an NTP step can move; intervals must come
    // from t_s. Wall clock says 1 s apart, the host's monotonic clock 2 s: 100 in 2 s = 50/s.
    Sample a = rh::test::counter("gpu01", "ack_timeouts", {}, 500.0, 1000);
    Sample b = rh::test::counter("gpu01", "ack_timeouts", {}, 502.0, 1100);
    a.wall_ms = 1700000000000;
    b.wall_ms = 1700000001000;
    rh::SeriesStore store;
    const auto& s = stored(store, {a, b});
    BOOST_TEST(rh::rate_in(s, 1700000000.0, 1700000001.0).value_or(-1) == 50.0);
}

BOOST_AUTO_TEST_CASE(value_at_persists_gauge_levels) {
    // pfc_enabled read 1 at t=0, 0 at t=10, then a failed read at t=15.
    rh::SeriesStore store;
    const rh::Labels prio{{"priority", "3"}};
    const auto& s =
        stored(store, {rh::test::gauge("gpu01", "pfc_enabled", prio, 0, 1.0),
                       rh::test::gauge("gpu01", "pfc_enabled", prio, 10, 0.0),
                       rh::test::gauge("gpu01", "pfc_enabled", prio, 15, std::nullopt)});
    BOOST_TEST(!rh::value_at(s, -1).has_value());  // before the first read: unknown
    BOOST_TEST(rh::value_at(s, 0).value_or(-1) == 1.0);
    BOOST_TEST(rh::value_at(s, 7).value_or(-1) == 1.0);  // persists between reads
    BOOST_TEST(rh::value_at(s, 10).value_or(-1) == 0.0);
    BOOST_TEST(rh::value_at(s, 100).value_or(-1) == 0.0);  // the failed read does not erase it
    // A window that holds only the failed read has no value; one that holds t=10 has 0.
    BOOST_TEST(!rh::last_value_in(s, 12, 20).has_value());
    BOOST_TEST(rh::last_value_in(s, 5, 20).value_or(-1) == 0.0);
    BOOST_TEST(rh::last_value_in(s, 0, 5).value_or(-1) == 1.0);
}

BOOST_AUTO_TEST_SUITE_END()  // test_store_window

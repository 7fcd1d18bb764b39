// A series' encoded points (store/point_seq): what is read back is what was added, bit for bit,
// whatever the readings' spread, metadata, kinds and times; dropping at the front keeps the
// rest; and the store keeps an idle series in a few bytes a point while a stopped series does
// not pin its host's old times.
#include <boost/test/unit_test.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "make_sample.h"
#include "store/point_seq.h"
#include "store/series_store.h"

BOOST_AUTO_TEST_SUITE(test_store_point_seq)

namespace {

using U = std::optional<std::uint64_t>;
using D = std::optional<double>;

bool same(const rh::Point& a, const rh::Point& b) {
    const auto bits = [](double x) { return std::bit_cast<std::uint64_t>(x); };
    return bits(a.t) == bits(b.t) && bits(a.t_s) == bits(b.t_s) && a.meta == b.meta &&
           a.count() == b.count() && a.readable() == b.readable() &&
           (a.value() ? b.value() && bits(*a.value()) == bits(*b.value()) : !b.value());
}

/// Every point of `seq` against `want`, by index, by iterator and by time alone.
void check_equal(const rh::PointSeq& seq, const std::deque<rh::Point>& want) {
    BOOST_REQUIRE_EQUAL(seq.size(), want.size());
    std::size_t i = 0;
    for (const rh::Point& p : seq) {
        BOOST_REQUIRE_MESSAGE(same(p, want[i]), "point " << i << " differs");
        BOOST_REQUIRE(same(seq[i], want[i]));
        BOOST_REQUIRE_EQUAL(std::bit_cast<std::uint64_t>(seq.t_at(i)),
                            std::bit_cast<std::uint64_t>(want[i].t));
        ++i;
    }
    if (!want.empty()) BOOST_TEST(same(seq.back(), want.back()));
}

/// Readings of every spread (constant, small steps, 2^16.., 2^32.., resets to 0, NaN and
/// negative gauges), changes of meta and of kind mid-block, missing points, time indexes in
/// and out of step: each forces a packed block to re-encode wider, and the reads must not move.
void reads_back_every_point(bool packed) {
    std::mt19937_64 rng(7);
    rh::TimeTable times;
    rh::PointSeq seq = packed ? rh::PointSeq(&times) : rh::PointSeq();
    std::deque<rh::Point> want;
    std::uint64_t count = 1000;
    double t = 1.7e9, t_s = 8000.25;
    for (int i = 0; i < 5000; ++i) {
        const int phase = (i / 300) % 7;
        switch (phase) {
            case 0:
                break;  // constant
            case 1:
                count += rng() % 200;
                break;  // 1 byte
            case 2:
                count += rng() % 60000;
                break;  // 2 bytes
            case 3:
                count += rng() % (1ull << 31);
                break;  // 4 bytes
            case 4:
                count = rng() % 3 == 0 ? 0 : count + 1;
                break;  // resets: 8 bytes
            default:
                count = rng();
                break;  // anything
        }
        std::uint32_t meta = (rng() % 97 == 0) ? 1 + rng() % 3 : 0;
        rh::Point p;
        const auto pick = rng() % 50;
        if (phase == 6 && pick < 20)
            p = rh::Point(t, t_s, std::nullopt, D(pick == 0 ? std::nan("") : -1.5 * double(pick)),
                          meta);
        else if (pick == 1)
            p = rh::Point(t, t_s, std::nullopt, std::nullopt, meta);  // missing
        else
            p = rh::Point(t, t_s, U(count), std::nullopt, meta);
        // Two in three points share their pass's time with another series (the same entry).
        if (rng() % 2 == 0) times.intern(t, t_s);  // another series' first
        seq.push_back(p);
        if (rng() % 3 == 0) times.intern(t + 0.5, t_s + 0.5);  // another series' time between
        want.push_back(p);
        t += 1.0 + (rng() % 5 == 0 ? 0.001 : 0);
        t_s += 1.0;
        if (rng() % 9 == 0 && !want.empty()) {  // drops at the front, across block ends
            for (int k = 0; k < 1 + static_cast<int>(rng() % 70) && !want.empty(); ++k) {
                seq.pop_front();
                want.pop_front();
            }
        }
        if (i % 500 == 0) check_equal(seq, want);
    }
    check_equal(seq, want);
    while (!want.empty()) {
        seq.pop_front();
        want.pop_front();
    }
    check_equal(seq, want);
    seq.push_back(rh::Point(t, t_s, U(5), std::nullopt, 0));
    want.push_back(rh::Point(t, t_s, U(5), std::nullopt, 0));
    check_equal(seq, want);
}

}  // namespace

BOOST_AUTO_TEST_CASE(packed_points_read_back_as_added_through_widening_and_drops) {
    reads_back_every_point(true);
}

BOOST_AUTO_TEST_CASE(plain_points_read_back_as_added) {
    reads_back_every_point(false);
}

BOOST_AUTO_TEST_CASE(an_idle_host_costs_a_few_bytes_a_point) {
    // An 8-port host's shape: 200 series read every second, most constant, some rising by a
    // few thousand a second (data counters of an idle link), 900 s kept: 180,000 points that
    // took 32 bytes each before they were encoded.
    rh::SeriesStore store(rh::StoreLimits{900, 100000});
    std::mt19937_64 rng(3);
    std::vector<std::uint64_t> counts(200, 1u << 20);
    for (int pass = 0; pass < 1200; ++pass) {
        for (int k = 0; k < 200; ++k) {
            if (k % 10 == 0) counts[k] += 1000 + rng() % 4000;
            auto s = rh::test::counter("h1", "ack_timeouts", {{"port", std::to_string(k)}},
                                       100.0 + pass, counts[k]);
            s.wall_ms = 1'700'000'000'000 + 1000LL * pass;
            store.add(s);
        }
    }
    const double per_point = static_cast<double>(store.point_bytes()) / (200.0 * 901);
    BOOST_TEST_MESSAGE("bytes per point: " << per_point);
    BOOST_TEST(per_point < 2.0);
    // Still every point of the newest 900 s, readable.
    BOOST_REQUIRE_EQUAL(store.find("ack_timeouts").size(), 200u);
    const rh::Series* rising = store.get({"h1", "ack_timeouts", {{"port", "10"}}});
    BOOST_REQUIRE(rising);
    BOOST_TEST(rising->points.size() == 901u);
    BOOST_TEST(*rising->points.back().count() == counts[10]);
}

BOOST_AUTO_TEST_CASE(a_stopped_series_does_not_pin_its_hosts_times) {
    // A port that went away stops adding points; the host's other series go on for hours.
    // The stopped series' points fall out of retention behind the host's newest pass, and the
    // time table stays bounded by retention, not by the agent's age.
    rh::SeriesStore store(rh::StoreLimits{60, 100000});
    for (int pass = 0; pass < 20000; ++pass) {
        store.add(rh::test::counter("h1", "ack_timeouts", {{"port", "1"}}, pass, 7));
        if (pass < 100) {
            store.add(rh::test::counter("h1", "ack_timeouts", {{"port", "2"}}, pass, 9));
            // Another host's series stops too; its host adds nothing more, so its table is
            // never trimmed: h1's trims leave it alone.
            store.add(rh::test::counter("h2", "ack_timeouts", {{"port", "1"}}, pass, 3));
        }
    }
    const auto* active = store.get({"h1", "ack_timeouts", {{"port", "1"}}});
    const auto* stopped = store.get({"h1", "ack_timeouts", {{"port", "2"}}});
    const auto* other_host = store.get({"h2", "ack_timeouts", {{"port", "1"}}});
    BOOST_REQUIRE(active && stopped && other_host);
    BOOST_TEST(active->points.size() == 61u);
    BOOST_TEST(stopped->points.empty());
    BOOST_TEST(other_host->points.size() == 61u);  // its own retention, behind its newest
    // 61 kept times, at most ~2x + 1,024 before the next trim: 16 bytes each.
    BOOST_TEST(store.point_bytes() < 64u * 1024);
}

BOOST_AUTO_TEST_SUITE_END()

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/counter_wrap.h"
#include "store/counter_delta.h"

BOOST_AUTO_TEST_SUITE(test_counter_delta)

namespace {

using rh::DeltaKind;
using U = std::optional<std::uint64_t>;
constexpr std::uint64_t k2p32 = std::uint64_t{1} << 32;
constexpr std::uint64_t kMax64 = ~std::uint64_t{0};

struct Case {
    std::string what;
    U prev, cur;
    unsigned width;
    bool saturates;
    U value;
    DeltaKind kind;
};

}  // namespace

BOOST_AUTO_TEST_CASE(table) {
    const std::vector<Case> cases = {
        {"normal 64-bit", 100, 250, 64, false, 150, DeltaKind::normal},
        {"unchanged", 7, 7, 32, false, 0, DeltaKind::normal},
        {"32-bit wrap (mlx5 Q counter)", 4294967000u, 100, 32, false, 396, DeltaKind::wrapped},
        {"32-bit wrap from the maximum", k2p32 - 1, 0, 32, false, 1, DeltaKind::wrapped},
        // A wrap can happen from any old value (issue 26): a reset is told from the boot or
        // from 64-bit counters by the bundle reader, which then splits the timeline.
        {"32-bit drop from far below 2^32 is a wrap", 100000, 50, 32, false, k2p32 - 100000 + 50,
         DeltaKind::wrapped},
        {"32-bit Q counter 4,292,577,000 -> 2,186,704 is +4.58 M", 4292577000u, 2186704, 32, false,
         4577000, DeltaKind::wrapped},
        {"64-bit going backwards is a reset (driver reload)", 9000000000u, 12, 64, false, 12,
         DeltaKind::reset},
        {"64-bit near max backwards has wrapped (core/counter_wrap.h)", kMax64 - 5, 3, 64, false, 9,
         DeltaKind::wrapped},
        {"32-bit prev above the width is a reset", k2p32 + 10, 5, 32, false, 5, DeltaKind::reset},
        // A reset restarts near 0: a small dip is a read glitch with no value (counting it as
        // 1559 new events invented a discard burst and a link flap in a trial).
        {"64-bit dip by 1 is a glitch, not a reset", 1560, 1559, 64, false, std::nullopt,
         DeltaKind::backwards},
        {"32-bit dip by 1 is a full wrap", 1000, 999, 32, false, k2p32 - 1, DeltaKind::wrapped},
        {"down to half is a reset", 100, 50, 64, false, 50, DeltaKind::reset},
        // No 64-bit count grows by 2^63 or more between two reads: a reading below the last
        // one taken as unsigned (-1, all ones) is a glitch, never 2^64 new events.
        {"64-bit rise to the maximum is a glitch, not 2^64 events", 5, kMax64, 64, false,
         std::nullopt, DeltaKind::backwards},
        {"64-bit rise to -3 as unsigned is a glitch", 0, kMax64 - 2, 64, false, std::nullopt,
         DeltaKind::backwards},
        {"64-bit rise of 2^63 - 1 is still a count", 0, (kMax64 >> 1), 64, false, kMax64 >> 1,
         DeltaKind::normal},
        {"from the maximum back down is a reset", kMax64, 10, 64, false, 10, DeltaKind::reset},
        {"32-bit rise to its maximum is a count", 5, k2p32 - 1, 32, false, k2p32 - 6,
         DeltaKind::normal},
        {"16-bit saturating at max", 100, 65535, 16, true, std::nullopt, DeltaKind::saturated},
        {"16-bit saturating stays at max", 65535, 65535, 16, true, std::nullopt,
         DeltaKind::saturated},
        {"8-bit saturating below max", 3, 5, 8, true, 2, DeltaKind::normal},
        {"saturating cleared (backwards) is a reset", 200, 1, 8, true, 1, DeltaKind::reset},
        {"missing prev", std::nullopt, 5, 64, false, std::nullopt, DeltaKind::missing},
        {"missing cur", 5, std::nullopt, 32, false, std::nullopt, DeltaKind::missing},
        {"missing both", std::nullopt, std::nullopt, 16, true, std::nullopt, DeltaKind::missing},
    };
    for (const auto& c : cases) {
        BOOST_TEST_CONTEXT(c.what) {
            const auto d = rh::delta(c.prev, c.cur, c.width, c.saturates);
            BOOST_TEST(rh::to_string(d.kind) == rh::to_string(c.kind));
            BOOST_TEST((d.value == c.value));
        }
    }
}

BOOST_AUTO_TEST_CASE(rates_from_deltas) {
    BOOST_TEST(*rh::rate_per_s(rh::delta(U{1000}, U{3000}), 2.0) == 1000.0);
    BOOST_TEST(*rh::rate_per_s(rh::delta(U{4294967000u}, U{100}, 32), 4.0) == 99.0);
    BOOST_TEST(!rh::rate_per_s(rh::delta(U{1}, U{65535}, 16, true), 1.0));  // saturated
    BOOST_TEST(!rh::rate_per_s(rh::delta(std::nullopt, U{5}), 1.0));        // missing
    BOOST_TEST(!rh::rate_per_s(rh::delta(U{1}, U{5}), 0.0));                // no interval
}

// A 32-bit packet counter at 400 Gb/s of 64-byte frames (~595 M/s) wraps in ~7 s: over 30 s
// any delta is ambiguous by multiples of 2^32; 64-bit counters never are.
BOOST_AUTO_TEST_CASE(wrap_ambiguity_from_interval_and_fastest_rate) {
    const double pps_400g_64b = 400e9 / 8 / (64 + 20);
    BOOST_TEST(rh::wrap_ambiguous(32, 30, pps_400g_64b));
    BOOST_TEST(!rh::wrap_ambiguous(32, 1, pps_400g_64b));
    BOOST_TEST(!rh::wrap_ambiguous(64, 1e9, pps_400g_64b));
    BOOST_TEST(!rh::wrap_ambiguous(32, 30, 0));  // fastest rate unknown: not claimed
}

// A wrap must fit its interval: 1,482,337 -> 12 read 1 s apart is a driver reload (4.29 G events
// in 1 s is more than any port counts); 30 s apart it may be a wrap.
BOOST_AUTO_TEST_CASE(wrap_that_does_not_fit_the_interval_is_a_reset) {
    const auto fast = rh::delta_over(U{1482337}, U{12}, 32, false, 1.0);
    BOOST_TEST(rh::to_string(fast.kind) == "reset");
    BOOST_TEST((fast.value == U{12}));
    const auto slow = rh::delta_over(U{1482337}, U{12}, 32, false, 30.0);
    BOOST_TEST(rh::to_string(slow.kind) == "wrapped");
    BOOST_TEST((slow.value == U{k2p32 - 1482337 + 12}));
    // h3: +4.58 M in 30 s is a plain wrap.
    BOOST_TEST(rh::to_string(rh::delta_over(U{4292577000u}, U{2186704}, 32, false, 30).kind) ==
               "wrapped");
}

BOOST_AUTO_TEST_CASE(normalized_counter_uses_its_metadata) {
    rh::NormalizedCounter prev, cur;
    prev.name = cur.name = "rx_out_of_buffer";
    prev.raw_name = cur.raw_name = "out_of_buffer";
    prev.width_bits = cur.width_bits = 32;
    prev.value = 4294967000u;
    cur.value = 100;
    const auto d = rh::delta(&prev, &cur);
    BOOST_TEST(rh::to_string(d.kind) == "wrapped");
    BOOST_TEST((d.value == U{396}));

    // An alias switch between samples (another raw counter) is not comparable.
    prev.raw_name = "rx_out_of_buffer";
    BOOST_TEST(rh::to_string(rh::delta(&prev, &cur).kind) == "missing");
    BOOST_TEST(rh::to_string(rh::delta(nullptr, &cur).kind) == "missing");
}

// A 64-bit counter run up to within 2^56 of 2^64 (a firmware-seeded *_phy byte counter) that
// comes back small has wrapped: 2^64 - prev + cur, not a reset that would split the timeline.
// A fall from anywhere else is still a reset, and an all-ones reading is no counter at all.
BOOST_AUTO_TEST_CASE(u64_wrap_near_the_top_is_a_wrap) {
    constexpr std::uint64_t kTop = ~std::uint64_t{0};
    const std::uint64_t prev = kTop - 115'875'000'000ull + 1;  // 2^64 - 115.875e9
    const auto d = rh::delta(prev, 115'875'000'000ull);
    BOOST_TEST(static_cast<int>(d.kind) == static_cast<int>(rh::DeltaKind::wrapped));
    BOOST_TEST(d.value == std::optional<std::uint64_t>(231'750'000'000ull));
    BOOST_TEST(rh::wrapped_64bit(prev, 115'875'000'000ull));
    BOOST_TEST(static_cast<int>(rh::delta(4'000'000'000'000ull, 1'000ull).kind) ==
               static_cast<int>(rh::DeltaKind::reset));
    BOOST_TEST(!rh::wrapped_64bit(kTop, 5));               // all ones: "unavailable", not a count
    BOOST_TEST(!rh::wrapped_64bit(kTop - 10, kTop - 20));  // a dip near the top: no wrap
}

BOOST_AUTO_TEST_SUITE_END()  // test_counter_delta

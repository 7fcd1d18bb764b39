#include <boost/test/unit_test.hpp>

#include "core/pass_schedule.h"

BOOST_AUTO_TEST_SUITE(test_pass_schedule)

using rh::PassSchedule;

BOOST_AUTO_TEST_CASE(passes_stay_on_the_grid) {
    PassSchedule s(1.0, 0, 100.0);
    BOOST_TEST(s.next_s() == 100.0);
    BOOST_TEST(s.next_after(100.2) == 101.0);  // a short pass: the next slot
    BOOST_TEST(s.next_after(101.9) == 102.0);  // late in its slot: still the next one, no drift
}

BOOST_AUTO_TEST_CASE(an_overrunning_pass_skips_missed_slots_instead_of_bunching) {
    PassSchedule s(1.0, 0, 0.0);
    BOOST_TEST(s.next_after(2.5) == 3.0);  // slots 1 and 2 were missed: next is 3, not 1
    BOOST_TEST(s.next_after(3.1) == 4.0);
}

BOOST_AUTO_TEST_CASE(a_bounded_run_ends_near_its_duration) {
    PassSchedule s(1.0, 3.0, 0.0);
    // Passes at 0, 1, 2 fit in 3 s; after the pass at 2 another would end at 4 > 3.25.
    BOOST_TEST(!s.done(0.1));
    BOOST_TEST(!s.done(1.1));
    BOOST_TEST(!s.done(2.2));
    BOOST_TEST(s.done(2.3));
    BOOST_TEST(!PassSchedule(1.0, 0, 0.0).done(1e9));  // 0 = unbounded
}

BOOST_AUTO_TEST_CASE(restart_takes_a_new_interval_from_now) {
    PassSchedule s(1.0, 0, 0.0);
    s.restart(5.0, 7.3);
    BOOST_TEST(s.next_s() == 7.3);
    BOOST_TEST(s.next_after(7.4) == 12.3);
}

BOOST_AUTO_TEST_SUITE_END()  // test_pass_schedule

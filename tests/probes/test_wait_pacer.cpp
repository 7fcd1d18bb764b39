#define BOOST_TEST_MODULE wait_pacer
#include <boost/test/unit_test.hpp>

#include "probes/wait_pacer.h"

using rh::WaitPacer;
using Clock = WaitPacer::Clock;

namespace {

std::chrono::microseconds idle_took(WaitPacer& p, Clock::time_point now) {
    const auto t0 = Clock::now();
    p.idle(now);
    return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t0);
}

}  // namespace

BOOST_AUTO_TEST_CASE(sleeps_only_once_the_spin_budget_is_spent_and_doubles_the_sleep) {
    WaitPacer p;
    const auto t0 = Clock::now();
    p.begin(t0);
    // Past the budget: each idle sleeps at least the current step (sleep_for never returns
    // early), 20 us then 40 us then 80 us, then stays at the 100 us cap.
    const auto late = t0 + WaitPacer::kSpinBudget + std::chrono::microseconds(1);
    BOOST_TEST(idle_took(p, late).count() >= 20);
    BOOST_TEST(idle_took(p, late).count() >= 40);
    BOOST_TEST(idle_took(p, late).count() >= 80);
    BOOST_TEST(idle_took(p, late).count() >= 100);
    // A new wait starts spinning again: begin() resets the step to the minimum, and within the
    // budget idle() only yields (not asserted as a duration: a yield may take long on a busy host).
    p.begin(Clock::now());
    p.idle(Clock::now());
    const auto late2 = Clock::now() + WaitPacer::kSpinBudget;
    BOOST_TEST(idle_took(p, late2).count() >= 20);
}

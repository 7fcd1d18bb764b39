// Stopping an acceptance run early (agent/accept_run/run_stop.h): SIGTERM and SIGINT only set the
// flag the stages look at (the process goes on to write its report), a second signal is not held
// back, and a stage's time limit sets the same flag — only when the stage outlives it.
#include <boost/test/unit_test.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "agent/accept_run/run_stop.h"

BOOST_AUTO_TEST_SUITE(test_accept_run_stop)

using namespace rh::accept;

BOOST_AUTO_TEST_CASE(sigterm_asks_the_run_to_stop_and_names_itself) {
    RunStop& stop = process_run_stop();
    stop.requested = false;
    stop.signal = 0;
    {
        const StopSignals signals;
        BOOST_TEST(::raise(SIGTERM) == 0);  // still running: the handler only set the flag
        BOOST_TEST(stop.requested.load());
        BOOST_TEST(signal_name(stop.signal.load()) == "SIGTERM");
    }
    stop.requested = false;
    stop.signal = 0;
    BOOST_TEST(signal_name(SIGINT) == "SIGINT");
}

BOOST_AUTO_TEST_CASE(a_second_signal_ends_the_process_at_once) {
    const pid_t child = ::fork();
    BOOST_TEST_REQUIRE(child >= 0);
    if (child == 0) {
        const StopSignals signals;
        ::raise(SIGINT);
        ::raise(SIGINT);  // default action: the child dies here
        ::_exit(0);
    }
    int status = 0;
    BOOST_TEST_REQUIRE(::waitpid(child, &status, 0) == child);
    BOOST_TEST(WIFSIGNALED(status));
    BOOST_TEST(WTERMSIG(status) == SIGINT);
}

BOOST_AUTO_TEST_CASE(a_stage_past_its_limit_is_asked_to_stop) {
    RunStop stop;
    const auto t0 = std::chrono::steady_clock::now();
    {
        const StageTimer timer(stop, 0.2);
        while (!stop.requested.load() &&
               std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5))
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        BOOST_TEST(timer.expired());
    }
    const double took_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    BOOST_TEST(stop.requested.load());
    BOOST_TEST(stop.signal.load() == 0);  // a time limit, not a signal
    BOOST_TEST(took_s >= 0.2);
    BOOST_TEST(took_s < 2.0);
}

BOOST_AUTO_TEST_CASE(a_stage_within_its_limit_is_left_alone) {
    RunStop stop;
    const auto t0 = std::chrono::steady_clock::now();
    {
        const StageTimer timer(stop, 30);
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        BOOST_TEST(!timer.expired());
    }  // the stage ended: the timer goes without waiting out its 30 s
    BOOST_TEST(!stop.requested.load());
    const bool quick = std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5);
    BOOST_TEST(quick);
}

BOOST_AUTO_TEST_SUITE_END()  // test_accept_run_stop

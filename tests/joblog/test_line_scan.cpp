// The stamp words the job and kernel log readers share (collectors/joblog/line_scan.h): month
// names as syslog, journalctl, ctime and the kernel print them, and the civil-day count each
// reader's local stamps are built on.
#include <boost/test/unit_test.hpp>

#include "collectors/joblog/line_scan.h"

BOOST_AUTO_TEST_SUITE(test_line_scan)

using namespace rh::joblog::scan;

BOOST_AUTO_TEST_CASE(month_words_in_any_case_and_nothing_else) {
    BOOST_TEST(*month_number("Jan") == 1u);
    BOOST_TEST(*month_number("JAN") == 1u);  // some syslog daemons and BMC logs shout
    BOOST_TEST(*month_number("dec") == 12u);
    BOOST_TEST(*month_number("Sep") == 9u);
    for (const char* no : {"", "Ja", "January", "anF", "Foo", "Sept", "ebM"})
        BOOST_TEST(!month_number(no), no);  // "anF", "ebM": across two names, not one
}

BOOST_AUTO_TEST_CASE(civil_days_and_ctime) {
    BOOST_TEST(days_from_civil(1970, 1, 1) == 0);
    BOOST_TEST(days_from_civil(2000, 3, 1) == 11017);  // after a leap day of a century year
    BOOST_TEST(days_from_civil(2026, 12, 5) == 20792);
    // mpirun --timestamp-output: "Sun Oct  1 ..." pads the day.
    BOOST_TEST(*ctime_stamp("Thu Oct  1 00:00:00 2026 rest") == 20727 * 86400.0);
    BOOST_TEST(!ctime_stamp("Thu Okt  1 00:00:00 2026"));
}

BOOST_AUTO_TEST_SUITE_END()

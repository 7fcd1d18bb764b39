// The ucx reader (collectors/joblog/ucx_log.cpp): one case per form the log has taken.
#include <boost/test/unit_test.hpp>

#include "collectors/joblog/job_logs.h"

BOOST_AUTO_TEST_SUITE(test_ucx_log)

BOOST_AUTO_TEST_CASE(placeholder_until_the_reader_lands) {
    std::vector<std::string> lines{"nothing here"};
    rh::joblog::LogRead out;
    rh::joblog::read_ucx({"t0", "x.log", lines}, out);
    BOOST_TEST(out.events.empty());
}

BOOST_AUTO_TEST_SUITE_END()

#include <boost/test/unit_test.hpp>

#include <cstdlib>

#include "probes/verbs/qp_timeout.h"

BOOST_AUTO_TEST_SUITE(test_qp_timeout)

using namespace rh;

BOOST_AUTO_TEST_CASE(accepts_the_ib_range) {
    BOOST_TEST(*parse_qp_timeout("1", "X") == 1u);
    BOOST_TEST(*parse_qp_timeout("18", "X") == 18u);
    BOOST_TEST(*parse_qp_timeout("31", "X") == 31u);
    BOOST_TEST(qp_timeout_ms(14) == 67.108864, boost::test_tools::tolerance(1e-9));
}

BOOST_AUTO_TEST_CASE(refuses_what_is_not_an_integer_1_to_31_naming_the_source) {
    for (const char* bad : {"", "0", "32", "-1", "abc", "18x", " 18", "999999999999"}) {
        auto r = parse_qp_timeout(bad, "ROCEHEALTH_QP_TIMEOUT");
        BOOST_REQUIRE_MESSAGE(!r, "accepted '" << bad << "'");
        const auto m = r.error().message();
        BOOST_TEST(m.find("ROCEHEALTH_QP_TIMEOUT") != std::string::npos, m);
        BOOST_TEST(m.find(std::string("'") + bad + "'") != std::string::npos, m);
        BOOST_TEST(m.find("1..31") != std::string::npos, m);
    }
}

BOOST_AUTO_TEST_CASE(environment_overrides_the_default) {
    ::unsetenv(kQpTimeoutEnv);
    BOOST_TEST(*configured_qp_timeout() == kQpTimeout);
    ::setenv(kQpTimeoutEnv, "18", 1);
    BOOST_TEST(*configured_qp_timeout() == 18u);
    ::setenv(kQpTimeoutEnv, "zero", 1);
    BOOST_TEST(!configured_qp_timeout());
    ::unsetenv(kQpTimeoutEnv);
}

BOOST_AUTO_TEST_SUITE_END()  // test_qp_timeout

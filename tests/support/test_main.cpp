// Boost.Test's main and master suite for every unit test executable (tests/CMakeLists.txt,
// rh_unit_group), compiled once; each test source is one suite (BOOST_AUTO_TEST_SUITE).
#define BOOST_TEST_MODULE rocehealth
#include <boost/test/unit_test.hpp>

#define BOOST_TEST_MODULE wc_status
#include <boost/test/unit_test.hpp>

#include "probes/wc_status.h"

using namespace rh;

BOOST_AUTO_TEST_CASE(names) {
    BOOST_TEST(wc_status_name(IBV_WC_SUCCESS) == "IBV_WC_SUCCESS");
    BOOST_TEST(wc_status_name(IBV_WC_RETRY_EXC_ERR) == "IBV_WC_RETRY_EXC_ERR");
    BOOST_TEST(wc_status_name(IBV_WC_RNR_RETRY_EXC_ERR) == "IBV_WC_RNR_RETRY_EXC_ERR");
    BOOST_TEST(wc_status_name(IBV_WC_REM_ACCESS_ERR) == "IBV_WC_REM_ACCESS_ERR");
    BOOST_TEST(wc_status_name(IBV_WC_WR_FLUSH_ERR) == "IBV_WC_WR_FLUSH_ERR");
    BOOST_TEST(wc_status_name(IBV_WC_GENERAL_ERR) == "IBV_WC_GENERAL_ERR");
    BOOST_TEST(wc_status_name(999) == "IBV_WC_999");
}

BOOST_AUTO_TEST_CASE(describe) {
    ibv_wc wc{};
    wc.status = IBV_WC_RETRY_EXC_ERR;
    wc.wr_id = 17;
    wc.vendor_err = 0x81;
    const auto s = describe_wc(wc);
    BOOST_TEST(s.find("IBV_WC_RETRY_EXC_ERR (") == 0u);
    BOOST_TEST(s.find(ibv_wc_status_str(IBV_WC_RETRY_EXC_ERR)) != std::string::npos);
    BOOST_TEST(s.find("wr_id 17") != std::string::npos);
    BOOST_TEST(s.find("vendor_err 0x81") != std::string::npos);
}

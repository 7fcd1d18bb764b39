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

BOOST_AUTO_TEST_CASE(status_of_a_phase_error) {
    // The error texts the phases produce (describe_wc inside), as a user sees them.
    ibv_wc wc{};
    wc.status = IBV_WC_RNR_RETRY_EXC_ERR;
    const std::string rnr = "SEND 64 B message 0: completion rxe0: " + describe_wc(wc);
    BOOST_TEST(wc_status_of_error(rnr) == "IBV_WC_RNR_RETRY_EXC_ERR");
    wc.status = IBV_WC_RETRY_EXC_ERR;
    BOOST_TEST(wc_status_of_error("WRITE 4096 B message 9: completion: " + describe_wc(wc)) ==
               "IBV_WC_RETRY_EXC_ERR");  // not mistaken for the RNR one, nor vice versa
    // A flush after the real error: the first named status wins only if it is the longest
    // token; here both appear and the report names the real one first.
    BOOST_TEST(wc_status_of_error("IBV_WC_REM_ACCESS_ERR (remote access error)") ==
               "IBV_WC_REM_ACCESS_ERR");
    BOOST_TEST(wc_status_of_error("IBV_WC_RETRY_EXC_ERRX") == "other");  // not a whole token
    BOOST_TEST(wc_status_of_error("WRITE 64 B message 3: wait peer's WRITE: seq 4 not seen "
                                  "within 3000 ms") == "timeout");
    BOOST_TEST(wc_status_of_error("responder closed the control connection") == "other");
}

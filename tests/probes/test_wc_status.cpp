#include <boost/test/unit_test.hpp>

#include "probes/verbs/wc_status.h"

BOOST_AUTO_TEST_SUITE(test_wc_status)

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

BOOST_AUTO_TEST_CASE(cause_of_a_failure_is_its_field_not_its_text) {
    // Set by RcConnection::poll / control_closed; the text may say anything.
    BOOST_TEST(cause_of(Error{"completion", "rxe0", 0, "IBV_WC_RETRY_EXC_ERR (...)",
                              "IBV_WC_RNR_RETRY_EXC_ERR"}) == "IBV_WC_RNR_RETRY_EXC_ERR");
    BOOST_TEST(cause_of(Error{"", "", 0, "responder closed the control connection",
                              kCausePeerClosed}) == "peer_closed");
    // A wait that expired: errno, whatever the words.
    BOOST_TEST(cause_of(Error{"wait", "peer's WRITE", ETIMEDOUT, "seq 4 not seen"}) == "timeout");
    // Text that names a status or a timeout does not make one.
    BOOST_TEST(cause_of(Error{"recv", "peer h-timeout-1", 0, "IBV_WC_RETRY_EXC_ERR"}) == "other");
}

BOOST_AUTO_TEST_CASE(status_a_peer_names_in_its_error_text) {
    // The responder's phase_done text (describe_wc inside), as a user sees it.
    ibv_wc wc{};
    wc.status = IBV_WC_RNR_RETRY_EXC_ERR;
    const std::string rnr = "SEND 64 B message 0: completion rxe0: " + describe_wc(wc);
    BOOST_TEST(wc_status_in_text(rnr) == "IBV_WC_RNR_RETRY_EXC_ERR");
    wc.status = IBV_WC_RETRY_EXC_ERR;
    BOOST_TEST(wc_status_in_text("WRITE 4096 B message 9: completion: " + describe_wc(wc)) ==
               "IBV_WC_RETRY_EXC_ERR");  // not mistaken for the RNR one, nor vice versa
    BOOST_TEST(wc_status_in_text("IBV_WC_REM_ACCESS_ERR (remote access error)") ==
               "IBV_WC_REM_ACCESS_ERR");
    BOOST_TEST(wc_status_in_text("IBV_WC_RETRY_EXC_ERRX") == "other");  // not a whole token
    BOOST_TEST(wc_status_in_text("wait peer's WRITE: seq 4 not seen within 3000 ms") == "other");
}

BOOST_AUTO_TEST_SUITE_END()  // test_wc_status

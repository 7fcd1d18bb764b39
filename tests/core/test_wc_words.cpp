// Status numbers and words come from rdma-core's headers: the names NCCL and perftest print map
// to the enum's numbers, and mlx5 syndromes to the status the provider reports.
#include <boost/test/unit_test.hpp>

#include "core/wc_status.h"

using namespace rh;

BOOST_AUTO_TEST_SUITE(test_wc_words)

BOOST_AUTO_TEST_CASE(retry_exceeded_by_number_name_words_and_syndrome) {
    BOOST_TEST(wc_status_words(12) == "transport retry counter exceeded");
    BOOST_TEST(wc_status_from_name("IBV_WC_RETRY_EXC_ERR").value() == 12);
    BOOST_TEST(wc_status_from_words("Transport Retry Counter Exceeded").value() == 12);
    BOOST_TEST(wc_status_of_mlx5_syndrome(0x15).value() == 12);
    BOOST_TEST(mlx5_syndrome_name(0x15) == "TRANSPORT_RETRY_EXC_ERR");
}

BOOST_AUTO_TEST_CASE(rnr_flush_and_unknown) {
    BOOST_TEST(wc_status_from_name("IBV_WC_RNR_RETRY_EXC_ERR").value() == 13);
    BOOST_TEST(wc_status_of_mlx5_syndrome(0x16).value() == 13);
    BOOST_TEST(wc_status_of_mlx5_syndrome(0x05).value() == 5);
    BOOST_TEST(wc_status_words(5) == "Work Request Flushed Error");
    BOOST_TEST(wc_status_words(999) == "unknown status 999");
    BOOST_TEST(!wc_status_from_name("IBV_WC_NOT_A_STATUS"));
    BOOST_TEST(!wc_status_from_words("retry"));
    BOOST_TEST(mlx5_syndrome_name(0x99).empty());
}

BOOST_AUTO_TEST_SUITE_END()

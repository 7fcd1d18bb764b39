#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "collectors/sources/aer.h"

BOOST_AUTO_TEST_SUITE(test_aer)

namespace fs = std::filesystem;

BOOST_AUTO_TEST_CASE(parse_names_with_spaces_and_totals) {
    const std::string text =
        "Receiver Error 2\n"
        "Bad TLP 0\n"
        "RELAY_NUM Rollover 0\n"
        "Replay Timer Timeout 1\n"
        "Corrected Internal Error 0\n"
        "TOTAL_ERR_COR 3\n";
    auto cs = rh::parse_aer(text, "aer_dev_correctable", "src");
    BOOST_TEST_REQUIRE(cs.size() == 6u);
    BOOST_TEST(cs[0].name == "aer_dev_correctable/Receiver Error");
    BOOST_TEST(*cs[0].value == 2u);
    BOOST_TEST(cs[3].name == "aer_dev_correctable/Replay Timer Timeout");
    BOOST_TEST(*cs[3].value == 1u);
    BOOST_TEST(cs[5].name == "aer_dev_correctable/TOTAL_ERR_COR");
    BOOST_TEST(*cs[5].value == 3u);
    BOOST_TEST(cs[0].source == "src");
}

BOOST_AUTO_TEST_CASE(parse_bad_lines_keep_name_and_say_why) {
    auto cs = rh::parse_aer("Undefined x\nlonely\n\n", "aer_dev_fatal", "s");
    BOOST_TEST_REQUIRE(cs.size() == 2u);
    BOOST_TEST(cs[0].name == "aer_dev_fatal/Undefined");
    BOOST_TEST(!cs[0].value.has_value());
    BOOST_TEST(!cs[0].error.empty());
    BOOST_TEST(cs[1].name == "aer_dev_fatal/lonely");
    BOOST_TEST(!cs[1].value.has_value());
}

BOOST_AUTO_TEST_CASE(read_from_sysfs_tree_absent_files_are_fine) {
    const fs::path root = fs::temp_directory_path() / ("rh_aer_" + std::to_string(getpid()));
    const std::string dev = "devices/pci0000:00/0000:00:01.0";
    fs::create_directories(root / dev);
    std::ofstream(root / dev / "aer_dev_nonfatal")
        << "Undefined 0\nCompletion Timeout 4\nTOTAL_ERR_NONFATAL 4\n";
    std::ofstream(root / dev / "aer_rootport_total_err_cor") << "7\n";
    rh::SysfsRoot sysfs(root);
    rh::PcieLink link;
    link.sysfs_path = dev;
    rh::read_aer(sysfs, link);
    BOOST_TEST_REQUIRE(link.aer.size() == 4u);
    BOOST_TEST(link.aer[1].name == "aer_dev_nonfatal/Completion Timeout");
    BOOST_TEST(*link.aer[1].value == 4u);
    BOOST_TEST(link.aer[3].name == "aer_rootport_total_err_cor");
    BOOST_TEST(*link.aer[3].value == 7u);

    rh::PcieLink none;
    none.sysfs_path = "devices/pci0000:00";
    rh::read_aer(sysfs, none);
    BOOST_TEST(none.aer.empty());
    fs::remove_all(root);
}

BOOST_AUTO_TEST_SUITE_END()  // test_aer

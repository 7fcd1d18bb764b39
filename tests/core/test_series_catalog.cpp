// core/series_catalog: the one list of series. Its rows are well formed, and the series table of
// store/README.md is the catalog rendered, so the docs cannot drift from what the code exports.
#include <boost/test/unit_test.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "core/series_catalog.h"

BOOST_AUTO_TEST_SUITE(test_series_catalog)

BOOST_AUTO_TEST_CASE(rows_are_well_formed_and_found_by_name) {
    const auto all = rh::series_catalog();
    BOOST_TEST_REQUIRE(all.size() > 40u);
    for (const rh::SeriesSpec& s : all) {
        BOOST_TEST_CONTEXT(s.name) {
            BOOST_TEST(rh::find_series(s.name) == &s);
            BOOST_TEST(!s.unit.empty());
            BOOST_TEST(!s.help.empty());
            BOOST_TEST(s.help.back() != '.');  // /metrics HELP: a phrase, the unit follows
            BOOST_TEST(!s.source.empty());
            // A _us series is stored in microseconds (/metrics converts it to seconds).
            if (s.name.ends_with("_us")) BOOST_TEST(s.unit == "us");
            if (s.origin == rh::SeriesOrigin::drivers) {
                BOOST_TEST((s.kind == rh::SeriesKind::counter));
                BOOST_TEST(s.labels.starts_with("device,port,netdev"));
            }
        }
    }
    BOOST_TEST(rh::find_series("pfc_pause_frame") == nullptr);
    BOOST_TEST(rh::find_series("") == nullptr);
}

BOOST_AUTO_TEST_CASE(store_readme_table_is_the_catalog) {
    const std::string path = std::string(RH_SOURCE_DIR) + "/store/README.md";
    std::ifstream in(path);
    BOOST_TEST_REQUIRE(in.good(), path);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    const std::string begin = "<!-- series catalog: generated from core/series_catalog.cpp";
    const std::string end = "<!-- end of series catalog -->";
    const auto b = text.find(begin);
    BOOST_TEST_REQUIRE(b != std::string::npos, path << " has no series catalog marker");
    const auto body = text.find('\n', b) + 1;
    const auto e = text.find(end, body);
    BOOST_TEST_REQUIRE(e != std::string::npos, path << " has no end-of-catalog marker");
    const std::string expected = rh::series_catalog_markdown();
    BOOST_TEST(text.substr(body, e - body) == expected,
               path << ": the series table differs from core/series_catalog.cpp; paste this "
                       "between the markers:\n"
                    << expected);
}

BOOST_AUTO_TEST_SUITE_END()

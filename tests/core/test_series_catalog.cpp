// core/series_catalog: the one list of series. Its rows are well formed, and the series table of
// store/README.md is the catalog rendered, so the docs cannot drift from what the code exports.
#include <boost/test/unit_test.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "core/host_facts.h"
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

// The series the agent writes from its inventory are catalog rows too, but not stored: rules
// cannot name them and the store's table leaves them out.
BOOST_AUTO_TEST_CASE(agent_series_are_exported_not_stored) {
    for (const char* name :
         {"host_info", "netdev_mtu_bytes", "port_active_mtu_bytes", "port_trust_info"}) {
        const rh::SeriesSpec* s = rh::find_series(name);
        BOOST_TEST_REQUIRE(s != nullptr, name);
        BOOST_TEST(!rh::is_stored(*s), name);
        BOOST_TEST(s->exported == "rocehealth_" + std::string(name));
        BOOST_TEST(rh::series_catalog_markdown().find("`" + std::string(name) + "`") ==
                   std::string::npos);
    }
    BOOST_TEST(rh::is_stored(*rh::find_series("pfc_enabled")));
}

// Each fact `rocehealth fabric` judges for drift is read from a catalog series, and each one
// the diagnose rule compares must match in accept too.
BOOST_AUTO_TEST_CASE(host_facts_name_catalog_series) {
    std::size_t drift = 0, diagnose = 0;
    for (const rh::HostFact& f : rh::host_facts()) {
        BOOST_TEST_CONTEXT(f.key) {
            BOOST_TEST(&rh::host_fact(f.id) == &f);
            if (!f.series.empty()) {
                ++drift;
                BOOST_TEST(rh::find_series(f.series) != nullptr);
            }
            if (!f.label.empty()) {
                ++diagnose;
                BOOST_TEST(f.must_match);
            }
        }
    }
    BOOST_TEST(drift == 4u);     // netdev MTU, active_mtu, PFC, trust
    BOOST_TEST(diagnose == 5u);  // ... and ECN
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

// A capture's `timestamp` file as people write it (collectors/bundle/parse_timestamp.h): the
// time must come out the same UTC second whichever way `date` was asked, and a time that
// cannot be placed on the UTC axis must be refused by name, never guessed.
#include <boost/test/unit_test.hpp>

#include "collectors/bundle/parse_timestamp.h"

BOOST_AUTO_TEST_SUITE(test_parse_timestamp)

using rh::bundle::parse_timestamp_text;

namespace {
constexpr double kThu3Dec2026_074239 = 1796283759;  // date -u -d '2026-12-03 07:42:39' +%s
}

BOOST_AUTO_TEST_CASE(every_date_form_gives_the_same_utc_second) {
    for (const char* text :
         {"1796283759", "1796283759\n", "Thu Dec  3 07:42:39 UTC 2026",
          "Thu Dec  3 07:42:39 UTC 2026\r\n", "Dec 3 07:42:39 GMT 2026",
          "Thu Dec  3 08:42:39 +0100 2026", "2026-12-03T07:42:39+00:00",
          "2026-12-03T09:42:39+02:00", "2026-12-03 07:42:39Z", "2026-12-03T07:42:39.123456Z",
          "[root@gpu07 ~]# date -u\nThu Dec  3 07:42:39 UTC 2026", "$ date +%s\n1796283759\n"}) {
        const auto t = parse_timestamp_text(text);
        BOOST_TEST_CONTEXT(text) {
            BOOST_REQUIRE(t.ok());
            BOOST_TEST(*t == kThu3Dec2026_074239);
        }
    }
    const auto frac = parse_timestamp_text("1796283759.25");
    BOOST_REQUIRE(frac.ok());
    BOOST_TEST(*frac == kThu3Dec2026_074239 + 0.25);
}

BOOST_AUTO_TEST_CASE(times_that_cannot_be_placed_are_refused_by_name) {
    const auto named_zone = parse_timestamp_text("Thu Dec  3 01:42:39 CST 2026");
    BOOST_REQUIRE(!named_zone.ok());
    BOOST_TEST(named_zone.error().detail.find("'CST'") != std::string::npos);
    BOOST_TEST(named_zone.error().detail.find("date -u") != std::string::npos);
    const auto no_zone = parse_timestamp_text("2026-12-03T07:42:39");
    BOOST_REQUIRE(!no_zone.ok());
    BOOST_TEST(no_zone.error().detail.find("without a zone") != std::string::npos);
    // Found by fuzz_bundle: 17644000008 s overflowed std::chrono's nanoseconds downstream.
    for (const char* text :
         {"17644000008", "2300-01-01T00:00:00Z", "Thu Dec  3 07:42:39 UTC 2300"}) {
        BOOST_TEST_CONTEXT(text) {
            const auto t = parse_timestamp_text(text);
            BOOST_REQUIRE(!t.ok());
            BOOST_TEST(t.error().detail.find("1970..2200") != std::string::npos);
        }
    }
    for (const char* text :
         {"", "\n\n", "nan", "inf", "yesterday", "-5", "Thu Dec 33 07:42:39 UTC 2026",
          "Thu Foo  3 07:42:39 UTC 2026", "2026-13-03T07:42:39Z", "Thu Dec  3 25:42:39 UTC 2026"}) {
        BOOST_TEST_CONTEXT(text) {
            BOOST_TEST(!parse_timestamp_text(text).ok());
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()  // test_parse_timestamp

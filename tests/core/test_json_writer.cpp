// JsonWriter (core/json_writer.h) prints what nlohmann::json's dump prints for the same values:
// the inventory JSON is written with it and must stay byte-identical to the tree dump it
// replaced (snapshot --json, recordings' inventory samples, golden outputs).
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "core/json_writer.h"

BOOST_AUTO_TEST_SUITE(test_json_writer)

using nlohmann::json;

namespace {

std::string written(const std::string& s) {
    rh::JsonWriter w;
    w.string(s);
    return w.take();
}

template <typename T>
std::string written_number(T v) {
    rh::JsonWriter w;
    w.number(v);
    return w.take();
}

/// Writes {"a": [..values..], "b": {}, "c": [], "d": {"x": null, "y": true}} through the writer.
std::string nested(int indent) {
    rh::JsonWriter w(indent);
    w.begin_object();
    w.key("a");
    w.begin_array();
    w.number(std::uint64_t{1});
    w.string("two");
    w.begin_array();
    w.end_array();
    w.end_array();
    w.key("b");
    w.begin_object();
    w.end_object();
    w.key("c");
    w.begin_array();
    w.end_array();
    w.key("d");
    w.begin_object();
    w.key("x");
    w.null();
    w.key("y");
    w.boolean(true);
    w.end_object();
    w.end_object();
    return w.take();
}

}  // namespace

BOOST_AUTO_TEST_CASE(strings_escape_as_nlohmann_dump_does) {
    std::string every_control;
    for (int c = 0; c < 0x20; ++c) every_control.push_back(static_cast<char>(c));
    for (const std::string& s :
         {std::string{}, std::string("plain"), std::string("say \"hi\""), std::string("C:\\path\\"),
          every_control,
          std::string("a\x7f"
                      "b/c"),
          std::string("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf"),
          std::string("\\\"\n\"\\"), std::string(1, '\0') + "x"}) {
        BOOST_TEST(written(s) == json(s).dump(), "for " << json(s).dump());
    }
}

// Plain text is checked 8 bytes at a time: a byte to escape (or a UTF-8 sequence) at every
// offset of strings around that width is still found.
BOOST_AUTO_TEST_CASE(escapes_are_found_at_every_offset_of_long_strings) {
    for (const std::string& special :
         {std::string("\""), std::string("\\"), std::string("\n"), std::string(1, '\0'),
          std::string("\x1f"), std::string("\xc3\xa9"), std::string("\x7f")}) {
        for (std::size_t len = 0; len < 20; ++len) {
            for (std::size_t at = 0; at <= len; ++at) {
                std::string s(len, 'a');
                s.insert(at, special);
                BOOST_TEST(written(s) == json(s).dump(), "for " << json(s).dump());
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(invalid_utf8_becomes_replacement_character_and_stays_valid_json) {
    // Lone continuation byte, overlong '/', a surrogate (U+D800), above U+10FFFF, truncated.
    for (const std::string& bad :
         {std::string("a\x80z"), std::string("\xc0\xaf"), std::string("\xed\xa0\x80"),
          std::string("\xf4\x90\x80\x80"), std::string("end\xe2\x82")}) {
        const std::string out = written(bad);
        const json back = json::parse(out);  // throws if the text is not valid JSON
        BOOST_TEST(back.get<std::string>().find("\xef\xbf\xbd") != std::string::npos, out);
    }
    BOOST_TEST(written("a\x80z") == "\"a\xef\xbf\xbdz\"");
}

BOOST_AUTO_TEST_CASE(numbers_are_exact_and_print_as_nlohmann_does) {
    const auto u64max = std::numeric_limits<std::uint64_t>::max();
    BOOST_TEST(written_number(u64max) == "18446744073709551615");
    BOOST_TEST(written_number(u64max) == json(u64max).dump());
    BOOST_TEST(written_number(u64max - 1) == json(u64max - 1).dump());  // not a double
    BOOST_TEST(written_number(std::numeric_limits<std::int64_t>::min()) ==
               json(std::numeric_limits<std::int64_t>::min()).dump());
    BOOST_TEST(written_number(-1) == "-1");
    BOOST_TEST(written_number(std::uint8_t{255}) == json(std::uint8_t{255}).dump());
    BOOST_TEST(written_number(0u) == "0");
    for (double d : {8.0, 2.5, 16.0, 0.1, 1e-7, 1e20, 123456789012345680.0, -0.0, 5e-324,
                     std::numeric_limits<double>::max()})
        BOOST_TEST(written_number(d) == json(d).dump(), "for " << d);
    BOOST_TEST(written_number(8.0) == "8.0");
    BOOST_TEST(written_number(std::nan("")) == "null");
    BOOST_TEST(written_number(std::numeric_limits<double>::infinity()) == "null");
}

BOOST_AUTO_TEST_CASE(layout_matches_dump_compact_and_indented) {
    const json tree = {{"a", {1, "two", json::array()}},
                       {"b", json::object()},
                       {"c", json::array()},
                       {"d", {{"x", nullptr}, {"y", true}}}};
    BOOST_TEST(nested(-1) == tree.dump());
    BOOST_TEST(nested(0) == tree.dump(0));
    BOOST_TEST(nested(2) == tree.dump(2));
    BOOST_TEST(nested(4) == tree.dump(4));
}

BOOST_AUTO_TEST_CASE(misuse_throws_instead_of_writing_other_json) {
    rh::JsonWriter w;
    w.begin_object();
    w.key("b");
    w.null();
    BOOST_CHECK_THROW(w.key("a"), std::logic_error);  // std::map order: "a" before "b"
    BOOST_CHECK_THROW(w.key("b"), std::logic_error);  // repeated
    BOOST_CHECK_THROW(w.null(), std::logic_error);    // a value without its key
    BOOST_CHECK_THROW(w.end_array(), std::logic_error);
    w.key("c");
    BOOST_CHECK_THROW(w.end_object(), std::logic_error);  // key without a value
}

BOOST_AUTO_TEST_SUITE_END()  // test_json_writer

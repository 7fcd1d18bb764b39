// core/json/json_reader: the one strict JSON reader. What a person sees: every problem in a
// document at once, each naming its JSON path (and the document), ranges and unknown keys said
// in words, and a parse error with its line and column.
#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

#include "core/json/json_reader.h"

BOOST_AUTO_TEST_SUITE(test_json_reader)

using nlohmann::json;
using rh::JsonErrors;
using rh::JsonReader;

namespace {

/// A rules-like document with one problem in each of three places.
const json kRules = json::parse(R"({
  "rules": [
    {"name": "a", "for": 300, "severity": "warning"},
    {"name": "b", "for": "5m", "severity": "warning"},
    {"name": "c", "for": 60, "severity": "fatal", "sevrity": "error"}
  ],
  "version": 1
})");

/// Reads kRules the way a rules loader would and returns the errors.
JsonErrors read_rules() {
    JsonErrors errors;
    errors.document = "rules.json";
    const JsonReader root(kRules, "", errors);
    root.expect_object();
    root.opt_int_in("version", 1, 1);
    root.each("rules", true, [&](const JsonReader& r) {
        r.req_string("name");
        r.opt_number_in("for", 0, 86400, "seconds");
        r.req_enum("severity", {"info", "warning", "error"});
        r.refuse_unknown();
    });
    root.refuse_unknown();
    return errors;
}

}  // namespace

BOOST_AUTO_TEST_CASE(collects_every_error_with_its_path) {
    const JsonErrors errors = read_rules();
    const std::vector<std::string> want = {
        R"(rules[1].for: expected a number, got a string ("5m"))",
        R"(rules[2].severity: expected one of info, warning, error, got a string ("fatal"))",
        "rules[2].sevrity: unknown field",
    };
    BOOST_TEST(errors.lines() == want, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(the_error_names_the_document_and_every_line) {
    const std::string msg = read_rules().error("load rules").message();
    BOOST_TEST(msg.rfind("load rules rules.json: rules[1].for: ", 0) == 0, msg);
    BOOST_TEST(msg.find("\n  rules[2].sevrity: unknown field") != std::string::npos, msg);
}

BOOST_AUTO_TEST_CASE(ranges_are_checked_and_said_with_their_unit) {
    JsonErrors errors;
    const json j = {{"max_threads", 0}, {"interval_s", 0.01}, {"port", 65535}, {"n", 2.5}};
    const JsonReader r(j, "http", errors);
    BOOST_TEST(!r.opt_int_in("max_threads", 1, 64).has_value());
    BOOST_TEST(!r.opt_number_in("interval_s", 0.1, 3600, "seconds").has_value());
    BOOST_TEST(*r.opt_int_in("port", 1, 65535) == 65535);  // the bound itself is inside
    BOOST_TEST(!r.opt_int_in("n", 0, 10).has_value());     // 2.5 is not a whole number
    const std::vector<std::string> want = {
        "http.max_threads: expected a whole number from 1 to 64, got 0",
        "http.interval_s: expected a number from 0.1 to 3600 seconds, got 0.01",
        "http.n: expected a whole number from 0 to 10, got a number (2.5)",
    };
    BOOST_TEST(errors.lines() == want, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(missing_required_and_absent_optional_fields) {
    JsonErrors errors;
    const json j = {{"present", true}};
    const JsonReader r(j, "", errors);
    BOOST_TEST(r.req_bool("present"));
    BOOST_TEST(r.opt_bool("absent", true));          // the fallback, no error
    BOOST_TEST(!r.opt_uint("absent2").has_value());  // unknown stays unknown, not 0
    BOOST_TEST(r.req_string("name").empty());
    BOOST_TEST(r.req_uint("count") == 0u);
    const std::vector<std::string> want = {"name: missing (expected a string)",
                                           "count: expected a whole number >= 0, got nothing"};
    BOOST_TEST(errors.lines() == want, boost::test_tools::per_element());
    r.refuse_unknown();  // everything present was read
    BOOST_TEST(errors.size() == 2u);
}

BOOST_AUTO_TEST_CASE(unknown_keys_only_where_the_caller_asks) {
    JsonErrors errors;
    const json j = {{"a", 1}, {"b", {{"x", 1}, {"y", 2}}}, {"comment", "free text"}};
    const JsonReader r(j, "", errors);
    r.opt_int("a");
    r.allow("comment");
    const auto b = r.opt_object("b");
    BOOST_REQUIRE(b.has_value());
    b->opt_int("x");  // b is not checked for unknown keys: y passes
    r.refuse_unknown();
    BOOST_TEST(errors.empty());
    b->refuse_unknown();
    BOOST_REQUIRE(errors.size() == 1u);
    BOOST_TEST(errors.list[0].text() == "b.y: unknown field");
    JsonErrors listed;
    JsonReader(j, "", listed).refuse_unknown({"a", "b"});
    BOOST_REQUIRE(listed.size() == 1u);
    BOOST_TEST(listed.list[0].text() == "comment: unknown field (expected one of a, b)");
}

BOOST_AUTO_TEST_CASE(a_parse_error_names_file_line_and_column) {
    JsonErrors errors;
    const auto j = rh::parse_json_document("{\n  \"a\": 1,\n  \"a\": 2\n}", "agent.json", errors);
    BOOST_TEST(!j.has_value());
    BOOST_REQUIRE(errors.size() == 1u);
    BOOST_TEST(errors.document == "agent.json");
    BOOST_TEST(errors.list[0].text() == "duplicate key a (each key once per object)");
    JsonErrors syntax;
    BOOST_TEST(!rh::parse_json_document("{\"a\": [1,\n 2,, 3]}", "x.json", syntax));
    const std::string msg = syntax.error("config").message();
    BOOST_TEST(msg.find("config x.json: not valid JSON at line 2, column 4 (a[2])") == 0, msg);
}

BOOST_AUTO_TEST_CASE(long_values_from_the_network_are_cut_in_messages) {
    JsonErrors errors;
    const json j = {{"s", std::string(500, 'x')}};
    JsonReader(j, "", errors).req_bool("s");
    BOOST_REQUIRE(errors.size() == 1u);
    BOOST_TEST(errors.list[0].message.size() < 100u, errors.list[0].message);
    BOOST_TEST(errors.list[0].message.find("...") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()

// core/json_file: the strict JSON reader every config-like file goes through. What a person
// sees: a key given twice, a syntax error or an out-of-range number is an error naming the file,
// the key path and (for parse errors) the line and column; a valid document parses unchanged.
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>

#include "core/json_file.h"

BOOST_AUTO_TEST_SUITE(test_json_file)

namespace {

/// The error message for `text`; fails the test when it parses.
std::string error_of(const std::string& text) {
    const auto r = rh::parse_json_text(text, "agent.json", "config");
    BOOST_REQUIRE_MESSAGE(!r.ok(), "expected an error for " + text);
    return r.error().message();
}

}  // namespace

BOOST_AUTO_TEST_CASE(valid_documents_parse_as_nlohmann_would) {
    const std::string text =
        R"({"a": 1, "b": {"a": [1, {"a": 2}, {"a": 3}]}, "c": [{"x": 1}, {"x": 2}], "d": 1e300})";
    const auto r = rh::parse_json_text(text, "agent.json", "config");
    BOOST_REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message()));
    BOOST_TEST(*r == nlohmann::json::parse(text));  // the same key in other objects is fine
}

BOOST_AUTO_TEST_CASE(duplicate_keys_are_errors_naming_file_and_path) {
    BOOST_TEST(error_of(R"({"host": "a", "host": "b"})") ==
               "config agent.json: duplicate key host (each key once per object)");
    BOOST_TEST(error_of(R"({"http": {"listen": "127.0.0.1:1", "listen": "0.0.0.0:1"}})") ==
               "config agent.json: duplicate key http.listen (each key once per object)");
    const std::string nested = error_of(
        R"({"rules": [{}, {}, {}, {"when": {"any": [{"window_s": 10, "window_s": 0}]}}]})");
    BOOST_TEST(nested.find("duplicate key rules[3].when.any[0].window_s") != std::string::npos,
               nested);
}

BOOST_AUTO_TEST_CASE(out_of_range_numbers_name_line_column_and_field) {
    // nlohmann says only "number overflow parsing '1e400'": where is added.
    BOOST_TEST(error_of("{\"host\": \"a\",\n \"collect_interval_s\": 1e400}") ==
               "config agent.json: not valid JSON at line 2, column 28 (collect_interval_s): "
               "number overflow parsing '1e400'");
    BOOST_TEST(error_of(R"({"mesh": {"sizes_bytes": [64, -1e999]}})")
                   .find("(mesh.sizes_bytes[1]): number overflow parsing '-1e999'") !=
               std::string::npos);
}

BOOST_AUTO_TEST_CASE(syntax_errors_say_where_once) {
    const std::string m = error_of("{\"host\": ");
    BOOST_TEST(m.find("config agent.json: not valid JSON at line 1, column 10 (host): ") == 0u, m);
    BOOST_TEST(m.find("unexpected end of input") != std::string::npos, m);
    BOOST_TEST(m.find("json.exception") == std::string::npos, m);
    // nlohmann's own line and column for the same errors (it counts the end of input as one
    // more character): ours agree.
    const auto nlohmann_parse = [](const char* text) { return nlohmann::json::parse(text).size(); };
    BOOST_CHECK_EXCEPTION(
        nlohmann_parse("{\"host\": "), nlohmann::json::parse_error, [](const auto& e) {
            return std::string(e.what()).find("line 1, column 10") != std::string::npos;
        });
    const char* second_line = "{\"a\": 1,\n  \"b\": x}";
    BOOST_CHECK_EXCEPTION(
        nlohmann_parse(second_line), nlohmann::json::parse_error, [](const auto& e) {
            return std::string(e.what()).find("line 2, column 8") != std::string::npos;
        });
    BOOST_TEST(error_of(second_line).find("not valid JSON at line 2, column 8 (b): ") !=
               std::string::npos);
}

BOOST_AUTO_TEST_CASE(deep_nesting_is_refused_before_it_is_built) {
    // A peer's 300,000-level frame overflowed the stack of whatever recursed over it.
    const std::size_t n = 300000;
    const std::string deep =
        R"({"cmd":"stream_open","op":)" + std::string(n, '[') + std::string(n, ']') + "}";
    const std::string e = error_of(deep);
    BOOST_TEST(e.find(": nested deeper than 64 levels at op[0][0]") != std::string::npos, e);
    // The limit itself is accepted: 63 arrays inside the top object.
    const std::string at_limit = R"({"a":)" + std::string(63, '[') + std::string(63, ']') + "}";
    BOOST_TEST(rh::parse_json_text(at_limit, "frame", "decode").ok());
    BOOST_TEST(error_of(std::string(65, '[') + std::string(65, ']')).find("nested deeper") !=
               std::string::npos);
}

BOOST_AUTO_TEST_CASE(files_are_named_and_read) {
    const auto p = std::filesystem::temp_directory_path() /
                   ("rh_json_file_" + std::to_string(getpid()) + ".json");
    std::ofstream(p) << "{\n  \"a\": 1,\n  \"a\": 2\n}\n";
    const auto dup = rh::read_json_file(p.string(), "load rules");
    BOOST_REQUIRE(!dup.ok());
    BOOST_TEST(dup.error().message() ==
               "load rules " + p.string() + ": duplicate key a (each key once per object)");
    std::ofstream(p) << R"({"a": [1, 2]})";
    const auto good = rh::read_json_file(p.string(), "load rules");
    BOOST_REQUIRE(good.ok());
    BOOST_TEST(good->at("a").size() == 2u);
    std::filesystem::remove(p);
    const auto missing = rh::read_json_file(p.string(), "load rules");
    BOOST_REQUIRE(!missing.ok());
    BOOST_TEST(missing.error().message().find(p.string() + ": No such file or directory") !=
               std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()  // test_json_file

// The command table (agent/cli/commands.h): `rocehealth --help` lists every command once, and
// each listed command answers `--help` with its own usage and exit 0 — a row whose entry point
// belongs to another command, or a command missing from the table, fails here.
#include <boost/test/unit_test.hpp>

#include <iostream>
#include <set>
#include <sstream>
#include <string>

#include "agent/cli/commands.h"

BOOST_AUTO_TEST_SUITE(test_command_table)

using namespace rh::cli;

namespace {

/// Runs `c` with `args`, stdout captured; returns the exit code.
int run_captured(const Command& c, const std::vector<std::string>& args, std::string& out) {
    std::ostringstream captured;
    std::streambuf* const saved = std::cout.rdbuf(captured.rdbuf());
    const int rc = c.run(args);
    std::cout.rdbuf(saved);
    out = captured.str();
    return rc;
}

}  // namespace

BOOST_AUTO_TEST_CASE(names_unique_with_help) {
    std::set<std::string> names;
    for (const auto& c : command_table()) {
        BOOST_TEST(names.insert(c.name).second, c.name);
        BOOST_TEST(std::string(c.help).size() > 10u, c.name);
        BOOST_TEST(c.run != nullptr, c.name);
    }
    for (const char* expected : {"snapshot", "check", "probe", "responder", "record", "diagnose",
                                 "agent", "incast", "mesh", "accept", "keygen", "fabric", "rules"})
        BOOST_TEST(names.count(expected) == 1u, expected);
}

BOOST_AUTO_TEST_CASE(each_command_answers_help_with_its_usage) {
    for (const auto& c : command_table()) {
        std::string out;
        BOOST_TEST(run_captured(c, {"--help"}, out) == rh::kExitOk, c.name);
        // "usage: rocehealth NAME ..." (rules: "usage: rocehealth rules check FILE...").
        BOOST_TEST(out.rfind(std::string("usage: rocehealth ") + c.name, 0) == 0u,
                   c.name << ": " << out.substr(0, 80));
    }
}

BOOST_AUTO_TEST_CASE(unknown_command_is_exit_2) {
    char prog[] = "rocehealth", bogus[] = "no-such-command";
    char* argv[] = {prog, bogus, nullptr};
    BOOST_TEST(dispatch(2, argv) == rh::kExitCannotRun);
    char help[] = "--help";
    char* argv_help[] = {prog, help, nullptr};
    BOOST_TEST(dispatch(2, argv_help) == rh::kExitOk);
}

BOOST_AUTO_TEST_SUITE_END()

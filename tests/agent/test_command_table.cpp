// The command table (agent/cli/commands.h): `rocehealth --help` lists every command once, and
// each listed command answers `--help` with its own usage and exit 0 — a row whose entry point
// belongs to another command, or a command missing from the table, fails here.
#include <boost/test/unit_test.hpp>

#include <cctype>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

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

namespace {

/// The long options a `--help` lists in its options section ("  --peer arg", "  -v [ --verbose
/// ]"), without --help.
std::set<std::string> options_in_help(const std::string& help) {
    std::set<std::string> out;
    std::istringstream in(help.substr(std::min(help.find("\noptions:"), help.size())));
    for (std::string line; std::getline(in, line);) {
        if (line.size() < 3 || line[0] != ' ' || line[1] != ' ' || line[2] != '-') continue;
        const auto at = line.find("--");
        if (at == std::string::npos) continue;
        const auto end = line.find_first_of(" ]", at);
        const std::string name = line.substr(at, end - at);
        if (name != "--help") out.insert(name);
    }
    return out;
}

/// The command table of README.md: the rows of `command` ("| `probe PEER..." and, for accept,
/// "| `accept --render DIR`"), joined.
std::string readme_rows(const std::string& command) {
    std::ifstream in(std::string(RH_SOURCE_DIR) + "/README.md");
    BOOST_TEST_REQUIRE(static_cast<bool>(in), "README.md");
    std::string rows;
    for (std::string line; std::getline(in, line);)
        if (line.rfind("| `" + command + " ", 0) == 0 || line.rfind("| `" + command + "`", 0) == 0)
            rows += line + "\n";
    return rows;
}

}  // namespace

// The README's command table is what a new user reads first: every option `--help` lists must
// be in its row (a table that omitted --live-interval, --rnr-retry, ... sent users to --help to
// find them). Options that stand for a positional argument the row already shows are named
// below with it.
BOOST_AUTO_TEST_CASE(readme_command_table_lists_every_option_of_help) {
    const std::map<std::string, std::string> positional = {{"probe --peer", "PEER[:PORT]"},
                                                           {"rules check --file", "FILE..."},
                                                           {"rules test --dir", "DIR..."}};
    for (const auto& c : command_table()) {
        std::vector<std::pair<std::string, std::vector<std::string>>> forms;  // row, args
        if (std::string(c.name) == "rules")
            forms = {{"rules check", {"check", "--help"}}, {"rules test", {"test", "--help"}}};
        else
            forms = {{c.name, {"--help"}}};
        for (const auto& [row, args] : forms) {
            BOOST_TEST_CONTEXT(row) {
                std::string help;
                BOOST_TEST(run_captured(c, args, help) == rh::kExitOk);
                const std::string rows = readme_rows(row);
                BOOST_TEST_REQUIRE(!rows.empty(), "no row for it in README.md's command table");
                for (const std::string& option : options_in_help(help)) {
                    const auto pos = positional.find(row + " " + option);
                    const std::string want = pos != positional.end() ? pos->second : option;
                    // As a whole word: --interval must not pass for --live-interval.
                    bool found = false;
                    for (auto at = rows.find(want); at != std::string::npos && !found;
                         at = rows.find(want, at + 1)) {
                        const char before = at ? rows[at - 1] : ' ';
                        const char after =
                            at + want.size() < rows.size() ? rows[at + want.size()] : ' ';
                        found = !std::isalnum(static_cast<unsigned char>(before)) &&
                                before != '-' && !std::isalnum(static_cast<unsigned char>(after)) &&
                                after != '-';
                    }
                    BOOST_TEST(found, row << ": " << want << " is in --help, not in README.md");
                }
            }
        }
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

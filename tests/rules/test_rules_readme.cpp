// rules/README.md's rule tables against the rules that exist: every rule of the shipped rules
// file, every inventory check (rules/registry.cpp) and every log rule (rules/joblog) is listed
// under its id with its severity, every listed id exists, and every check outcome a rules file
// may escalate on is in the outcome table. A user reads the README to learn what a finding's
// `rule` means; a rule missing there, or a row for a rule renamed away, misleads them.
#include <boost/test/unit_test.hpp>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "rules/engine/rule_spec.h"
#include "rules/joblog/log_rule_ids.h"
#include "rules/rule.h"

using namespace rh;

namespace {

struct Row {
    std::vector<std::string> cells;  ///< trimmed, backticks kept
};

/// The rows of every Markdown table of `md` whose header's first two cells are `a` and `b`.
std::vector<Row> table_rows(const std::string& md, const std::string& a, const std::string& b) {
    std::vector<Row> rows;
    std::istringstream in(md);
    std::string line;
    bool inside = false;
    while (std::getline(in, line)) {
        if (line.rfind('|', 0) != 0) {
            inside = false;
            continue;
        }
        std::vector<std::string> cells;
        std::string cell;
        std::istringstream cs(line.substr(1));
        while (std::getline(cs, cell, '|')) {
            const auto f = cell.find_first_not_of(' ');
            const auto l = cell.find_last_not_of(' ');
            cells.push_back(f == std::string::npos ? "" : cell.substr(f, l - f + 1));
        }
        if (cells.size() >= 2 && cells[0] == a && cells[1] == b) {
            inside = true;
            continue;
        }
        if (inside && !cells.empty() && cells[0].rfind("---", 0) != 0) rows.push_back({cells});
    }
    return rows;
}

std::string unquote(const std::string& cell) {
    if (cell.size() >= 2 && cell.front() == '`' && cell.back() == '`')
        return cell.substr(1, cell.size() - 2);
    return cell;
}

std::string readme() {
    std::ifstream f(std::string(RH_SOURCE_DIR) + "/rules/README.md");
    BOOST_REQUIRE_MESSAGE(f, "rules/README.md not readable");
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(test_rules_readme)

BOOST_AUTO_TEST_CASE(every_rule_is_listed_and_every_listed_rule_exists) {
    const std::string md = readme();
    std::map<std::string, std::string> listed;  // id -> severity cell
    for (const Row& r : table_rows(md, "rule", "severity"))
        if (r.cells.size() >= 3) listed[unquote(r.cells[0])] = r.cells[1];

    std::set<std::string> actual;
    const auto shipped =
        load_rules_file(std::string(RH_SOURCE_DIR) + "/rules/rocehealth-rules.json");
    BOOST_REQUIRE_MESSAGE(shipped.ok(), "shipped rules file does not load");
    for (const RuleSpec& r : shipped.value().rules) actual.insert(r.id);
    for (const RuleDef& c : all_checks()) actual.insert(c.id);
    for (const LogRuleDef& l : log_rule_defs()) {
        actual.insert(l.id);
        const auto it = listed.find(l.id);
        if (it != listed.end())
            BOOST_CHECK_MESSAGE(it->second.rfind(to_string(l.severity), 0) == 0,
                                "rules/README.md lists " << l.id << " as '" << it->second
                                                         << "', the code opens it at "
                                                         << to_string(l.severity));
    }
    for (const std::string& id : actual)
        BOOST_CHECK_MESSAGE(listed.count(id),
                            "rule " << id << " is not in rules/README.md's tables");
    for (const auto& [id, sev] : listed)
        BOOST_CHECK_MESSAGE(actual.count(id),
                            "rules/README.md lists " << id << ", which no rule has");
}

BOOST_AUTO_TEST_CASE(every_check_outcome_is_listed) {
    std::set<std::pair<std::string, std::string>> listed;
    for (const Row& r : table_rows(readme(), "check", "outcome"))
        if (r.cells.size() >= 2) listed.insert({unquote(r.cells[0]), unquote(r.cells[1])});
    std::set<std::pair<std::string, std::string>> actual;
    for (const RuleDef& c : all_checks())
        for (const CheckOutcome& o : c.outcomes) actual.insert({c.id, o.id});
    BOOST_CHECK(listed == actual);
}

BOOST_AUTO_TEST_CASE(an_undocumented_log_rule_id_is_a_programming_error) {
    BOOST_CHECK_THROW(log_rule("job_not_a_rule"), std::logic_error);
    BOOST_CHECK(log_rule("job_retry_exceeded").severity == Severity::error);
}

BOOST_AUTO_TEST_SUITE_END()

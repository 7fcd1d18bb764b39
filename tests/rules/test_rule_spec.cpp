// The rules file (rules/engine/rule_spec): the shipped file loads, and every mistake an operator
// can make editing it is an error naming the JSON path, never a silently disabled rule.
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "rules/engine/rule_spec.h"

BOOST_AUTO_TEST_SUITE(test_rules_rule_spec)

#ifndef RH_SOURCE_DIR
#error "RH_SOURCE_DIR must name the source tree (tests/CMakeLists.txt)"
#endif

namespace {

using nlohmann::json;

/// One valid time-based rule; tests break one field of it at a time.
json valid_rule(const std::string& id = "naks") {
    return json::parse(R"({
        "id": ")" + id +
                       R"(", "title": "RNR", "severity": "warning",
        "summary": "{host}: {naks}", "explanation": "why",
        "when": {"signal": "naks", "series": "rnr_nak_received", "measure": "increase",
                 "op": ">=", "threshold": 10, "window_s": 10}})");
}

json rules_file(const std::vector<json>& rules) {
    return json{{"schema", 1}, {"rules", rules}};
}

/// The error message for `j`; fails the test when it parses.
std::string error_of(const json& j) {
    const auto r = rh::parse_rules(j, "test-rules.json");
    BOOST_REQUIRE_MESSAGE(!r.ok(), "expected an error for " + j.dump());
    return r.error().message();
}

void check_error(const json& j, const std::string& path_and_what) {
    const std::string m = error_of(j);
    BOOST_TEST(m.find("test-rules.json") != std::string::npos, m);
    BOOST_TEST(m.find(path_and_what) != std::string::npos,
               "want \"" << path_and_what << "\" in: " << m);
}

}  // namespace

BOOST_AUTO_TEST_CASE(shipped_rules_file_loads) {
    const std::string path = RH_SOURCE_DIR "/rules/rocehealth-rules.json";
    const auto set = rh::load_rules_file(path);
    BOOST_REQUIRE_MESSAGE(set.ok(), (set.ok() ? "" : set.error().message()));
    BOOST_TEST(set->source == path);
    // Every rule of the file is kept (none dropped on the way), ids unique.
    std::ifstream in(path);
    const json raw = json::parse(in);
    BOOST_REQUIRE_EQUAL(set->rules.size(), raw.at("rules").size());
    std::set<std::string> ids;
    for (const auto& r : set->rules) {
        BOOST_TEST(ids.insert(r.id).second, "duplicate " << r.id);
        BOOST_TEST_CONTEXT(r.id) {
            BOOST_TEST(!r.title.empty());
            BOOST_TEST(!r.explanation.empty());
            if (r.check.empty()) BOOST_TEST(!r.summary.empty());
        }
    }
    // The diagnoses tests/scenarios/README.md relies on are all there, plus the inventory checks.
    for (const char* id :
         {"rnr", "pause_storm", "pfc_deadlock_suspected", "pfc_without_ecn",
          "ecn_counters_inconsistent", "cnp_not_handled", "ecn_disabled_on_pfc_priority",
          "roce_outside_lossless", "retransmits", "link_flap", "rx_discards", "port_not_active",
          "no_roce_v2_gid", "pcie_downtrained", "roce_mtu"})
        BOOST_TEST(ids.count(id) == 1u, id);
    // Spot checks against the scenario table: pause_storm holds 5 s, warns, escalates to error.
    for (const auto& r : set->rules) {
        if (r.id == "pause_storm") {
            BOOST_TEST(r.hold_s == 5.0);
            BOOST_TEST(r.severity == rh::Severity::warning);
            BOOST_REQUIRE_EQUAL(r.escalate.size(), 1u);
            BOOST_TEST(r.escalate[0].severity == rh::Severity::error);
            BOOST_TEST((r.when.cond.measure == rh::Measure::pause_fraction));
            BOOST_TEST(r.when.cond.threshold == 0.2);
        }
        if (r.id == "pcie_downtrained") BOOST_TEST(r.check == "pcie_downtrained");
    }
}

BOOST_AUTO_TEST_CASE(default_rules_path_is_a_loadable_file) {
    const std::string path = rh::default_rules_path();
    BOOST_TEST(!path.empty());
    const auto set = rh::load_rules_file(path);
    BOOST_TEST(set.ok(), path << ": " << (set.ok() ? "" : set.error().message()));
}

BOOST_AUTO_TEST_CASE(minimal_rule_parses_with_its_fields) {
    const auto set = rh::parse_rules(rules_file({valid_rule()}), "test-rules.json");
    BOOST_REQUIRE_MESSAGE(set.ok(), (set.ok() ? "" : set.error().message()));
    BOOST_REQUIRE_EQUAL(set->rules.size(), 1u);
    const auto& c = set->rules[0].when.cond;
    BOOST_TEST((set->rules[0].when.kind == rh::Expr::Kind::cond));
    BOOST_TEST(c.series.size() == 1u);
    BOOST_TEST(c.series[0] == "rnr_nak_received");
    BOOST_TEST((c.op == rh::Compare::ge));
    BOOST_TEST(c.threshold == 10.0);
    BOOST_TEST(c.window_s == 10.0);
    BOOST_TEST((c.host == rh::HostScope::same));
    BOOST_TEST(set->rules[0].hold_s == 0.0);
}

BOOST_AUTO_TEST_CASE(unknown_field_names_its_path) {
    auto r = valid_rule();
    r["when"]["windw_s"] = 10;
    check_error(rules_file({r}), "rules[0].when.windw_s: unknown field");
    auto top = valid_rule();
    top["hold"] = 5;
    check_error(rules_file({top}), "rules[0].hold: unknown field");
    auto nested = valid_rule();
    nested["when"] = {{"all", {valid_rule()["when"], valid_rule()["when"]}}};
    nested["when"]["all"][1]["treshold"] = 1;
    check_error(rules_file({nested}), "rules[0].when.all[1].treshold: unknown field");
    json file = rules_file({valid_rule()});
    file["rule"] = json::array();
    check_error(file, "rule: unknown field");
}

BOOST_AUTO_TEST_CASE(unknown_series_names_its_path) {
    auto r = valid_rule();
    r["when"]["series"] = "rnr_nak_recieved";
    check_error(rules_file({r}), "rules[0].when.series: unknown series \"rnr_nak_recieved\"");
    auto list = valid_rule();
    list["when"]["series"] = {"ack_timeouts", "seq_errors"};
    check_error(rules_file({list}), "rules[0].when.series: unknown series \"seq_errors\"");
}

// A misspelt label in `match` matched nothing (the rule never fired, "no findings"); in
// `group_by` it grouped everything under "?".
BOOST_AUTO_TEST_CASE(unknown_labels_name_their_path) {
    auto r = valid_rule();
    r["when"]["match"] = {{"nolabel", "x"}};
    check_error(rules_file({r}), "rules[0].when.match.nolabel: unknown label \"nolabel\"");
    auto g = valid_rule();
    g["group_by"] = {"device", "prio"};
    check_error(rules_file({g}), "rules[0].group_by: unknown label \"prio\"");
    auto ok = valid_rule();  // the labels of the driver tables are known
    ok["when"]["match"] = {{"direction", "rx"}, {"priority", "3"}};
    ok["group_by"] = {"device", "port", "priority", "direction", "level"};
    const auto parsed = rh::parse_rules(rules_file({ok}), "test-rules.json");
    BOOST_TEST(parsed.ok(), (parsed.ok() ? "" : parsed.error().message()));
}

BOOST_AUTO_TEST_CASE(unknown_measure_and_op_name_their_path) {
    auto m = valid_rule();
    m["when"]["measure"] = "delta";
    check_error(rules_file({m}), "rules[0].when.measure: unknown measure \"delta\"");
    auto o = valid_rule();
    o["when"]["op"] = "=>";
    check_error(rules_file({o}), "rules[0].when.op: unknown comparison \"=>\"");
    auto t = valid_rule();
    t["when"]["threshold"] = "10";
    check_error(rules_file({t}), "rules[0].when.threshold: expected a number");
    auto h = valid_rule();
    h["when"]["host"] = "peer";
    check_error(rules_file({h}), "rules[0].when.host");
}

BOOST_AUTO_TEST_CASE(errors_inside_escalations_and_alternatives_name_their_path) {
    auto e = valid_rule();
    auto bad = valid_rule()["when"];
    bad["measure"] = "sum";
    e["escalate"] = {{{"severity", "error"}, {"when", {{"any", {valid_rule()["when"], bad}}}}}};
    check_error(rules_file({e}), "rules[0].escalate[0].when.any[1].measure: unknown measure");
    auto a = valid_rule();
    auto typo = valid_rule()["when"];
    typo["series"] = "ack_timeout";
    a["alternatives"] = {{{"name", "loss"}, {"indicated_by", typo}}};
    check_error(rules_file({a}), "rules[0].alternatives[0].indicated_by.series: unknown series");
    auto sev = valid_rule();
    sev["escalate"] = {{{"severity", "fatal"}, {"when", valid_rule()["when"]}}};
    check_error(rules_file({sev}), "rules[0].escalate[0].severity: unknown severity \"fatal\"");
}

BOOST_AUTO_TEST_CASE(duplicate_id_names_the_second) {
    check_error(rules_file({valid_rule("naks"), valid_rule("other"), valid_rule("naks")}),
                "rules[2].id: duplicate id \"naks\"");
}

BOOST_AUTO_TEST_CASE(inventory_checks) {
    const json ok = {{"id", "pcie"},
                     {"title", "PCIe"},
                     {"severity", "warning"},
                     {"check", "pcie_downtrained"},
                     {"explanation", "why"}};
    const auto set = rh::parse_rules(rules_file({ok}), "test-rules.json");
    BOOST_REQUIRE_MESSAGE(set.ok(), (set.ok() ? "" : set.error().message()));
    BOOST_TEST(set->rules[0].check == "pcie_downtrained");

    auto unknown = ok;
    unknown["check"] = "pcie_slow";
    check_error(rules_file({unknown}), "rules[0].check: unknown inventory check \"pcie_slow\"");

    auto with_when = ok;
    with_when["when"] = valid_rule()["when"];
    check_error(rules_file({with_when}), "rules[0].when: not allowed with \"check\"");
    auto with_hold = ok;
    with_hold["hold_s"] = 5;
    check_error(rules_file({with_hold}), "rules[0].hold_s: not allowed with \"check\"");

    auto neither = valid_rule();
    neither.erase("when");
    check_error(rules_file({neither}), "rules[0].when: missing");
}

// An inventory check's severities come from the rules file: `escalate` names the check's own
// outcomes, and a misspelt or foreign one is an error naming the check's outcomes.
BOOST_AUTO_TEST_CASE(inventory_check_escalations_name_the_checks_outcomes) {
    json ok = {{"id", "pcie"},
               {"title", "PCIe"},
               {"severity", "info"},
               {"check", "pcie_downtrained"},
               {"escalate", json::array({{{"severity", "error"}, {"outcome", "below_port_rate"}}})},
               {"explanation", "why"}};
    const auto set = rh::parse_rules(rules_file({ok}), "test-rules.json");
    BOOST_REQUIRE_MESSAGE(set.ok(), (set.ok() ? "" : set.error().message()));
    BOOST_TEST_REQUIRE(set->rules[0].escalate.size() == 1u);
    BOOST_TEST(set->rules[0].escalate[0].outcome == "below_port_rate");
    BOOST_TEST(set->rules[0].escalate[0].severity == rh::Severity::error);

    auto misspelt = ok;
    misspelt["escalate"][0]["outcome"] = "below_rate";
    check_error(rules_file({misspelt}),
                "rules[0].escalate[0].outcome: check \"pcie_downtrained\" has no outcome "
                "\"below_rate\" (it has: below_port_rate)");
    auto none = ok;
    none["check"] = "port_not_active";
    check_error(rules_file({none}), "has no outcome \"below_port_rate\" (it has none)");
    auto with_when = ok;
    with_when["escalate"][0]["when"] = valid_rule()["when"];
    check_error(rules_file({with_when}), "rules[0].escalate[0].when: unknown field");
}

BOOST_AUTO_TEST_CASE(label_text_parses_per_label_and_value) {
    auto r = valid_rule();
    r["group_by"] = {"priority", "direction"};
    r["label_text"] = {
        {"direction", {{"tx", "this host sent the pauses"}, {"rx", "it was paused"}}}};
    const auto set = rh::parse_rules(rules_file({r}), "test-rules.json");
    BOOST_REQUIRE_MESSAGE(set.ok(), (set.ok() ? "" : set.error().message()));
    const auto& lt = set->rules[0].label_text;
    BOOST_REQUIRE_EQUAL(lt.count("direction"), 1u);
    BOOST_TEST(lt.at("direction").at("tx") == "this host sent the pauses");
    BOOST_TEST(lt.at("direction").at("rx") == "it was paused");
    BOOST_TEST((set->rules[0].group_by == std::vector<std::string>{"priority", "direction"}));

    auto not_text = valid_rule();
    not_text["label_text"] = {{"direction", {{"tx", 1}}}};
    check_error(rules_file({not_text}), "rules[0].label_text.direction.tx: expected a string");
    auto flat = valid_rule();
    flat["label_text"] = {{"direction", "tx"}};
    check_error(rules_file({flat}), "rules[0].label_text.direction");
}

BOOST_AUTO_TEST_CASE(schema_and_file_errors) {
    json file = rules_file({valid_rule()});
    file["schema"] = 2;
    check_error(file, "schema: expected 1");
    const auto missing = rh::load_rules_file("/nonexistent/rules.json");
    BOOST_REQUIRE(!missing.ok());
    BOOST_TEST(missing.error().message().find("/nonexistent/rules.json") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(an_empty_rules_list_is_an_error) {
    check_error(rules_file({}), "test-rules.json: rules: empty");
}

BOOST_AUTO_TEST_CASE(negative_windows_and_holds_name_their_path) {
    // window_s 0 (or absent) is documented: the pass interval (rules/README.md); below 0 is not.
    auto any = valid_rule();
    auto negative = valid_rule()["when"];
    negative["window_s"] = -10;
    any["when"] = {{"any", {negative}}};
    check_error(
        rules_file({valid_rule("a"), valid_rule("b"), valid_rule("c"), any}),
        "rules[3].when.any[0].window_s: expected a number from 0 to 86400 seconds, got -10");
    auto hold = valid_rule();
    hold["hold_s"] = -1;
    check_error(rules_file({hold}),
                "rules[0].hold_s: expected a number from 0 to 86400 seconds, got -1");
    auto zero = valid_rule();
    zero["when"]["window_s"] = 0;
    const auto set = rh::parse_rules(rules_file({zero}), "test-rules.json");
    BOOST_REQUIRE_MESSAGE(set.ok(), (set.ok() ? "" : set.error().message()));
    BOOST_TEST(set->rules[0].when.cond.window_s == 0.0);
}

namespace {

/// Writes `text` to a scratch rules file and returns load_rules_file's error for it.
std::string file_error(const std::string& text) {
    const std::string path = "/tmp/rh_rule_spec_" + std::to_string(::getpid()) + ".json";
    std::ofstream(path) << text;
    const auto set = rh::load_rules_file(path);
    std::remove(path.c_str());
    BOOST_REQUIRE_MESSAGE(!set.ok(), "expected an error for " + text);
    const std::string m = set.error().message();
    BOOST_TEST(m.find("load rules " + path + ": ") == 0u, m);
    return m;
}

}  // namespace

// As promtool check rules: every problem of a rule is reported, not only its first, and the
// rules after it are still read.
BOOST_AUTO_TEST_CASE(check_rules_reports_every_problem_of_a_rule) {
    auto two = valid_rule("naks");
    two["severity"] = "fatal";
    two["when"]["op"] = "=>";
    two["hold_s"] = "5s";
    auto later = valid_rule("later");
    later["when"]["series"] = "no_such_series";
    const rh::RuleCheck c = rh::check_rules(rules_file({two, valid_rule("ok"), later}), "f.json");
    const std::vector<std::string> want = {
        "f.json: rules[0].severity: unknown severity \"fatal\" (info, warning, error)",
        "f.json: rules[0].when.op: unknown comparison \"=>\"",
        "f.json: rules[0].hold_s: expected a number, got a string (\"5s\")",
        "f.json: rules[2].when.series: unknown series \"no_such_series\""};
    BOOST_REQUIRE_EQUAL(c.problems.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i)
        BOOST_TEST(c.problems[i].find(want[i]) == 0u, c.problems[i]);
    BOOST_REQUIRE_EQUAL(c.set.rules.size(), 1u);  // only the rule without a problem is kept
    BOOST_TEST(c.set.rules[0].id == "ok");
}

BOOST_AUTO_TEST_CASE(file_errors_name_the_file_and_where) {
    json dup = rules_file({valid_rule()});
    std::string text = dup.dump();
    // The same key twice inside rules[0].when: the second window_s would silently win.
    const auto at = text.find("\"window_s\":10");
    BOOST_REQUIRE(at != std::string::npos);
    text.insert(at, "\"window_s\":0,");
    BOOST_TEST(file_error(text).find("duplicate key rules[0].when.window_s") != std::string::npos);
    BOOST_TEST(
        file_error(R"({"schema": 1, "schema": 1, "rules": []})").find("duplicate key schema") !=
        std::string::npos);
    const std::string overflow =
        file_error("{\"schema\": 1,\n \"rules\": [{\"id\": \"x\", \"hold_s\": 1e400}]}");
    BOOST_TEST(overflow.find("not valid JSON at line 2, column 38 (rules[0].hold_s): number "
                             "overflow parsing '1e400'") != std::string::npos,
               overflow);
    BOOST_TEST(file_error(R"({"schema": 1, "rules": []})").find("rules: empty") !=
               std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()  // test_rules_rule_spec

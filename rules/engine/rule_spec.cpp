#include "rules/engine/rule_spec.h"

#include <sys/stat.h>

#include <algorithm>
#include <set>

#include "core/json/json_reader.h"
#include "core/json_file.h"
#include "rules/engine/evidence.h"
#include "rules/rule.h"
#include "store/series_names.h"

#ifndef RH_RULES_INSTALLED
#define RH_RULES_INSTALLED "/usr/share/rocehealth/rules.json"
#endif
#ifndef RH_RULES_SOURCE
#define RH_RULES_SOURCE "rules/rocehealth-rules.json"
#endif

namespace rh {

namespace {

using R = JsonReader;

/// True when member `key` is present and a string (req_string has then read it as given, so an
/// unknown value is this reader's to report, not a type error already reported).
bool is_string_at(const R& r, const char* key) {
    return r.has(key) && r.json().at(key).is_string();
}

/// Rejects a label no sample carries: a misspelt `match` or `group_by` would silently match
/// nothing (the rule never fires) or group everything under "?".
void check_label(JsonErrors& errors, const std::string& label, const std::string& path) {
    if (is_known_label(label)) return;
    std::string all;
    for (const auto& l : known_labels()) all += (all.empty() ? "" : ", ") + l;
    errors.add(path, "unknown label \"" + label + "\" (labels: " + all + ")");
}

Severity severity(const R& r, const char* key) {
    const std::string s = r.req_string(key);
    if (s == "info") return Severity::info;
    if (s == "warning") return Severity::warning;
    if (s == "error") return Severity::error;
    if (is_string_at(r, key))
        r.error_at(key, "unknown severity \"" + s + "\" (info, warning, error)");
    return Severity::info;
}

/// An optional non-empty list of strings `key` (absent: empty).
std::vector<std::string> names(const R& r, const char* key) {
    if (r.has(key) && r.json().at(key).is_array() && r.json().at(key).empty())
        r.error_at(key, "expected a non-empty list of names");
    return r.opt_string_list(key);
}

void check_series(const R& r, const char* key, const std::vector<std::string>& series) {
    for (const std::string& name : series)
        if (!is_known_series(name))
            r.error_at(key, "unknown series \"" + name +
                                "\" (store/README.md lists the series; collectors/"
                                "normalize.h the normalized counters)");
}

Measure measure(const R& r) {
    static const std::pair<const char*, Measure> kMeasures[] = {
        {"increase", Measure::increase},
        {"rate_per_s", Measure::rate_per_s},
        {"value", Measure::value},
        {"pause_fraction", Measure::pause_fraction},
        {"per_bit", Measure::per_bit},
        {"share", Measure::share},
        {"lifetime_value", Measure::lifetime_value},
        {"lifetime_per_million", Measure::lifetime_per_million},
        {"lifetime_share_of_uptime", Measure::lifetime_share_of_uptime}};
    const std::string m = r.req_string("measure");
    for (const auto& [name, value] : kMeasures)
        if (m == name) return value;
    if (is_string_at(r, "measure")) {
        std::string all;
        for (const auto& [name, value] : kMeasures)
            all += (all.empty() ? "" : ", ") + std::string(name);
        r.error_at("measure", "unknown measure \"" + m + "\" (" + all + ")");
    }
    return Measure::value;
}

Compare compare(const R& r) {
    static const std::pair<const char*, Compare> kOps[] = {
        {">", Compare::gt},  {">=", Compare::ge}, {"<", Compare::lt},
        {"<=", Compare::le}, {"==", Compare::eq}, {"!=", Compare::ne}};
    const std::string op = r.req_string("op");
    for (const auto& [name, value] : kOps)
        if (op == name) return value;
    if (is_string_at(r, "op")) r.error_at("op", "unknown comparison \"" + op + "\"");
    return Compare::gt;
}

Condition condition(const R& r) {
    Condition c;
    if (!r.expect_object()) return c;
    r.refuse_unknown({"signal", "series", "match", "measure", "op", "threshold", "window_s", "host",
                      "on_pfc_priorities", "per", "changed_in_data"});
    c.signal = r.req_string("signal");
    const R s = r.member("series");  // reports a missing one
    if (s.json().is_string()) {
        c.series.push_back(s.json().get<std::string>());
    } else if (s.json().is_array() && !s.json().empty()) {
        c.series = r.opt_string_list("series");
    } else if (!s.json().is_null()) {
        s.error("expected a series name or a non-empty list of them");
    }
    check_series(r, "series", c.series);
    c.match = r.opt_string_map("match");
    for (const auto& [label, value] : c.match)
        check_label(r.errors(), label, r.path_of("match") + "." + label);
    c.measure = measure(r);
    c.op = compare(r);
    if (!r.has("threshold")) r.error_at("threshold", "missing");
    c.threshold = r.opt_number_in("threshold", -1e300, 1e300, "").value_or(0);
    c.window_s = r.opt_number_in("window_s", 0, 86400, "seconds").value_or(0);
    const std::string host = r.opt_string("host");
    if (host.empty() || host == "same") {
        c.host = HostScope::same;
    } else if (host == "other") {
        c.host = HostScope::other;
    } else {
        r.error_at("host", "expected \"same\" or \"other\", got \"" + host + "\"");
    }
    if (r.has("on_pfc_priorities"))
        c.on_pfc_priorities = static_cast<int>(r.opt_int_in("on_pfc_priorities", 0, 1).value_or(1));
    c.per = names(r, "per");
    check_series(r, "per", c.per);
    if ((c.measure == Measure::lifetime_per_million) != !c.per.empty())
        r.error_at("per", c.per.empty() ? "missing: lifetime_per_million needs the counters "
                                          "it is weighed against"
                                        : "only with measure lifetime_per_million");
    c.changed_in_data = r.opt_bool("changed_in_data", false);
    if (c.changed_in_data && c.measure != Measure::value)
        r.error_at("changed_in_data", "only with measure value (a gauge's state)");
    if (is_lifetime(c.measure) && c.window_s > 0)
        r.error_at("window_s", "a lifetime measure has no window (it reads one capture)");
    return c;
}

Expr expr(const R& r) {
    Expr e;
    const nlohmann::json& j = r.json();
    if (j.is_object() && (j.contains("all") || j.contains("any"))) {
        if (j.size() != 1) r.error("\"all\"/\"any\" must be the only key");
        const bool all = j.contains("all");
        const char* key = all ? "all" : "any";
        const nlohmann::json& list = j.at(key);
        e.kind = all ? Expr::Kind::all : Expr::Kind::any;
        if (!list.is_array() || list.empty())
            r.error_at(key, "expected a non-empty list, got " + R::type_text(list));
        else
            r.each(key, true, [&](const R& child) { e.children.push_back(expr(child)); });
        return e;
    }
    e.kind = Expr::Kind::cond;
    e.cond = condition(r);
    return e;
}

/// An inventory check's `escalate`: [{"severity", "outcome"}], each outcome one the check
/// declares (rules/registry.cpp), so a misspelt one cannot silently leave a severity unset.
std::vector<Escalation> check_escalations(const R& r, const RuleDef& def) {
    std::vector<Escalation> out;
    r.each("escalate", false, [&](const R& e) {
        if (!e.expect_object()) return;
        e.refuse_unknown({"severity", "outcome"});
        Escalation esc;
        esc.severity = severity(e, "severity");
        esc.outcome = e.req_string("outcome");
        std::string known;
        for (const CheckOutcome& o : def.outcomes)
            known += (known.empty() ? "" : ", ") + std::string(o.id);
        const bool found = std::any_of(def.outcomes.begin(), def.outcomes.end(),
                                       [&](const CheckOutcome& o) { return esc.outcome == o.id; });
        if (!found && is_string_at(e, "outcome"))
            e.error_at("outcome",
                       "check \"" + std::string(def.id) + "\" has no outcome \"" + esc.outcome +
                           "\"" +
                           (def.outcomes.empty() ? " (it has none)" : " (it has: " + known + ")"));
        out.push_back(std::move(esc));
    });
    return out;
}

/// Every {name} in a time-based rule's summary must be one the engine fills in
/// (evidence.cpp render_summary): {host}, {held}, a `group_by` label, {<label>_text} of a
/// `label_text` label in `group_by`, or the signal of a `when` condition. Anything else would
/// print "?" in every finding: reported at `summary`, naming the placeholder and the known ones.
void check_placeholders(const R& r, const RuleSpec& spec) {
    std::set<std::string> known = {"host", "held"};
    for (const std::string& label : spec.group_by) {
        known.insert(label);
        if (spec.label_text.count(label)) known.insert(label + "_text");
    }
    for (const Condition* c : leaf_conditions(spec.when)) known.insert(c->signal);
    const std::string& text = spec.summary;
    for (std::size_t a = text.find('{'); a != std::string::npos; a = text.find('{', a + 1)) {
        const std::size_t b = text.find('}', a);
        if (b == std::string::npos) {
            r.error_at("summary", "\"{\" at " + std::to_string(a) + " is never closed by \"}\"");
            return;
        }
        const std::string name = text.substr(a + 1, b - a - 1);
        if (known.count(name)) continue;
        std::string list;
        for (const std::string& k : known) list += (list.empty() ? "{" : ", {") + k + "}";
        r.error_at("summary",
                   "unknown placeholder {" + name + "} (this rule fills in: " + list + ")");
    }
}

/// The time-based part of a rule (no `check`).
void time_based(const R& r, RuleSpec& spec) {
    const std::size_t errors_before = r.errors().size();
    spec.summary = r.req_string("summary");
    if (const auto lt = r.opt_object("label_text"))
        for (const auto& [label, texts] : lt->json().items())
            spec.label_text[label] = lt->opt_string_map(label.c_str());
    if (!r.has("when"))
        r.error_at("when", "missing (or give \"check\")");
    else
        spec.when = expr(r.member("when"));
    spec.hold_s = r.opt_number_in("hold_s", 0, 86400, "seconds").value_or(0);
    spec.instead_of = names(r, "instead_of");
    const auto leaves = leaf_conditions(spec.when);
    const bool reads_lifetime = std::any_of(
        leaves.begin(), leaves.end(), [](const Condition* c) { return is_lifetime(c->measure); });
    if (reads_lifetime && spec.instead_of.empty())
        r.error_at("instead_of",
                   "missing: a rule reading lifetime counters names the rate rules that "
                   "outrank it");
    if (!spec.instead_of.empty()) {
        for (const Condition* c : leaves)
            if (!is_lifetime(c->measure) && c->measure != Measure::value)
                r.error_at("when",
                           "a lifetime rule (instead_of) reads one capture: only "
                           "lifetime_value, lifetime_per_million and value measures (and "
                           "lifetime_share_of_uptime)");
        for (const char* k : {"hold_s", "supports", "alternatives", "escalate"})
            if (r.has(k)) r.error_at(k, "not allowed in a lifetime rule (instead_of)");
    }
    spec.group_by = r.opt_string_list("group_by");
    for (const std::string& label : spec.group_by)
        check_label(r.errors(), label, r.path_of("group_by"));
    // Placeholders are judged against a valid group_by and when (else each of their problems
    // would come back as unknown placeholders too).
    if (r.errors().size() == errors_before) check_placeholders(r, spec);
    r.each("supports", false, [&](const R& s) { spec.supports.push_back(condition(s)); });
    r.each("alternatives", false, [&](const R& a) {
        if (!a.expect_object()) return;
        a.refuse_unknown({"name", "indicated_by"});
        Alternative alt{a.req_string("name"), {}};
        if (!a.has("indicated_by"))
            a.error_at("indicated_by", "missing");
        else
            alt.indicated_by = expr(a.member("indicated_by"));
        spec.alternatives.push_back(std::move(alt));
    });
    r.each("escalate", false, [&](const R& e) {
        if (!e.expect_object()) return;
        e.refuse_unknown({"severity", "when"});
        Escalation esc{severity(e, "severity"), {}, {}};
        if (!e.has("when"))
            e.error_at("when", "missing");
        else
            esc.when = expr(e.member("when"));
        spec.escalate.push_back(std::move(esc));
    });
}

RuleSpec rule(const R& r) {
    RuleSpec spec;
    if (!r.expect_object()) return spec;
    r.refuse_unknown({"id", "title", "severity", "summary", "label_text", "explanation",
                      "thresholds_reason", "check", "group_by", "hold_s", "when", "supports",
                      "alternatives", "escalate", "instead_of"});
    spec.id = r.req_string("id");
    if (is_string_at(r, "id") &&
        (spec.id.empty() ||
         spec.id.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") != std::string::npos))
        r.error_at("id", "expected lower_snake_case, got \"" + spec.id + "\"");
    spec.title = r.req_string("title");
    spec.severity = severity(r, "severity");
    spec.explanation = r.req_string("explanation");
    spec.thresholds_reason = r.opt_string("thresholds_reason");
    spec.check = r.opt_string("check");
    if (spec.check.empty()) {
        time_based(r, spec);
        return spec;
    }
    const RuleDef* def = find_check(spec.check);
    if (!def) r.error_at("check", "unknown inventory check \"" + spec.check + "\"");
    for (const char* k : {"when", "supports", "alternatives", "hold_s", "group_by", "instead_of"})
        if (r.has(k)) r.error_at(k, "not allowed with \"check\"");
    if (def) spec.escalate = check_escalations(r, *def);
    return spec;
}

}  // namespace

bool is_lifetime(Measure m) {
    return m == Measure::lifetime_value || m == Measure::lifetime_per_million ||
           m == Measure::lifetime_share_of_uptime;
}

RuleCheck check_rules(const nlohmann::json& j, const std::string& name) {
    RuleCheck out;
    out.set.source = name;
    JsonErrors errors;
    errors.document = name;
    const auto problems = [&] {
        for (const JsonError& e : errors) out.problems.push_back(name + ": " + e.text());
        return out;
    };
    const R top(j, "", errors);
    if (!top.expect_object()) return problems();
    top.refuse_unknown({"schema", "comment", "rules"});
    if (!top.has("schema") || j.at("schema") != 1) top.error_at("schema", "expected 1");
    if (!top.has("rules") || !j.at("rules").is_array())
        top.error_at("rules", "expected a list of rules");
    else if (j.at("rules").empty())
        top.error_at("rules", "empty: a rules file with no rule finds nothing");
    if (!errors.empty()) return problems();  // no list of rules to go through
    // Every rule is read to its end, so one typo hides neither the next field's nor the next
    // rule's; a rule with a problem is not kept.
    std::set<std::string> ids;
    top.each("rules", true, [&](const R& r) {
        const std::size_t before = errors.size();
        RuleSpec spec = rule(r);
        if (errors.size() != before) return;
        if (!ids.insert(spec.id).second) {
            r.error_at("id", "duplicate id \"" + spec.id + "\"");
            return;
        }
        out.set.rules.push_back(std::move(spec));
    });
    // A lifetime rule names time-based rules (not checks, not other lifetime rules). Checked
    // only when every rule parsed: a rule that failed would be reported twice, and the indices
    // below are the file's only then.
    if (!errors.empty()) return problems();
    const auto& rules = out.set.rules;
    for (std::size_t i = 0; i < rules.size(); ++i)
        for (const std::string& id : rules[i].instead_of) {
            const auto it = std::find_if(rules.begin(), rules.end(),
                                         [&](const RuleSpec& o) { return o.id == id; });
            if (it == rules.end() || !it->check.empty() || !it->instead_of.empty())
                errors.add("rules[" + std::to_string(i) + "].instead_of",
                           "\"" + id + "\" is not a time-based rate rule of this file");
        }
    return problems();
}

Result<RuleSet> parse_rules(const nlohmann::json& j, const std::string& name) {
    RuleCheck c = check_rules(j, name);
    if (!c.problems.empty()) {
        // The first problem, without the name check_rules put in front (Error adds it).
        return Error{"load rules", name, 0, c.problems.front().substr(name.size() + 2)};
    }
    return std::move(c.set);
}

Result<RuleSet> load_rules_file(const std::string& path) {
    auto j = read_json_file(path, "load rules");
    if (!j) return j.error();
    return parse_rules(*j, path);
}

std::string default_rules_path() {
    if (const char* env = std::getenv("ROCEHEALTH_RULES"); env && *env) return env;
    struct stat st {};
    for (const char* p : {"/etc/rocehealth/rules.json", RH_RULES_INSTALLED})
        if (::stat(p, &st) == 0) return p;
    return RH_RULES_SOURCE;
}

}  // namespace rh

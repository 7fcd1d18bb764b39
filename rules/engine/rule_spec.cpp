#include "rules/engine/rule_spec.h"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <stdexcept>

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

/// Thrown while parsing; carries the JSON path. Converted to an Error at the API.
struct SpecError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

[[noreturn]] void bad(const std::string& path, const std::string& what) {
    throw SpecError(path + ": " + what);
}

/// Rejects a label no sample carries: a misspelt `match` or `group_by` would silently match
/// nothing (the rule never fires) or group everything under "?".
void check_label(const std::string& label, const std::string& path) {
    if (is_known_label(label)) return;
    std::string all;
    for (const auto& l : known_labels()) all += (all.empty() ? "" : ", ") + l;
    bad(path, "unknown label \"" + label + "\" (labels: " + all + ")");
}

/// Rejects keys outside `allowed`: a misspelt field must not silently change a rule.
void only_keys(const nlohmann::json& j, const std::string& path,
               std::initializer_list<const char*> allowed) {
    if (!j.is_object()) bad(path, "expected an object");
    for (const auto& item : j.items()) {
        const std::string& k = item.key();
        if (std::none_of(allowed.begin(), allowed.end(), [&](const char* a) { return k == a; }))
            bad(path + "." + k, "unknown field");
    }
}

std::string str(const nlohmann::json& j, const char* key, const std::string& path, bool required) {
    const auto it = j.find(key);
    if (it == j.end()) {
        if (required) bad(path + "." + key, "missing");
        return {};
    }
    if (!it->is_string()) bad(path + "." + key, "expected a string");
    return it->get<std::string>();
}

/// "0", "86400", "1e+300": a bound as a person reads it.
std::string shortest(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

double num(const nlohmann::json& j, const char* key, const std::string& path, double dflt,
           double lo, double hi) {
    const auto it = j.find(key);
    if (it == j.end()) return dflt;
    if (!it->is_number() || !std::isfinite(it->get<double>()))
        bad(path + "." + key, "expected a number");
    const double v = it->get<double>();
    if (v < lo || v > hi)
        bad(path + "." + key, "out of range: " + it->dump() + " (allowed " + shortest(lo) + " to " +
                                  shortest(hi) + ")");
    return v;
}

Severity severity(const std::string& s, const std::string& path) {
    if (s == "info") return Severity::info;
    if (s == "warning") return Severity::warning;
    if (s == "error") return Severity::error;
    bad(path, "unknown severity \"" + s + "\" (info, warning, error)");
}

Labels labels(const nlohmann::json& j, const std::string& path) {
    Labels out;
    if (!j.is_object()) bad(path, "expected an object of strings");
    for (const auto& [k, v] : j.items()) {
        if (!v.is_string()) bad(path + "." + k, "expected a string");
        out[k] = v.get<std::string>();
    }
    return out;
}

/// An optional list of strings `key` (absent: empty).
std::vector<std::string> names(const nlohmann::json& j, const char* key, const std::string& path) {
    std::vector<std::string> out;
    const auto it = j.find(key);
    if (it == j.end()) return out;
    if (!it->is_array() || it->empty()) bad(path + "." + key, "expected a non-empty list of names");
    for (const auto& e : *it) {
        if (!e.is_string()) bad(path + "." + key, "expected strings");
        out.push_back(e.get<std::string>());
    }
    return out;
}

Condition condition(const nlohmann::json& j, const std::string& path) {
    only_keys(j, path,
              {"signal", "series", "match", "measure", "op", "threshold", "window_s", "host",
               "on_pfc_priorities", "per"});
    Condition c;
    c.signal = str(j, "signal", path, true);
    const auto s = j.find("series");
    if (s == j.end()) bad(path + ".series", "missing");
    if (s->is_string()) {
        c.series.push_back(s->get<std::string>());
    } else if (s->is_array() && !s->empty()) {
        for (const auto& e : *s) {
            if (!e.is_string()) bad(path + ".series", "expected strings");
            c.series.push_back(e.get<std::string>());
        }
    } else {
        bad(path + ".series", "expected a series name or a non-empty list of them");
    }
    for (const std::string& name : c.series)
        if (!is_known_series(name))
            bad(path + ".series", "unknown series \"" + name +
                                      "\" (store/README.md lists the series; collectors/"
                                      "normalize.h the normalized counters)");
    if (const auto m = j.find("match"); m != j.end()) {
        c.match = labels(*m, path + ".match");
        for (const auto& [label, value] : c.match) check_label(label, path + ".match." + label);
    }
    const std::string measure = str(j, "measure", path, true);
    if (measure == "increase") {
        c.measure = Measure::increase;
    } else if (measure == "rate_per_s") {
        c.measure = Measure::rate_per_s;
    } else if (measure == "value") {
        c.measure = Measure::value;
    } else if (measure == "pause_fraction") {
        c.measure = Measure::pause_fraction;
    } else if (measure == "per_bit") {
        c.measure = Measure::per_bit;
    } else if (measure == "share") {
        c.measure = Measure::share;
    } else if (measure == "lifetime_value") {
        c.measure = Measure::lifetime_value;
    } else if (measure == "lifetime_per_million") {
        c.measure = Measure::lifetime_per_million;
    } else if (measure == "lifetime_share_of_uptime") {
        c.measure = Measure::lifetime_share_of_uptime;
    } else {
        bad(path + ".measure", "unknown measure \"" + measure +
                                   "\" (increase, rate_per_s, value, pause_fraction, per_bit, "
                                   "share, lifetime_value, lifetime_per_million, "
                                   "lifetime_share_of_uptime)");
    }
    const std::string op = str(j, "op", path, true);
    static const std::pair<const char*, Compare> kOps[] = {
        {">", Compare::gt},  {">=", Compare::ge}, {"<", Compare::lt},
        {"<=", Compare::le}, {"==", Compare::eq}, {"!=", Compare::ne}};
    const auto o = std::find_if(std::begin(kOps), std::end(kOps),
                                [&](const auto& p) { return op == p.first; });
    if (o == std::end(kOps)) bad(path + ".op", "unknown comparison \"" + op + "\"");
    c.op = o->second;
    if (!j.contains("threshold")) bad(path + ".threshold", "missing");
    c.threshold = num(j, "threshold", path, 0, -1e300, 1e300);
    c.window_s = num(j, "window_s", path, 0, 0, 86400);
    const std::string host = str(j, "host", path, false);
    if (host.empty() || host == "same") {
        c.host = HostScope::same;
    } else if (host == "other") {
        c.host = HostScope::other;
    } else {
        bad(path + ".host", "expected \"same\" or \"other\"");
    }
    if (j.contains("on_pfc_priorities"))
        c.on_pfc_priorities = static_cast<int>(num(j, "on_pfc_priorities", path, 1, 0, 1));
    c.per = names(j, "per", path);
    for (const std::string& name : c.per)
        if (!is_known_series(name)) bad(path + ".per", "unknown series \"" + name + "\"");
    if ((c.measure == Measure::lifetime_per_million) != !c.per.empty())
        bad(path + ".per", c.per.empty() ? "missing: lifetime_per_million needs the counters "
                                           "it is weighed against"
                                         : "only with measure lifetime_per_million");
    if (is_lifetime(c.measure) && c.window_s > 0)
        bad(path + ".window_s", "a lifetime measure has no window (it reads one capture)");
    return c;
}

Expr expr(const nlohmann::json& j, const std::string& path) {
    Expr e;
    if (j.is_object() && (j.contains("all") || j.contains("any"))) {
        if (j.size() != 1) bad(path, "\"all\"/\"any\" must be the only key");
        const bool all = j.contains("all");
        const auto& list = j.at(all ? "all" : "any");
        const std::string p = path + (all ? ".all" : ".any");
        if (!list.is_array() || list.empty()) bad(p, "expected a non-empty list");
        e.kind = all ? Expr::Kind::all : Expr::Kind::any;
        for (std::size_t i = 0; i < list.size(); ++i)
            e.children.push_back(expr(list[i], p + "[" + std::to_string(i) + "]"));
        return e;
    }
    e.kind = Expr::Kind::cond;
    e.cond = condition(j, path);
    return e;
}

/// An inventory check's `escalate`: [{"severity", "outcome"}], each outcome one the check
/// declares (rules/registry.cpp), so a misspelt one cannot silently leave a severity unset.
std::vector<Escalation> check_escalations(const nlohmann::json& j, const std::string& path,
                                          const RuleDef& def) {
    std::vector<Escalation> out;
    const auto e = j.find("escalate");
    if (e == j.end()) return out;
    if (!e->is_array()) bad(path + ".escalate", "expected a list");
    for (std::size_t i = 0; i < e->size(); ++i) {
        const std::string p = path + ".escalate[" + std::to_string(i) + "]";
        only_keys((*e)[i], p, {"severity", "outcome"});
        Escalation esc;
        esc.severity = severity(str((*e)[i], "severity", p, true), p + ".severity");
        esc.outcome = str((*e)[i], "outcome", p, true);
        std::string known;
        for (const CheckOutcome& o : def.outcomes)
            known += (known.empty() ? "" : ", ") + std::string(o.id);
        const bool found = std::any_of(def.outcomes.begin(), def.outcomes.end(),
                                       [&](const CheckOutcome& o) { return esc.outcome == o.id; });
        if (!found)
            bad(p + ".outcome",
                "check \"" + std::string(def.id) + "\" has no outcome \"" + esc.outcome + "\"" +
                    (def.outcomes.empty() ? " (it has none)" : " (it has: " + known + ")"));
        out.push_back(std::move(esc));
    }
    return out;
}

RuleSpec rule(const nlohmann::json& j, const std::string& path) {
    only_keys(j, path,
              {"id", "title", "severity", "summary", "label_text", "explanation",
               "thresholds_reason", "check", "group_by", "hold_s", "when", "supports",
               "alternatives", "escalate", "instead_of"});
    RuleSpec r;
    r.id = str(j, "id", path, true);
    if (r.id.empty() ||
        r.id.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") != std::string::npos)
        bad(path + ".id", "expected lower_snake_case, got \"" + r.id + "\"");
    r.title = str(j, "title", path, true);
    r.severity = severity(str(j, "severity", path, true), path + ".severity");
    r.explanation = str(j, "explanation", path, true);
    r.thresholds_reason = str(j, "thresholds_reason", path, false);
    r.check = str(j, "check", path, false);
    if (!r.check.empty()) {
        if (!find_check(r.check))
            bad(path + ".check", "unknown inventory check \"" + r.check + "\"");
        for (const char* k :
             {"when", "supports", "alternatives", "hold_s", "group_by", "instead_of"})
            if (j.contains(k)) bad(path + "." + k, "not allowed with \"check\"");
        r.escalate = check_escalations(j, path, *find_check(r.check));
        return r;
    }
    r.summary = str(j, "summary", path, true);
    if (const auto lt = j.find("label_text"); lt != j.end()) {
        if (!lt->is_object()) bad(path + ".label_text", "expected {label: {value: text}}");
        for (const auto& [label, texts] : lt->items())
            r.label_text[label] = labels(texts, path + ".label_text." + label);
    }
    if (!j.contains("when")) bad(path + ".when", "missing (or give \"check\")");
    r.when = expr(j.at("when"), path + ".when");
    r.hold_s = num(j, "hold_s", path, 0, 0, 86400);
    r.instead_of = names(j, "instead_of", path);
    const auto leaves = leaf_conditions(r.when);
    const bool reads_lifetime = std::any_of(
        leaves.begin(), leaves.end(), [](const Condition* c) { return is_lifetime(c->measure); });
    if (reads_lifetime && r.instead_of.empty())
        bad(path + ".instead_of",
            "missing: a rule reading lifetime counters names the rate rules that outrank it");
    if (!r.instead_of.empty()) {
        for (const Condition* c : leaves)
            if (!is_lifetime(c->measure) && c->measure != Measure::value)
                bad(path + ".when",
                    "a lifetime rule (instead_of) reads one capture: only "
                    "lifetime_value, lifetime_per_million and value measures (and "
                    "lifetime_share_of_uptime)");
        for (const char* k : {"hold_s", "supports", "alternatives", "escalate"})
            if (j.contains(k)) bad(path + "." + k, "not allowed in a lifetime rule (instead_of)");
    }
    if (const auto g = j.find("group_by"); g != j.end()) {
        if (!g->is_array()) bad(path + ".group_by", "expected a list of label names");
        for (const auto& e : *g) {
            if (!e.is_string()) bad(path + ".group_by", "expected strings");
            r.group_by.push_back(e.get<std::string>());
            check_label(r.group_by.back(), path + ".group_by");
        }
    }
    if (const auto s = j.find("supports"); s != j.end()) {
        if (!s->is_array()) bad(path + ".supports", "expected a list");
        for (std::size_t i = 0; i < s->size(); ++i)
            r.supports.push_back(condition((*s)[i], path + ".supports[" + std::to_string(i) + "]"));
    }
    if (const auto a = j.find("alternatives"); a != j.end()) {
        if (!a->is_array()) bad(path + ".alternatives", "expected a list");
        for (std::size_t i = 0; i < a->size(); ++i) {
            const std::string p = path + ".alternatives[" + std::to_string(i) + "]";
            only_keys((*a)[i], p, {"name", "indicated_by"});
            if (!(*a)[i].contains("indicated_by")) bad(p + ".indicated_by", "missing");
            r.alternatives.push_back({str((*a)[i], "name", p, true),
                                      expr((*a)[i].at("indicated_by"), p + ".indicated_by")});
        }
    }
    if (const auto e = j.find("escalate"); e != j.end()) {
        if (!e->is_array()) bad(path + ".escalate", "expected a list");
        for (std::size_t i = 0; i < e->size(); ++i) {
            const std::string p = path + ".escalate[" + std::to_string(i) + "]";
            only_keys((*e)[i], p, {"severity", "when"});
            if (!(*e)[i].contains("when")) bad(p + ".when", "missing");
            r.escalate.push_back({severity(str((*e)[i], "severity", p, true), p + ".severity"),
                                  expr((*e)[i].at("when"), p + ".when"),
                                  {}});
        }
    }
    return r;
}

}  // namespace

bool is_lifetime(Measure m) {
    return m == Measure::lifetime_value || m == Measure::lifetime_per_million ||
           m == Measure::lifetime_share_of_uptime;
}

RuleCheck check_rules(const nlohmann::json& j, const std::string& name) {
    RuleCheck out;
    out.set.source = name;
    const auto problem = [&](const SpecError& e) {
        out.problems.push_back(name + ": " + e.what());
    };
    try {
        only_keys(j, "(top)", {"schema", "comment", "rules"});
        if (!j.contains("schema") || j.at("schema") != 1) bad("schema", "expected 1");
        const auto r = j.find("rules");
        if (r == j.end() || !r->is_array()) bad("rules", "expected a list of rules");
        if (r->empty()) bad("rules", "empty: a rules file with no rule finds nothing");
    } catch (const SpecError& e) {
        problem(e);
        return out;  // no list of rules to go through
    }
    // Each rule is checked on its own, so one typo does not hide the next rule's.
    const auto& r = j.at("rules");
    std::set<std::string> ids;
    for (std::size_t i = 0; i < r.size(); ++i) {
        try {
            RuleSpec spec = rule(r[i], "rules[" + std::to_string(i) + "]");
            if (!ids.insert(spec.id).second)
                bad("rules[" + std::to_string(i) + "].id", "duplicate id \"" + spec.id + "\"");
            out.set.rules.push_back(std::move(spec));
        } catch (const SpecError& e) {
            problem(e);
        }
    }
    // A lifetime rule names time-based rules (not checks, not other lifetime rules). Checked
    // only when every rule parsed: a rule that failed would be reported twice, and the indices
    // below are the file's only then.
    if (!out.problems.empty()) return out;
    for (std::size_t i = 0; i < out.set.rules.size(); ++i)
        for (const std::string& id : out.set.rules[i].instead_of) {
            const auto& rules = out.set.rules;
            const auto it = std::find_if(rules.begin(), rules.end(),
                                         [&](const RuleSpec& o) { return o.id == id; });
            if (it == rules.end() || !it->check.empty() || !it->instead_of.empty())
                out.problems.push_back(name + ": rules[" + std::to_string(i) + "].instead_of: \"" +
                                       id + "\" is not a time-based rate rule of this file");
        }
    return out;
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

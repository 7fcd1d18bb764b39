#include "agent/accept/report_model.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "agent/accept/finding_json.h"
#include "agent/accept/results_json.h"
#include "core/json_file.h"

namespace rh::accept {

using nlohmann::json;

namespace {

template <typename E>
struct Names {
    E value;
    const char* name;
};

constexpr Names<StageId> kStageNames[] = {
    {StageId::inventory, "inventory"},
    {StageId::idle_latency, "idle_latency"},
    {StageId::bandwidth, "bandwidth"},
    {StageId::concurrency, "concurrency"},
    {StageId::incast, "incast"},
    {StageId::fault, "fault"},
    {StageId::rkey_revocation, "rkey_revocation"},
};
constexpr Names<StageVerdict> kStageVerdictNames[] = {
    {StageVerdict::pass, "pass"},       {StageVerdict::fail, "fail"},
    {StageVerdict::skipped, "skipped"}, {StageVerdict::error, "error"},
    {StageVerdict::not_run, "not_run"},
};
constexpr Names<Verdict> kVerdictNames[] = {
    {Verdict::pass, "pass"}, {Verdict::fail, "fail"}, {Verdict::incomplete, "incomplete"}};

template <typename E, std::size_t N>
std::string name_of(const Names<E> (&names)[N], E v) {
    for (const auto& n : names)
        if (n.value == v) return n.name;
    return "unknown";
}

template <typename E, std::size_t N>
std::optional<E> value_of(const Names<E> (&names)[N], const std::string& s) {
    for (const auto& n : names)
        if (s == n.name) return n.value;
    return std::nullopt;
}

template <typename E, std::size_t N>
std::vector<std::string> all_names(const Names<E> (&names)[N]) {
    std::vector<std::string> out;
    for (const auto& n : names) out.emplace_back(n.name);
    return out;
}

Scalar scalar_from(const JsonReader& in, const char* key) {
    if (!in.has(key)) return std::monostate{};
    const json& v = in.json()[key];
    if (v.is_number()) return v.get<double>();
    if (v.is_string()) return v.get<std::string>();
    in.error_at(key, "expected a number, a string or null, got " + JsonReader::type_text(v));
    return std::monostate{};
}

json scalar_to(const Scalar& s) {
    if (const auto* d = std::get_if<double>(&s)) return *d;
    if (const auto* str = std::get_if<std::string>(&s)) return *str;
    return nullptr;
}

std::string scalar_text(const Scalar& s) {
    if (const auto* d = std::get_if<double>(&s)) return json(*d).dump();
    if (const auto* str = std::get_if<std::string>(&s)) return "\"" + *str + "\"";
    return "null";
}

/// An href inside the report directory: relative, made of [A-Za-z0-9._+/-], no ".." part.
bool safe_relative_href(const std::string& h) {
    if (h.empty() || h.front() == '/') return false;
    for (char c : h)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' ||
              c == '+' || c == '/'))
            return false;
    std::size_t start = 0;
    while (start <= h.size()) {
        const std::size_t end = std::min(h.find('/', start), h.size());
        if (h.compare(start, end - start, "..") == 0 && end - start == 2) return false;
        start = end + 1;
    }
    return true;
}

/// Checks one evidence pointer of a stage; returns the problem, or "" when it resolves.
std::string evidence_problem(const Stage& s, const std::string& ptr) {
    std::vector<std::string> parts;
    if (ptr.empty() || ptr.front() != '/') return "expected a JSON pointer starting with '/'";
    for (std::size_t start = 1;;) {
        const std::size_t end = ptr.find('/', start);
        parts.push_back(
            ptr.substr(start, end == std::string::npos ? std::string::npos : end - start));
        if (end == std::string::npos) break;
        start = end + 1;
    }
    auto index = [](const std::string& p) -> std::optional<std::size_t> {
        if (p.empty() || p.size() > 9 || p.find_first_not_of("0123456789") != std::string::npos)
            return std::nullopt;
        return std::stoul(p);
    };
    const std::string& top = parts[0];
    if (top == "findings" || top == "counter_timelines") {
        const std::size_t n = top == "findings" ? s.findings.size() : s.counter_timelines.size();
        const auto i = parts.size() == 2 ? index(parts[1]) : std::nullopt;
        if (!i) return "expected /" + top + "/N";
        if (*i >= n)
            return "/" + top + "/" + parts[1] + " does not exist (" + std::to_string(n) +
                   " in this stage)";
        return "";
    }
    if (top != "results") return "expected /results..., /findings/N or /counter_timelines/N";
    if (std::holds_alternative<std::monostate>(s.results)) return "this stage has no results";
    if (parts.size() == 1) return "";
    const json r = results_to_json(s.results);
    if (!r.contains(parts[1])) return "the results have no member \"" + parts[1] + "\"";
    if (parts.size() == 2) return "";
    const auto n = results_array_size(s.results, parts[1]);
    const auto i = parts.size() == 3 ? index(parts[2]) : std::nullopt;
    if (!n || !i) return "expected /results/" + parts[1] + " or /results/ARRAY/N";
    if (*i >= *n) return "/results/" + parts[1] + "/" + parts[2] + " does not exist";
    return "";
}

Criterion criterion_from(const JsonReader& in) {
    Criterion c;
    if (!in.expect_object()) return c;
    c.name = in.req_string("name");
    c.comparison = in.req_enum("comparison", {"<=", "<", ">=", ">", "==", "!="});
    c.threshold = scalar_from(in, "threshold");
    c.unit = in.opt_string("unit");
    c.measured = scalar_from(in, "measured");
    c.pass = in.req_bool("pass");
    c.evidence = in.opt_string_list("evidence");
    if (!c.comparison.empty() && c.pass != criterion_holds(c))
        in.error_at("pass", std::string(c.pass ? "true" : "false") + ", but measured " +
                                scalar_text(c.measured) + " " + c.comparison + " threshold " +
                                scalar_text(c.threshold) + (c.pass ? " does not hold" : " holds"));
    return c;
}

CounterTimeline timeline_from(const JsonReader& in) {
    CounterTimeline t;
    if (!in.expect_object()) return t;
    t.host = in.req_string("host");
    t.series = in.req_string("series");
    t.labels = in.opt_string_map("labels");
    t.unit = in.opt_string("unit");
    double last = -1e300;
    in.each("points", true, [&](const JsonReader& p) {
        const json& pj = p.json();
        if (!pj.is_array() || pj.size() != 2 || !pj[0].is_number() ||
            !(pj[1].is_number() || pj[1].is_null())) {
            p.error("expected [t_s, value or null]");
            return;
        }
        const double ts = pj[0].get<double>();
        if (ts < last) p.error("t_s goes backwards");
        last = ts;
        t.points.emplace_back(
            ts, pj[1].is_null() ? std::nullopt : std::optional<double>(pj[1].get<double>()));
    });
    return t;
}

Stage stage_from(const JsonReader& in, const std::set<std::string>& hosts) {
    Stage s;
    if (!in.expect_object()) return s;
    const std::string id = in.req_enum("id", all_names(kStageNames));
    if (auto sid = stage_id_from(id)) s.id = *sid;
    s.title = in.opt_string("title");
    const std::string verdict = in.req_enum("verdict", all_names(kStageVerdictNames));
    if (auto v = stage_verdict_from(verdict)) s.verdict = *v;
    s.reason = in.opt_string("reason");
    s.start_s = in.opt_number("start_s");
    s.end_s = in.opt_number("end_s");
    if (s.start_s && s.end_s && *s.end_s < *s.start_s) in.error_at("end_s", "before start_s");
    in.each("criteria", false,
            [&](const JsonReader& c) { s.criteria.push_back(criterion_from(c)); });
    if (!id.empty() && in.has("results"))
        s.results = results_from_json(s.id, in.member("results"), hosts);
    in.each("findings", false,
            [&](const JsonReader& f) { s.findings.push_back(finding_from_json(f)); });
    in.each("counter_timelines", false,
            [&](const JsonReader& t) { s.counter_timelines.push_back(timeline_from(t)); });
    in.each("marks", false, [&](const JsonReader& m) {
        if (!m.expect_object()) return;
        Mark mark{m.req_number("t_s"), m.req_string("label"), m.opt_number("end_s")};
        if (mark.end_s && *mark.end_s < mark.t_s) m.error_at("end_s", "before t_s");
        s.marks.push_back(std::move(mark));
    });
    in.each("evidence_links", false, [&](const JsonReader& l) {
        if (!l.expect_object()) return;
        EvidenceLink link{l.req_string("label"), l.req_string("href")};
        if (!safe_relative_href(link.href))
            l.error_at("href",
                       "expected a relative path inside the report directory ([A-Za-z0-9._+/-], "
                       "no \"..\"), got \"" +
                           link.href + "\"");
        s.evidence_links.push_back(std::move(link));
    });

    // Cross-checks: the verdict against the criteria, the evidence pointers against the stage.
    std::size_t failing = 0;
    for (const auto& c : s.criteria) failing += c.pass ? 0 : 1;
    if (s.verdict == StageVerdict::pass && s.criteria.empty())
        in.error_at("verdict", "pass, but the stage has no criteria");
    if (s.verdict == StageVerdict::pass && failing > 0)
        in.error_at("verdict", "pass, but " + std::to_string(failing) + " criteria fail");
    if (s.verdict == StageVerdict::fail && failing == 0)
        in.error_at("verdict", "fail, but no criterion fails");
    if (s.verdict == StageVerdict::skipped && failing > 0)
        in.error_at("verdict",
                    "skipped, but " + std::to_string(failing) + " criteria were measured and fail");
    if (s.verdict == StageVerdict::not_run && !s.criteria.empty())
        in.error_at("criteria", "not_run, but the stage has criteria");
    if ((s.verdict == StageVerdict::skipped || s.verdict == StageVerdict::error ||
         s.verdict == StageVerdict::not_run) &&
        s.reason.empty())
        in.error_at("reason", "missing: a " + verdict + " stage says why");
    for (std::size_t ci = 0; ci < s.criteria.size(); ++ci)
        for (std::size_t ei = 0; ei < s.criteria[ci].evidence.size(); ++ei) {
            const std::string problem = evidence_problem(s, s.criteria[ci].evidence[ei]);
            if (!problem.empty())
                in.error_at(
                    "criteria[" + std::to_string(ci) + "].evidence[" + std::to_string(ei) + "]",
                    problem);
        }
    return s;
}

json stage_to(const Stage& s) {
    json criteria = json::array();
    for (const auto& c : s.criteria)
        criteria.push_back({{"name", c.name},
                            {"comparison", c.comparison},
                            {"threshold", scalar_to(c.threshold)},
                            {"unit", c.unit},
                            {"measured", scalar_to(c.measured)},
                            {"pass", c.pass},
                            {"evidence", c.evidence}});
    json timelines = json::array();
    for (const auto& t : s.counter_timelines) {
        json points = json::array();
        for (const auto& [ts, v] : t.points) points.push_back({ts, v ? json(*v) : json(nullptr)});
        timelines.push_back({{"host", t.host},
                             {"series", t.series},
                             {"labels", t.labels.empty() ? json::object() : json(t.labels)},
                             {"unit", t.unit},
                             {"points", std::move(points)}});
    }
    json marks = json::array();
    for (const auto& m : s.marks)
        marks.push_back({{"t_s", m.t_s},
                         {"end_s", m.end_s ? json(*m.end_s) : json(nullptr)},
                         {"label", m.label}});
    json links = json::array();
    for (const auto& l : s.evidence_links) links.push_back({{"label", l.label}, {"href", l.href}});
    return {{"id", to_string(s.id)},
            {"title", s.title},
            {"verdict", to_string(s.verdict)},
            {"reason", s.reason},
            {"start_s", s.start_s ? json(*s.start_s) : json(nullptr)},
            {"end_s", s.end_s ? json(*s.end_s) : json(nullptr)},
            {"criteria", std::move(criteria)},
            {"results", results_to_json(s.results)},
            {"findings", s.findings.empty() ? json::array() : json(s.findings)},
            {"counter_timelines", std::move(timelines)},
            {"marks", std::move(marks)},
            {"evidence_links", std::move(links)}};
}

}  // namespace

const std::vector<StageId>& all_stage_ids() {
    static const std::vector<StageId> ids = [] {
        std::vector<StageId> v;
        for (const auto& n : kStageNames) v.push_back(n.value);
        return v;
    }();
    return ids;
}

std::string to_string(Verdict v) {
    return name_of(kVerdictNames, v);
}
std::string to_string(StageVerdict v) {
    return name_of(kStageVerdictNames, v);
}
std::string to_string(StageId id) {
    return name_of(kStageNames, id);
}
std::optional<Verdict> verdict_from(const std::string& s) {
    return value_of(kVerdictNames, s);
}
std::optional<StageVerdict> stage_verdict_from(const std::string& s) {
    return value_of(kStageVerdictNames, s);
}
std::optional<StageId> stage_id_from(const std::string& s) {
    return value_of(kStageNames, s);
}

std::string default_title(StageId id) {
    switch (id) {
        case StageId::inventory:
            return "Inventory and configuration";
        case StageId::idle_latency:
            return "Idle latency baseline";
        case StageId::bandwidth:
            return "Bandwidth per pair";
        case StageId::concurrency:
            return "Steady concurrency";
        case StageId::incast:
            return "Incast (N to 1)";
        case StageId::fault:
            return "Controlled link fault";
        case StageId::rkey_revocation:
            return "rkey revocation";
    }
    return "stage";
}

bool criterion_holds(const Criterion& c) {
    const auto* md = std::get_if<double>(&c.measured);
    const auto* td = std::get_if<double>(&c.threshold);
    if (md && td) {
        if (c.comparison == "<=") return *md <= *td;
        if (c.comparison == "<") return *md < *td;
        if (c.comparison == ">=") return *md >= *td;
        if (c.comparison == ">") return *md > *td;
        if (c.comparison == "==") return *md == *td;
        if (c.comparison == "!=") return *md != *td;
        return false;
    }
    const auto* ms = std::get_if<std::string>(&c.measured);
    const auto* ts = std::get_if<std::string>(&c.threshold);
    if (ms && ts) {
        if (c.comparison == "==") return *ms == *ts;
        if (c.comparison == "!=") return *ms != *ts;
    }
    return false;
}

StageCounts stage_counts(const Stage& s) {
    StageCounts n;
    for (const auto& c : s.criteria) n.criteria_met += c.pass ? 1 : 0;
    for (const auto& f : s.findings) {
        n.error_findings += f.severity == Severity::error ? 1 : 0;
        n.warning_findings += f.severity == Severity::warning ? 1 : 0;
    }
    return n;
}

std::string title_of(const Stage& s) {
    return s.title.empty() ? default_title(s.id) : s.title;
}

Verdict derived_verdict(const std::vector<Stage>& stages) {
    bool error = false, measured = false;
    for (const auto& s : stages) {
        if (s.verdict == StageVerdict::fail) return Verdict::fail;
        error = error || s.verdict == StageVerdict::error || s.verdict == StageVerdict::not_run;
        measured = measured || s.verdict == StageVerdict::pass;
    }
    // A run where every stage was skipped measured nothing: it proves no readiness.
    return error || !measured ? Verdict::incomplete : Verdict::pass;
}

Verdict derived_verdict(const Report& r) {
    return r.interrupted ? Verdict::incomplete : derived_verdict(r.stages);
}

const Stage* Report::stage(StageId id) const {
    for (const auto& s : stages)
        if (s.id == id) return &s;
    return nullptr;
}

ParsedReport report_from_json(const json& j) {
    ParsedReport out;
    JsonReader in(j, "", out.errors);
    if (!in.expect_object()) return out;
    Report r;
    if (!in.has("schema") || in.json()["schema"] != kReportSchema)
        in.error_at("schema", "expected 1 (this reader knows schema 1), got " +
                                  (in.has("schema") ? JsonReader::type_text(in.json()["schema"])
                                                    : "nothing"));
    const std::string verdict = in.req_enum("verdict", all_names(kVerdictNames));
    if (auto v = verdict_from(verdict)) r.verdict = *v;
    const JsonReader spec = in.member("spec");
    if (spec.expect_object()) r.spec = spec.json();
    r.started_wall_ms = in.req_int("started_wall_ms");
    r.finished_wall_ms = in.req_int("finished_wall_ms");
    if (r.finished_wall_ms < r.started_wall_ms)
        in.error_at("finished_wall_ms", "before started_wall_ms");
    std::set<std::string> host_names;
    in.each("hosts", true, [&](const JsonReader& h) {
        if (!h.expect_object()) return;
        Host host{h.req_string("name"), h.opt_string("address"), h.opt_string("version")};
        if (host.name.empty())
            h.error_at("name", "empty");
        else if (!host_names.insert(host.name).second)
            h.error_at("name", "host \"" + host.name + "\" is listed twice");
        r.hosts.push_back(std::move(host));
    });
    std::set<StageId> seen;
    in.each("stages", true, [&](const JsonReader& s) {
        Stage st = stage_from(s, host_names);
        if (s.json().is_object() && s.has("id") && stage_id_from(s.opt_string("id")) &&
            !seen.insert(st.id).second)
            s.error_at("id", "stage " + to_string(st.id) + " appears twice");
        r.stages.push_back(std::move(st));
    });
    if (in.has("interrupted")) {
        const JsonReader x = in.member("interrupted");
        if (x.expect_object()) {
            Interruption i;
            const std::string id = x.req_enum("stage", all_names(kStageNames));
            if (auto sid = stage_id_from(id)) i.stage = *sid;
            i.cause = x.req_enum("cause", {"signal", "time_limit"});
            i.reason = x.req_string("reason");
            if (x.has("reason") && i.reason.empty()) x.error_at("reason", "empty");
            if (stage_id_from(id))
                for (const auto& st : r.stages)
                    if (st.id == i.stage && st.verdict != StageVerdict::error &&
                        st.verdict != StageVerdict::not_run)
                        x.error_at("stage", id + " was interrupted, but its verdict is " +
                                                to_string(st.verdict) +
                                                " (expected error or not_run)");
            r.interrupted = std::move(i);
        }
    }
    for (std::size_t i = 0; i < r.stages.size(); ++i)
        if (r.stages[i].verdict == StageVerdict::not_run && !r.interrupted)
            in.error_at("stages[" + std::to_string(i) + "].verdict",
                        "not_run, but the report has no \"interrupted\" (a run that was not "
                        "stopped runs every stage of its spec)");
    for (StageId id : all_stage_ids())
        if (!seen.count(id))
            in.error_at("stages", "stage " + to_string(id) +
                                      " is missing (a stage that did not run is listed as "
                                      "skipped or error, with a reason)");
    if (out.errors.empty() && verdict_from(verdict) && r.verdict != derived_verdict(r))
        in.error_at("verdict", verdict + ", but " +
                                   (r.interrupted ? std::string("the run was interrupted: ")
                                                  : std::string("the stages make it ")) +
                                   to_string(derived_verdict(r)));
    if (out.errors.empty()) out.report = std::move(r);
    return out;
}

ParsedReport report_from_text(const std::string& text) {
    // Strict: a duplicate key or a number no double holds is an error with its place.
    auto j = parse_json_text(text, "report.json", "read");
    if (!j) {
        ParsedReport out;
        out.errors.add("", j.error().detail);
        return out;
    }
    return report_from_json(*j);
}

json report_to_json(const Report& r) {
    json hosts = json::array();
    for (const auto& h : r.hosts)
        hosts.push_back({{"name", h.name}, {"address", h.address}, {"version", h.version}});
    json stages = json::array();
    for (const auto& s : r.stages) stages.push_back(stage_to(s));
    json j{{"schema", r.schema},
           {"verdict", to_string(r.verdict)},
           {"spec", r.spec},
           {"started_wall_ms", r.started_wall_ms},
           {"finished_wall_ms", r.finished_wall_ms},
           {"hosts", std::move(hosts)},
           {"stages", std::move(stages)}};
    // Only a stopped run has it: a finished run's report reads as before.
    if (r.interrupted)
        j["interrupted"] = {{"stage", to_string(r.interrupted->stage)},
                            {"cause", r.interrupted->cause},
                            {"reason", r.interrupted->reason}};
    return j;
}

}  // namespace rh::accept

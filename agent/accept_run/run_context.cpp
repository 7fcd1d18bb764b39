#include "agent/accept_run/run_context.h"

#include <chrono>
#include <fstream>
#include <iostream>

#include "core/clock.h"
#include "core/hostname.h"

namespace rh::accept {

double RunContext::now_s() const {
    return t_of(wall_now_ms());
}

std::string RunContext::name_of(const std::string& a) const {
    for (const auto& h : spec.hosts)
        if (h.address == a || h.name == a) return h.name;
    if (auto it = name_of_hostname.find(a); it != name_of_hostname.end()) return it->second;
    // "HOST:PORT" given, spec has "HOST" (or the reverse).
    for (const auto& h : spec.hosts)
        if (a.rfind(h.address + ":", 0) == 0 || h.address.rfind(a + ":", 0) == 0) return h.name;
    return a;
}

std::string RunContext::self_name() const {
    const std::string n = name_of(host_name());
    for (const auto& h : spec.hosts)
        if (h.name == n) return n;
    return "";
}

bool RunContext::save(const std::string& rel, const std::string& text) const {
    const auto path = out_dir / rel;
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    std::ofstream f(path);
    f << text;
    f.close();
    if (!f) {
        std::cerr << "rocehealth accept: cannot write " << path.string() << "\n";
        return false;
    }
    return true;
}

Criterion make_criterion(std::string name, std::string comparison, Scalar threshold,
                         std::string unit, Scalar measured, std::vector<std::string> evidence) {
    Criterion c;
    c.name = std::move(name);
    c.comparison = std::move(comparison);
    c.threshold = std::move(threshold);
    c.unit = std::move(unit);
    c.measured = std::move(measured);
    c.evidence = std::move(evidence);
    c.pass = criterion_holds(c);
    return c;
}

void settle(Stage& s) {
    if (s.criteria.empty()) {
        s.verdict = StageVerdict::error;
        if (s.reason.empty()) s.reason = "nothing was measured";
        return;
    }
    bool all = true;
    for (const auto& c : s.criteria) all &= c.pass;
    s.verdict = all ? StageVerdict::pass : StageVerdict::fail;
}

std::optional<double> number_at(const nlohmann::json& j, const char* key) {
    if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return std::nullopt;
    return j[key].get<double>();
}

void add_error_findings_criterion(Stage& st, const RunContext& cx,
                                  const std::function<bool(const Finding&)>& expected) {
    std::vector<std::string> ptr;
    for (std::size_t i = 0; i < st.findings.size(); ++i)
        if (st.findings[i].severity == Severity::error && !(expected && expected(st.findings[i])))
            ptr.push_back("/findings/" + std::to_string(i));
    st.criteria.push_back(make_criterion(
        expected ? "findings of severity error (besides the fault's own)"
                 : "findings of severity error",
        "<=", static_cast<double>(cx.spec.criteria.max_error_findings), "count",
        static_cast<double>(ptr.size()), ptr.empty() ? std::vector<std::string>{"/results"} : ptr));
}

Stage begin_stage(StageId id, const RunContext& cx) {
    Stage st;
    st.id = id;
    st.start_s = cx.now_s();
    return st;
}

void finish_stage(Stage& st, const RunContext& cx, StageResults results) {
    st.results = std::move(results);
    st.end_s = cx.now_s();
    settle(st);
}

void end_stage_in_error(Stage& st, const RunContext& cx, StageResults results, std::string reason) {
    st.results = std::move(results);
    st.end_s = cx.now_s();
    st.verdict = StageVerdict::error;
    st.reason = std::move(reason);
}

}  // namespace rh::accept

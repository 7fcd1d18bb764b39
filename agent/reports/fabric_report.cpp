#include "agent/reports/fabric_report.h"

#include <sstream>

#include "agent/fabric/fabric_queries.h"
#include "agent/fabric/time_arg.h"

namespace rh {

FabricReport fabric_report(const fabric::FabricResult& fr, const FabricAsked& asked) {
    EngineResult er;
    er.findings = fr.findings;
    er.notes = fr.notes;
    er.hosts = fr.hosts;
    er.t_first = asked.from_s;
    er.t_last = asked.to_s;
    er.wall_clock = true;
    for (const Note& n : fr.not_judged)
        er.not_judged.push_back(
            NotJudged{"fabric", n.subject, "no_verdict", 0, 0, 0, 0, 0, n.subject + ": " + n.text});
    InputReport in;
    in.name = asked.url;
    in.samples = asked.points;
    in.hosts = fr.hosts;
    return {
        diagnose_report(std::move(er), "built in: the logic of rocehealth-fabric-rules.yml", {in}),
        asked};
}

void to_json(nlohmann::json& doc, const FabricReport& r) {
    const FabricAsked& asked = r.asked;
    doc = r.diagnosis;
    nlohmann::json queries = nlohmann::json::array();
    for (const auto& q : fabric::fabric_queries(asked.match, asked.step_s))
        queries.push_back({{"name", q.name}, {"promql", q.promql}});
    doc["fabric"] = {{"prometheus", asked.url},
                     {"from", fabric::rfc3339(asked.from_s)},
                     {"to", fabric::rfc3339(asked.to_s)},
                     {"step_s", asked.step_s},
                     {"match", asked.match},
                     {"requests", asked.requests},
                     {"queries", queries}};
}

std::string fabric_text(const FabricReport& r, bool verbose) {
    std::ostringstream out;
    render_diagnose_text(out, r.diagnosis, verbose);
    std::string text = out.str();
    const std::string from = "rocehealth diagnose: ", to = "rocehealth fabric: ";
    if (text.rfind(from, 0) == 0) text.replace(0, from.size(), to);
    return text;
}

}  // namespace rh

#include "agent/reports/fabric_report.h"

#include <cstdio>
#include <sstream>

#include "agent/fabric/fabric_queries.h"
#include "agent/fabric/time_arg.h"

namespace rh {

namespace {

bool has_data(const FabricAsked& a) {
    return a.data_from_s != 0 || a.data_to_s != 0;
}

}  // namespace

FabricReport fabric_report(const fabric::FabricResult& fr, FabricAsked asked) {
    asked.data_from_s = fr.data_first_s;
    asked.data_to_s = fr.data_last_s;
    EngineResult er;
    er.findings = fr.findings;
    er.notes = fr.notes;
    er.hosts = fr.hosts;
    er.t_first = has_data(asked) ? asked.data_from_s : asked.from_s;
    er.t_last = has_data(asked) ? asked.data_to_s : asked.to_s;
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
    // "at": how it was asked, "range" (/api/v1/query_range over the range at the step) or
    // "end" (/api/v1/query at the range's end), so that it can be asked again as sent.
    for (const auto& q : asked.queries)
        queries.push_back(
            {{"name", q.name}, {"promql", q.promql}, {"at", q.at_end_only ? "end" : "range"}});
    doc["fabric"] = {
        {"prometheus", asked.url},
        {"from", fabric::rfc3339(asked.from_s)},
        {"to", fabric::rfc3339(asked.to_s)},
        {"data_from",
         has_data(asked) ? nlohmann::json(fabric::rfc3339(asked.data_from_s)) : nlohmann::json()},
        {"data_to",
         has_data(asked) ? nlohmann::json(fabric::rfc3339(asked.data_to_s)) : nlohmann::json()},
        {"step_s", asked.step_s},
        {"match", asked.match},
        {"requests", asked.requests},
        {"sources",
         {{"pause", asked.pause_source},
          {"mesh", asked.mesh_source},
          {"config", asked.config_source}}},
        {"queries", queries}};
}

std::string fabric_text(const FabricReport& r, bool verbose) {
    std::ostringstream out;
    render_diagnose_text(out, r.diagnosis, verbose);
    std::string text = out.str();
    const std::string from = "rocehealth diagnose: ", to = "rocehealth fabric: ";
    if (text.rfind(from, 0) == 0) text.replace(0, from.size(), to);
    // The header's span is the data found; say what was asked when it differs.
    const FabricAsked& a = r.asked;
    const std::size_t of_data = text.find(" of data from ");
    const std::size_t colon = of_data == std::string::npos ? of_data : text.find(": ", of_data);
    if (colon != std::string::npos && text.find('\n') > colon && has_data(a) &&
        (a.data_from_s != a.from_s || a.data_to_s != a.to_s)) {
        char secs[32];
        std::snprintf(secs, sizeof secs, "%.0f s", a.to_s - a.from_s);
        text.insert(colon,
                    std::string(" (asked: ") + secs + " from " + fabric::rfc3339(a.from_s) + ")");
    }
    // Which series each analysis read: a recorded finding's timeline has less detail.
    std::string read;
    for (const auto& [what, source] :
         {std::pair<const char*, const std::string*>{"pause", &a.pause_source},
          {"mesh", &a.mesh_source},
          {"config", &a.config_source}})
        if (!source->empty())
            read += (read.empty() ? "" : ", ") + std::string(what) + " " + *source;
    if (const std::size_t eol = text.find('\n'); !read.empty() && eol != std::string::npos)
        text.insert(eol + 1, "  read: " + read +
                                 " (raw: the agents' series; recorded: the fabric rules' "
                                 "series, --source)\n");
    return text;
}

}  // namespace rh

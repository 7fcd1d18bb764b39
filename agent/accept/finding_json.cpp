#include "agent/accept/finding_json.h"

namespace rh::accept {

namespace {

Severity severity_from(const std::string& s) {
    if (s == "info") return Severity::info;
    if (s == "error") return Severity::error;
    return Severity::warning;
}

TimelineEvent event_from_json(const JsonReader& in) {
    TimelineEvent e;
    if (!in.expect_object()) return e;
    e.t = in.req_number("t");
    e.wall_ms = in.opt_int("wall_ms").value_or(0);
    e.host = in.req_string("host");
    e.series = in.opt_string("series");
    e.labels = in.opt_string_map("labels");
    e.what = in.req_string("what");
    e.value = in.opt_string("value");
    e.unit = in.opt_string("unit");
    e.source = in.opt_string("source");
    return e;
}

}  // namespace

Finding finding_from_json(const JsonReader& in) {
    Finding f;
    if (!in.expect_object()) return f;
    f.rule_id = in.req_string("rule");
    f.severity = severity_from(in.req_enum("severity", {"info", "warning", "error"}));
    f.host = in.req_string("host");
    f.device = in.opt_string("device");
    f.port = static_cast<unsigned>(in.opt_uint("port").value_or(0));
    f.summary = in.req_string("summary");
    in.each("evidence", false, [&](const JsonReader& e) {
        if (!e.expect_object()) return;
        f.evidence.push_back({e.req_string("name"), e.req_string("value"), e.opt_string("unit"),
                              e.opt_string("source")});
    });
    f.labels = in.opt_string_map("labels");
    if (!in.has("episodes")) return f;  // an inventory check: no time dimension
    f.episodes = static_cast<unsigned>(in.req_uint("episodes"));
    if (f.episodes == 0) in.error_at("episodes", "expected at least 1 for a time-based finding");
    f.opened_t = in.req_number("opened_t");
    f.opened_wall_ms = in.opt_int("opened_wall_ms").value_or(0);
    f.closed_t = in.opt_number("closed_t").value_or(0);
    f.closed_wall_ms = in.opt_int("closed_wall_ms").value_or(0);
    f.explanation = in.opt_string("explanation");
    in.each("timeline", false,
            [&](const JsonReader& e) { f.timeline.push_back(event_from_json(e)); });
    in.each("alternatives", false, [&](const JsonReader& a) {
        if (!a.expect_object()) return;
        f.alternatives.push_back(
            {a.req_string("alternative"), a.req_string("status"), a.opt_string("reason")});
    });
    if (in.has("confidence")) {
        const JsonReader c = in.member("confidence");
        if (c.expect_object()) {
            f.confidence = c.opt_string("level");
            f.confidence_reason = c.opt_string("reason");
        }
    }
    return f;
}

}  // namespace rh::accept

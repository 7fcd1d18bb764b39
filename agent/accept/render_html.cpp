#include "agent/accept/render_html.h"

#include <algorithm>

#include "agent/accept/evidence_text.h"
#include "agent/accept/report_charts.h"
#include "agent/accept/report_style.h"
#include "agent/accept/results_html.h"
#include "agent/accept/text_format.h"

namespace rh::accept {

namespace {

std::string esc(const std::string& s) {
    return html_escape(s);
}

std::string badge(const std::string& verdict) {
    std::string text = verdict;  // "not_run" reads "not run"
    std::replace(text.begin(), text.end(), '_', ' ');
    return "<span class=\"badge " + verdict + "\">" + text + "</span>";
}

std::string criterion_anchor(const Stage& s, std::size_t i) {
    return stage_anchor(s.id) + "-criteria-" + std::to_string(i);
}

/// "+12.3 s" since the run started, from a wall-clock time; "" when there is none.
std::string since_start(const Report& r, std::int64_t wall_ms) {
    if (wall_ms == 0 || r.started_wall_ms == 0) return "";
    return "+" + fixed((static_cast<double>(wall_ms - r.started_wall_ms)) / 1000.0, 1) + " s";
}

std::string fabric_name(const Report& r) {
    if (r.spec.contains("name") && r.spec["name"].is_string())
        return r.spec["name"].get<std::string>();
    return "";
}

std::string evidence_links(const Stage& s, const std::vector<std::string>& pointers) {
    std::string o;
    for (const auto& p : pointers)
        o += "<a href=\"#" + evidence_anchor(s.id, p) + "\">" + esc(describe_evidence(s, p)) +
             "</a>";
    return o.empty() ? "-" : o;
}

// ---- summary at the top ----

/// The verdict's one-line explanation: which stages failed, stopped or could not complete.
std::string verdict_line(const Report& r) {
    std::size_t failed = 0, errors = 0, skipped = 0, not_run = 0;
    std::string failed_names;
    for (const auto& s : r.stages) {
        if (s.verdict == StageVerdict::fail) {
            ++failed;
            failed_names += (failed_names.empty() ? "" : ", ") + title_of(s);
        }
        errors += s.verdict == StageVerdict::error;
        skipped += s.verdict == StageVerdict::skipped;
        not_run += s.verdict == StageVerdict::not_run;
    }
    std::string line;
    if (r.verdict == Verdict::pass)
        line = "Every stage that ran met its criteria.";
    else if (r.verdict == Verdict::fail)
        line = std::to_string(failed) + " of " + std::to_string(r.stages.size()) +
               " stages failed: " + failed_names + ".";
    else if (r.interrupted) {
        const Stage* cut = r.stage(r.interrupted->stage);
        line = "The run was stopped: " + r.interrupted->reason + " (stage " +
               (cut ? title_of(*cut) : to_string(r.interrupted->stage)) + "). What was measured " +
               "before is kept below; " + std::to_string(not_run) + " stage" +
               (not_run == 1 ? "" : "s") + " not run. The fabric is not accepted until a run " +
               "completes.";
        if (failed) line += " Failed before the stop: " + failed_names + ".";
    } else
        line = std::to_string(errors) + " stage" + (errors == 1 ? "" : "s") +
               " could not complete; the fabric is not accepted until they run.";
    if (skipped) line += " " + std::to_string(skipped) + " skipped by the spec.";
    return line;
}

/// The verdict banner: PASS/FAIL/INCOMPLETE, why, the hosts and the run's time span.
std::string verdict_banner(const Report& r) {
    const std::string v = to_string(r.verdict);
    std::string hosts;
    for (const auto& h : r.hosts) hosts += (hosts.empty() ? "" : ", ") + h.name;
    return "<div class=\"verdict " + v + "\" id=\"verdict\"><div class=\"big\">" +
           (r.verdict == Verdict::pass   ? std::string("PASS")
            : r.verdict == Verdict::fail ? std::string("FAIL")
                                         : std::string("INCOMPLETE")) +
           "</div><div><p><b>Verdict: " + v + "</b> &mdash; " + esc(verdict_line(r)) +
           "</p><p class=\"dim\">" + std::to_string(r.hosts.size()) + " hosts (" + esc(hosts) +
           "), run " + esc(utc_text(r.started_wall_ms)) + " to " +
           esc(utc_text(r.finished_wall_ms)) + " (" +
           esc(duration_text(static_cast<double>(r.finished_wall_ms - r.started_wall_ms) / 1000)) +
           ")</p></div></div>";
}

/// The stages table: verdict, criteria met, findings, duration and note of each.
std::string stages_table(const Report& r) {
    std::string o =
        "<h3 style=\"margin-top:0\">Stages</h3>"
        "<table class=\"stages\"><thead><tr><th>#</th><th>stage</th><th>verdict</th>"
        "<th class=\"num\">criteria met</th><th class=\"num\">findings</th>"
        "<th class=\"num\">duration</th><th>note</th></tr></thead><tbody>";
    for (std::size_t i = 0; i < r.stages.size(); ++i) {
        const auto& s = r.stages[i];
        const auto [met, err, warn] = stage_counts(s);
        std::string findings = std::to_string(s.findings.size());
        if (err || warn)
            findings +=
                " (" + std::to_string(err) + " error, " + std::to_string(warn) + " warning)";
        o +=
            std::string("<tr") + (s.verdict == StageVerdict::fail ? " class=\"bad\"" : "") +
            "><td>" + std::to_string(i + 1) + "</td><td><a href=\"#" + stage_anchor(s.id) + "\">" +
            esc(title_of(s)) + "</a></td><td>" + badge(to_string(s.verdict)) +
            "</td><td class=\"num\">" +
            (s.criteria.empty() ? "-"
                                : std::to_string(met) + " / " + std::to_string(s.criteria.size())) +
            "</td><td class=\"num\">" + findings + "</td><td class=\"num\">" +
            (s.start_s && s.end_s ? esc(duration_text(*s.end_s - *s.start_s)) : "-") + "</td><td>" +
            esc(s.reason) + "</td></tr>";
    }
    return o + "</tbody></table>";
}

/// Every failing criterion with what was measured, what was required and links to its
/// evidence; "" when none failed.
std::string failing_criteria(const Report& r) {
    std::string fails;
    for (const auto& s : r.stages)
        for (std::size_t i = 0; i < s.criteria.size(); ++i) {
            const auto& c = s.criteria[i];
            if (c.pass) continue;
            fails += "<li><a href=\"#" + criterion_anchor(s, i) + "\"><b>" + esc(title_of(s)) +
                     "</b>: " + esc(c.name) + "</a> &mdash; measured <b>" +
                     esc(scalar_text(c.measured, c.unit)) + "</b>, required " + esc(c.comparison) +
                     " " + esc(scalar_text(c.threshold, c.unit)) +
                     "<br><span class=\"dim\">evidence:</span> <span class=\"evlinks\">" +
                     evidence_links(s, c.evidence) + "</span></li>";
        }
    if (fails.empty()) return "";
    return "<h3>Failing criteria</h3><ul class=\"fails\">" + fails + "</ul>";
}

std::string summary_html(const Report& r) {
    std::string o =
        verdict_banner(r) + "<div class=\"card\">" + stages_table(r) + failing_criteria(r);
    o += "<h3>Hosts</h3><table><thead><tr><th>host</th><th>address</th><th>rocehealth</th></tr>"
         "</thead><tbody>";
    for (const auto& h : r.hosts)
        o += "<tr><td>" + esc(h.name) + "</td><td>" + esc(h.address.empty() ? "-" : h.address) +
             "</td><td>" + esc(h.version.empty() ? "unknown" : h.version) + "</td></tr>";
    return o + "</tbody></table></div>";
}

// ---- one stage ----

std::string criteria_html(const Stage& s) {
    if (s.criteria.empty()) return "";
    std::string o =
        "<h3>Criteria</h3><table class=\"criteria\"><thead><tr><th>criterion</th><th>required</th>"
        "<th>measured</th><th>result</th><th>evidence</th></tr></thead><tbody>";
    for (std::size_t i = 0; i < s.criteria.size(); ++i) {
        const auto& c = s.criteria[i];
        o += "<tr id=\"" + criterion_anchor(s, i) + "\"" + (c.pass ? "" : " class=\"bad\"") +
             "><td>" + esc(c.name) + "</td><td class=\"num\">" + esc(c.comparison) + " " +
             esc(scalar_text(c.threshold, c.unit)) + "</td><td class=\"num" +
             (c.pass ? "" : " badtext") + "\">" + esc(scalar_text(c.measured, c.unit)) +
             "</td><td>" +
             (c.pass ? "<span class=\"ok\">\xE2\x9C\x93 pass</span>"
                     : "<span class=\"badtext\">\xE2\x9C\x97 fail</span>") +
             "</td><td class=\"evlinks\">" + evidence_links(s, c.evidence) + "</td></tr>";
    }
    return o + "</tbody></table>";
}

std::string finding_html(const Report& r, const Stage& s, std::size_t i, bool flagged) {
    const Finding& f = s.findings[i];
    const std::string sev = to_string(f.severity);
    std::string where = f.host;
    if (!f.device.empty()) where += " " + f.device;
    if (f.port) where += " port " + std::to_string(f.port);
    for (const auto& [k, v] : f.labels) where += " " + k + "=" + v;
    std::string o = "<div class=\"finding sev-" + sev + (flagged ? " bad" : "") + "\" id=\"" +
                    evidence_anchor(s.id, "/findings/" + std::to_string(i)) + "\"><div>" +
                    "<span class=\"badge sev-" + sev + "\">" + sev + "</span> <b>" +
                    esc(f.rule_id) + "</b> on " + esc(where);
    if (f.episodes > 0) {
        o += " <span class=\"dim\">from " + esc(since_start(r, f.opened_wall_ms)) +
             (f.closed_wall_ms ? " to " + esc(since_start(r, f.closed_wall_ms))
                               : std::string(", still holding at the end")) +
             (f.episodes > 1 ? ", " + std::to_string(f.episodes) + " episodes" : std::string()) +
             "</span>";
    }
    o += "</div><p class=\"summary\">" + esc(f.summary) + "</p>";
    if (!f.explanation.empty()) o += "<p class=\"dim\">" + esc(f.explanation) + "</p>";
    if (!f.evidence.empty()) {
        o += "<table><thead><tr><th>evidence</th><th>value</th><th>source</th></tr></thead><tbody>";
        for (const auto& e : f.evidence)
            // Values are printed with their unit already ("36 packets in 10 s"), as diagnose does.
            o += "<tr><td>" + esc(e.name) + "</td><td>" + esc(e.value) + "</td><td class=\"dim\">" +
                 esc(e.source) + "</td></tr>";
        o += "</tbody></table>";
    }
    if (!f.timeline.empty()) {
        o += "<table><thead><tr><th class=\"num\">time</th><th>UTC</th><th>host</th><th>what</th>"
             "<th>value</th></tr></thead><tbody>";
        for (const auto& e : f.timeline)
            o += "<tr><td class=\"num\">" + esc(since_start(r, e.wall_ms)) +
                 "</td><td class=\"dim\">" + esc(e.wall_ms ? utc_text(e.wall_ms) : "-") +
                 "</td><td>" + esc(e.host) + "</td><td>" + esc(e.what) + "</td><td>" +
                 esc(e.value) + "</td></tr>";
        o += "</tbody></table>";
    }
    if (!f.alternatives.empty()) {
        o += "<div class=\"dim\">Alternatives checked:</div><ul>";
        for (const auto& a : f.alternatives)
            o += "<li>" + esc(a.alternative) + ": <b>" + esc(a.status) + "</b>" +
                 (a.reason.empty() ? "" : " &mdash; " + esc(a.reason)) + "</li>";
        o += "</ul>";
    }
    if (!f.confidence.empty())
        o += "<div class=\"dim\">Confidence: <b>" + esc(f.confidence) + "</b>" +
             (f.confidence_reason.empty() ? "" : " &mdash; " + esc(f.confidence_reason)) + "</div>";
    return o + "</div>";
}

std::string stage_html(const Report& r, const Stage& s, const std::vector<std::string>& hosts) {
    const auto flagged = failing_evidence(s);
    std::string o = "<section class=\"card\" id=\"" + stage_anchor(s.id) + "\"><h2>" +
                    esc(title_of(s)) + " " + badge(to_string(s.verdict)) + "</h2>";
    std::string when;
    if (s.start_s && s.end_s)
        when = "+" + fixed(*s.start_s, 0) + " s to +" + fixed(*s.end_s, 0) + " s (" +
               duration_text(*s.end_s - *s.start_s) + ")";
    o += "<p class=\"dim\">stage <code>" + to_string(s.id) + "</code>" +
         (when.empty() ? "" : ", " + esc(when)) + "</p>";
    if (!s.reason.empty()) o += "<div class=\"reason\">" + esc(s.reason) + "</div>";
    o += criteria_html(s);
    const std::string results = results_html(s, hosts);
    if (!results.empty()) o += "<h3>Results</h3>" + results;
    if (!s.counter_timelines.empty()) {
        o += "<h3>Counters around this stage</h3><div class=\"charts\">";
        for (const auto& chart : timeline_charts(s)) {
            o += "<figure>";
            for (std::size_t i : chart.indices)
                o += "<span id=\"" +
                     evidence_anchor(s.id, "/counter_timelines/" + std::to_string(i)) +
                     "\"></span>";
            o += chart.svg + "</figure>";
        }
        o += "</div>";
    }
    if (!s.findings.empty()) {
        o += "<h3>Findings in this stage's window (" + std::to_string(s.findings.size()) + ")</h3>";
        for (std::size_t i = 0; i < s.findings.size(); ++i)
            o += finding_html(r, s, i, flagged.count("/findings/" + std::to_string(i)) > 0);
    } else if (s.verdict != StageVerdict::skipped && s.verdict != StageVerdict::not_run) {
        o += "<p class=\"dim\">No findings in this stage's window.</p>";
    }
    if (!s.evidence_links.empty()) {
        o += "<h3>Raw data</h3><ul>";
        for (const auto& l : s.evidence_links)
            o += "<li><a href=\"" + esc(l.href) + "\">" + esc(l.label) +
                 "</a> <span class=\"dim\">" + esc(l.href) + "</span></li>";
        o += "</ul>";
    }
    return o + "</section>";
}

}  // namespace

std::string render_html(const Report& r) {
    std::vector<std::string> hosts;
    for (const auto& h : r.hosts) hosts.push_back(h.name);
    const std::string name = fabric_name(r);
    std::string o =
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "style-src 'unsafe-inline'; img-src data:\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        "<title>" +
        esc("RoCE fabric acceptance: " +
            std::string(r.verdict == Verdict::pass   ? "PASS"
                        : r.verdict == Verdict::fail ? "FAIL"
                                                     : "INCOMPLETE") +
            (name.empty() ? "" : " \xE2\x80\x94 " + name)) +
        "</title><style>" + kReportCss + "</style></head><body><main>";
    o += "<h1>RoCE fabric acceptance report</h1><p class=\"sub\">" +
         esc(name.empty() ? "fabric" : name) +
         " &middot; generated by <code>rocehealth accept</code> "
         "&middot; report schema " +
         std::to_string(r.schema) + "</p>";
    o += summary_html(r);
    for (const auto& s : r.stages) o += stage_html(r, s, hosts);
    o += "<section class=\"card\"><details><summary>Spec used for this run (defaults filled in)"
         "</summary><pre>" +
         esc(r.spec.dump(2, ' ', false, nlohmann::json::error_handler_t::replace)) +
         "</pre></details></section>";
    o += "<footer>Machine-readable results: report.json (schema " + std::to_string(r.schema) +
         ", agent/accept/README.md). Units: µs microseconds, Gb/s = 10<sup>9</sup> bit/s, "
         "MiB/s = 2<sup>20</sup> bytes/s; times are seconds since the run started.</footer>";
    return o + "</main></body></html>\n";
}

}  // namespace rh::accept

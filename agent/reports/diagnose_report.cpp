#include "agent/reports/diagnose_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>

#include "agent/reports/note_text.h"

namespace rh {

namespace {

nlohmann::json notes_json(const std::vector<Note>& notes) {
    nlohmann::json a = nlohmann::json::array();
    for (const Note& n : notes) a.push_back({{"subject", n.subject}, {"text", n.text}});
    return a;
}

std::string labels_text(const Labels& labels) {
    std::string s;
    for (const auto& [k, v] : labels) s += (s.empty() ? "" : " ") + k + "=" + v;
    return s;
}

/// The findings of `findings` whose evidence cites log line `e` (by its source), by rule id.
std::vector<std::string> cited_by(const std::vector<Finding>& findings, const LogEvent& e) {
    std::vector<std::string> ids;
    for (const Finding& f : findings)
        if (std::any_of(f.evidence.begin(), f.evidence.end(),
                        [&](const Evidence& ev) { return ev.source == e.source; }))
            ids.push_back(f.rule_id);
    return ids;
}

std::string seconds_text(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g s", std::round(s * 10) / 10);
    return buf;
}

}  // namespace

std::string not_judged_sentence(const EngineResult& r, bool captures) {
    if (r.not_judged.empty()) return {};
    std::vector<std::string> parts;
    std::vector<std::string> hosts;
    for (const NotJudged& n : r.not_judged)
        if (std::find(hosts.begin(), hosts.end(), n.host) == hosts.end()) hosts.push_back(n.host);
    for (const std::string& h : hosts) {
        std::string one;
        for (const NotJudged& n : r.not_judged)
            if (n.host == h && n.kind == "one_capture")
                one += (one.empty() ? "" : ", ") + n.rule_id;
        if (!one.empty())
            parts.push_back(std::string(captures ? "one capture of " : "one pass of data of ") + h +
                            ", rates need two (" + one + ")");
        std::string unspaced;
        for (const NotJudged& n : r.not_judged)
            if (n.host == h && n.kind == "no_interval")
                unspaced += (unspaced.empty() ? "" : ", ") + n.rule_id;
        if (!unspaced.empty())
            parts.push_back("rules " + unspaced + " need the time between the captures of " + h +
                            ": give --interval SECONDS or a `timestamp` file / `date` line in "
                            "each capture");
        for (const NotJudged& n : r.not_judged) {
            if (n.host != h || n.kind == "one_capture" || n.kind == "no_interval") continue;
            if (n.kind == "short_span") {
                std::string what;
                if (n.window_s > 0) what = "a " + seconds_text(n.window_s) + " window";
                if (n.hold_s > 0)
                    what += (what.empty() ? "a " : ", a ") + seconds_text(n.hold_s) + " hold";
                parts.push_back(n.rule_id + " needs " + seconds_text(n.need_s) + " of data (" +
                                what + "), the " + (captures ? "captures of " : "data of ") + h +
                                (captures ? " span " : " spans ") + seconds_text(n.span_s));
            } else if (n.kind == "no_verdict" || n.kind == "no_counters") {
                parts.push_back(n.text);  // names its host (and port) already
            } else {
                parts.push_back(n.text + " (" + h + ")");
            }
        }
    }
    std::string out = "could not judge rates: ";
    for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? "; " : "") + parts[i];
    return out;
}

std::string format_engine_time(double t, bool wall_clock, double t_first) {
    char buf[64];
    if (!wall_clock) {
        std::snprintf(buf, sizeof buf, "+%.1fs", t - t_first);
        return buf;
    }
    const auto secs = static_cast<std::time_t>(std::floor(t));
    const int ms = static_cast<int>(std::lround((t - std::floor(t)) * 1000.0)) % 1000;
    std::tm tm{};
    gmtime_r(&secs, &tm);
    const std::size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    std::snprintf(buf + n, sizeof buf - n, ".%03dZ", ms);
    return buf;
}

std::vector<DiagnoseTimelineEntry> merged_timeline(const std::vector<Finding>& findings) {
    std::vector<DiagnoseTimelineEntry> out;
    for (const Finding& f : findings)
        for (const TimelineEvent& e : f.timeline) out.push_back({&f, &e});
    std::stable_sort(out.begin(), out.end(),
                     [](const auto& a, const auto& b) { return a.event->t < b.event->t; });
    return out;
}

std::string DiagnoseReport::verdict() const {
    return !engine.findings.empty()  ? "findings"
           : could_not_judge.empty() ? "healthy"
                                     : "could_not_judge";
}

DiagnoseReport diagnose_report(EngineResult r, std::string rules_file,
                               std::vector<InputReport> inputs, bool captures, bool live) {
    DiagnoseReport d;
    for (const InputReport& in : inputs) d.unspaced_captures += in.spacing_unknown;
    std::string cnj = not_judged_sentence(r, captures);
    // Live inputs are read whole every pass: what stayed unreadable (a port's state, its GID
    // table) is a fault of the read, and "healthy" would claim what no rule saw (as `check`
    // says INCOMPLETE).
    if (live && cnj.empty() && !r.unevaluated.empty()) {
        cnj = "could not judge: " + std::to_string(r.unevaluated.size()) +
              (r.unevaluated.size() == 1 ? " item" : " items") + " could not be evaluated (";
        for (std::size_t i = 0; i < r.unevaluated.size() && i < 3; ++i)
            cnj += (i ? "; " : "") + r.unevaluated[i].subject + ": " + r.unevaluated[i].text;
        cnj += r.unevaluated.size() > 3 ? "; ...)" : ")";
    }
    d.could_not_judge = std::move(cnj);
    d.engine = std::move(r);
    d.rules_file = std::move(rules_file);
    d.inputs = std::move(inputs);
    return d;
}

void to_json(nlohmann::json& doc, const DiagnoseReport& d) {
    const EngineResult& r = d.engine;
    doc = nlohmann::json::object();
    doc["schema"] = 1;
    doc["rules_file"] = d.rules_file;
    doc["inputs"] = nlohmann::json::array();
    for (const InputReport& in : d.inputs)
        doc["inputs"].push_back({{"name", in.name},
                                 {"samples", in.samples},
                                 {"hosts", in.hosts},
                                 {"notes", in.notes},
                                 {"warnings", in.warnings}});
    doc["hosts"] = r.hosts;
    doc["span"] = {{"t_first", r.t_first},
                   {"t_last", r.t_last},
                   {"seconds", r.t_last - r.t_first},
                   {"wall_clock", r.wall_clock}};
    if (d.unspaced_captures > 0) doc["span"]["unspaced_captures"] = d.unspaced_captures;
    doc["findings"] = r.findings;
    nlohmann::json timeline = nlohmann::json::array();
    for (const DiagnoseTimelineEntry& e : merged_timeline(r.findings)) {
        nlohmann::json j = *e.event;
        j["rule"] = e.finding->rule_id;
        j["severity"] = to_string(e.finding->severity);
        timeline.push_back(std::move(j));
    }
    doc["timeline"] = std::move(timeline);
    doc["not_applicable"] = notes_json(r.not_applicable);
    doc["unevaluated"] = notes_json(r.unevaluated);
    doc["notes"] = notes_json(r.notes);
    doc["not_judged"] = nlohmann::json::array();
    for (const NotJudged& n : r.not_judged)
        doc["not_judged"].push_back({{"host", n.host},
                                     {"rule", n.rule_id},
                                     {"kind", n.kind},
                                     {"window_s", n.window_s},
                                     {"hold_s", n.hold_s},
                                     {"need_s", n.need_s},
                                     {"span_s", n.span_s},
                                     {"captures", n.passes},
                                     {"text", n.text}});
    doc["history"] = notes_json(r.history);
    // Every job and kernel log line read, placed (agent/replay/log_placement.h), with the rules
    // that cite it: none is dropped.
    doc["log_events"] = nlohmann::json::array();
    for (const auto& e : r.log_events) {
        nlohmann::json j = e.event;
        j["host"] = e.host;
        if (!e.peer_host.empty()) j["peer_host"] = e.peer_host;
        j["t"] = e.t;
        j["timed"] = e.timed;
        j["placement"] = e.placement;
        j["cited_by"] = cited_by(r.findings, e.event);
        doc["log_events"].push_back(std::move(j));
    }
    doc["verdict"] = d.verdict();
    if (!d.could_not_judge.empty()) doc["could_not_judge"] = d.could_not_judge;
    if (r.findings.empty() && !d.could_not_judge.empty()) doc["error"] = d.could_not_judge;
}

namespace {

/// The log lines no finding cites (the cited ones are in the findings' evidence), with their
/// host and time: at most kShown, then a count.
template <typename When>
void print_log_lines(std::ostream& out, const EngineResult& r, const When& when) {
    if (r.log_events.empty()) return;
    constexpr std::size_t kShown = 30;
    std::size_t listed = 0, uncited = 0;
    std::vector<bool> cited;
    for (const auto& e : r.log_events) cited.push_back(!cited_by(r.findings, e.event).empty());
    for (const bool c : cited) uncited += !c;
    out << "\njob and kernel log lines: " << r.log_events.size() << " read";
    if (uncited == 0) {
        out << ", each cited by a finding above\n";
        return;
    }
    out << "; " << uncited << " not cited by a finding:\n";
    for (std::size_t i = 0; i < r.log_events.size(); ++i) {
        if (cited[i]) continue;
        if (++listed > kShown) break;
        const auto& e = r.log_events[i];
        out << "  " << (e.timed ? when(e.t) : "(order only)") << "  "
            << (e.host.empty() ? "(no host)" : e.host) << "  " << e.event.kind << ": "
            << e.event.text << "  (" << e.event.source << ")\n";
    }
    if (uncited > kShown) out << "  ... " << uncited - kShown << " more (--json lists all)\n";
}

/// A finding as diagnose prints it: its head line (host, labels, when it held), summary,
/// evidence, the alternatives it checked and its confidence.
template <typename When>
void print_finding(std::ostream& out, const Finding& f, const When& when) {
    out << "\n[" << to_string(f.severity) << "] " << f.rule_id << " on "
        << (f.host.empty() ? "a host no input names" : f.host);
    if (!f.labels.empty()) out << " {" << labels_text(f.labels) << "}";
    if (f.episodes > 0) {
        out << ", from " << when(f.opened_t);
        if (f.closed_t != 0)
            out << " to " << when(f.closed_t);
        else
            out << ", still holding at the end";
        if (f.episodes > 1) out << " (" << f.episodes << " episodes)";
    }
    out << "\n  " << f.summary << "\n";
    if (!f.evidence.empty()) out << "  evidence:\n";
    print_evidence(out, f.evidence);
    // A finding without episodes (inventory, lifetime) states no alternatives (core/finding.h).
    if (f.episodes > 0 && !f.alternatives.empty()) {
        out << "  alternatives:\n";
        for (const AlternativeCheck& a : f.alternatives)
            out << "    " << a.alternative << ": " << a.status << " (" << a.reason << ")\n";
    }
    if (!f.confidence.empty())
        out << "  confidence: " << f.confidence << " — " << f.confidence_reason << "\n";
}

/// What the verdict does not rest on, after the findings and the timeline: rules not judged,
/// history, input warnings, notes, what could not be evaluated; `verbose` adds what was not
/// applicable and each input's notes (else a count of the former).
void print_what_was_not_judged(std::ostream& out, const DiagnoseReport& d, bool verbose) {
    const EngineResult& r = d.engine;
    if (!r.not_judged.empty()) {
        out << "\ncould not judge (too little data, or values that gave no verdict; no finding "
               "from these rules does not mean healthy):\n";
        for (const NotJudged& n : r.not_judged) out << "  " << n.host << ": " << n.text << "\n";
    }
    if (!r.history.empty()) {
        out << "\nhistory (counts since the counters were last reset that the rates show are not "
               "growing now):\n";
        for (const Note& n : r.history) out << "  " << n.subject << ": " << n.text << "\n";
    }
    // Input warnings (agent/replay/inputs.h): files not read, hosts mixed in one file; always
    // shown.
    bool warned = false;
    for (const InputReport& in : d.inputs)
        for (const std::string& w : in.warnings) {
            if (!warned) out << "\ninput notes (what was not read or was matched weakly):\n";
            warned = true;
            out << "  " << w << "\n";
        }
    print_note_list(out, "notes (not findings)", r.notes);
    print_note_list(out, "could not evaluate (series present but without usable values)",
                    r.unevaluated);
    if (verbose) {
        if (!r.not_applicable.empty()) {
            out << "\nnot applicable (the data has none of what the rule reads):\n";
            for (const Note& n : r.not_applicable)
                out << "  " << n.subject << ": " << n.text << "\n";
        }
        for (const InputReport& in : d.inputs) {
            out << "\ninput " << in.name << ": " << in.samples << " samples\n";
            for (const std::string& n : in.notes) out << "  " << n << "\n";
        }
    } else if (!r.not_applicable.empty()) {
        out << "\n"
            << r.not_applicable.size()
            << " rule/host pairs not applicable to this data (--verbose lists them)\n";
    }
}

}  // namespace

void render_diagnose_text(std::ostream& out, const DiagnoseReport& d, bool verbose) {
    const EngineResult& r = d.engine;
    const bool wall = r.wall_clock;
    const double t0 = r.t_first;
    std::string hosts;
    for (const auto& h : r.hosts) hosts += (hosts.empty() ? "" : ", ") + h;
    char secs[32];
    std::snprintf(secs, sizeof secs, "%.0f s", r.t_last - r.t_first);
    const std::size_t unspaced = d.unspaced_captures;
    out << "rocehealth diagnose: " << (hosts.empty() ? "no hosts" : hosts) << ", ";
    // Captures without a clock are 1 apart in engine time (an order, not seconds,
    // agent/replay/inputs.cpp): their times print as "capture N".
    const auto when = [&](double t) {
        if (unspaced > 0) return "capture " + std::to_string(std::llround(t - t0) + 1);
        return format_engine_time(t, wall, t0);
    };
    if (unspaced > 0)  // their engine times are an order, not seconds
        out << unspaced << " captures in the given order, no clock";
    else
        out << secs << " of data";
    if (wall) out << " from " << format_engine_time(t0, true, t0);
    out << ": ";
    const std::string& cnj = d.could_not_judge;
    const auto& findings = r.findings;
    if (findings.empty() && cnj.empty())
        out << "no findings";
    else if (!findings.empty())
        out << findings.size() << (findings.size() == 1 ? " finding" : " findings")
            << (cnj.empty() ? "" : "; " + cnj);
    else
        out << cnj;
    out << " (rules: " << d.rules_file << ")\n";
    // Bundles: which captures were taken as one host and the evidence that decided (the first
    // note of each capture, agent/replay/inputs.h); a capture that starts a host alone is not
    // printed.
    for (const InputReport& in : d.inputs) {
        if (in.notes.empty()) continue;
        const std::string& n = in.notes[0];
        if (n.find(": same host as ") != std::string::npos ||
            n.find("'s host (") != std::string::npos ||
            n.find("treated as the same host as ") != std::string::npos)
            out << "  " << n << "\n";
    }

    for (const Finding& f : findings) print_finding(out, f, when);

    const auto timeline = merged_timeline(findings);
    if (!timeline.empty()) {
        out << "\ntimeline:\n";
        for (const DiagnoseTimelineEntry& te : timeline) {
            const TimelineEvent& e = *te.event;
            out << "  " << when(e.t) << "  " << e.host << "  [" << te.finding->rule_id << "] "
                << e.what;
            if (!e.value.empty()) out << " (" << e.value << ")";
            out << "\n";
        }
    }
    print_log_lines(out, r, when);
    print_what_was_not_judged(out, d, verbose);
}

}  // namespace rh

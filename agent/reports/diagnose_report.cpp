#include "agent/reports/diagnose_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>

#include "agent/reports/note_text.h"
#include "rules/evidence_format.h"

namespace rh {

namespace {

nlohmann::json notes_json(const std::vector<Note>& notes) {
    nlohmann::json a = nlohmann::json::array();
    for (const Note& n : notes) a.push_back({{"subject", n.subject}, {"text", n.text}});
    return a;
}

std::string labels_text(const nlohmann::json& labels) {
    std::string s;
    for (const auto& [k, v] : labels.items())
        s += (s.empty() ? "" : " ") + k + "=" + v.get<std::string>();
    return s;
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

nlohmann::json diagnose_json(const EngineResult& r, const std::string& rules_file,
                             const std::vector<InputReport>& inputs, bool captures, bool live) {
    nlohmann::json doc;
    doc["schema"] = 1;
    doc["rules_file"] = rules_file;
    doc["inputs"] = nlohmann::json::array();
    for (const InputReport& in : inputs)
        doc["inputs"].push_back({{"name", in.name},
                                 {"samples", in.samples},
                                 {"hosts", in.hosts},
                                 {"notes", in.notes},
                                 {"warnings", in.warnings}});
    doc["hosts"] = r.hosts;
    std::size_t unspaced = 0;  // captures of hosts with no clock (InputReport::spacing_unknown)
    for (const InputReport& in : inputs) unspaced += in.spacing_unknown;
    doc["span"] = {{"t_first", r.t_first},
                   {"t_last", r.t_last},
                   {"seconds", r.t_last - r.t_first},
                   {"wall_clock", r.wall_clock}};
    if (unspaced > 0) doc["span"]["unspaced_captures"] = unspaced;
    doc["findings"] = r.findings;
    nlohmann::json timeline = nlohmann::json::array();
    for (const Finding& f : r.findings)
        for (const TimelineEvent& e : f.timeline) {
            nlohmann::json j = e;
            j["rule"] = f.rule_id;
            j["severity"] = to_string(f.severity);
            timeline.push_back(std::move(j));
        }
    std::stable_sort(timeline.begin(), timeline.end(), [](const auto& a, const auto& b) {
        return a["t"].template get<double>() < b["t"].template get<double>();
    });
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
        nlohmann::json cited = nlohmann::json::array();
        for (const Finding& f : r.findings)
            if (std::any_of(f.evidence.begin(), f.evidence.end(),
                            [&](const Evidence& ev) { return ev.source == e.event.source; }))
                cited.push_back(f.rule_id);
        j["cited_by"] = std::move(cited);
        doc["log_events"].push_back(std::move(j));
    }
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
    doc["verdict"] = !r.findings.empty() ? "findings" : cnj.empty() ? "healthy" : "could_not_judge";
    if (!cnj.empty()) doc["could_not_judge"] = cnj;
    if (r.findings.empty() && !cnj.empty()) doc["error"] = cnj;
    return doc;
}

namespace {

/// The log lines no finding cites (the cited ones are in the findings' evidence), with their
/// host and time: at most kShown, then a count.
template <typename When>
void print_log_lines(std::ostream& out, const nlohmann::json& doc, const When& when) {
    if (!doc.contains("log_events") || doc["log_events"].empty()) return;
    constexpr std::size_t kShown = 30;
    std::size_t listed = 0, uncited = 0;
    for (const auto& e : doc["log_events"]) uncited += e["cited_by"].empty();
    out << "\njob and kernel log lines: " << doc["log_events"].size() << " read";
    if (uncited == 0) {
        out << ", each cited by a finding above\n";
        return;
    }
    out << "; " << uncited << " not cited by a finding:\n";
    for (const auto& e : doc["log_events"]) {
        if (!e["cited_by"].empty()) continue;
        if (++listed > kShown) break;
        const std::string host = e["host"].get<std::string>();
        out << "  " << (e["timed"].get<bool>() ? when(e["t"].get<double>()) : "(order only)")
            << "  " << (host.empty() ? "(no host)" : host) << "  " << e["kind"].get<std::string>()
            << ": " << e["text"].get<std::string>() << "  (" << e["source"].get<std::string>()
            << ")\n";
    }
    if (uncited > kShown) out << "  ... " << uncited - kShown << " more (--json lists all)\n";
}

}  // namespace

void render_diagnose_text(std::ostream& out, const nlohmann::json& doc, bool verbose) {
    const auto& span = doc["span"];
    const bool wall = span["wall_clock"].get<bool>();
    const double t0 = span["t_first"].get<double>();
    const auto& findings = doc["findings"];
    std::string hosts;
    for (const auto& h : doc["hosts"]) hosts += (hosts.empty() ? "" : ", ") + h.get<std::string>();
    char secs[32];
    std::snprintf(secs, sizeof secs, "%.0f s", span["seconds"].get<double>());
    const std::size_t unspaced = span.value("unspaced_captures", std::size_t{0});
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
    const std::string cnj = doc.value("could_not_judge", std::string());
    if (findings.empty() && cnj.empty())
        out << "no findings";
    else if (!findings.empty())
        out << findings.size() << (findings.size() == 1 ? " finding" : " findings")
            << (cnj.empty() ? "" : "; " + cnj);
    else
        out << cnj;
    out << " (rules: " << doc["rules_file"].get<std::string>() << ")\n";
    // Bundles: which captures were taken as one host and the evidence that decided (the first
    // note of each capture, agent/replay/inputs.h); a capture that starts a host alone is not
    // printed.
    for (const auto& in : doc["inputs"]) {
        if (!in.contains("notes") || in["notes"].empty()) continue;
        const std::string n = in["notes"][0].get<std::string>();
        if (n.find(": same host as ") != std::string::npos ||
            n.find("'s host (") != std::string::npos ||
            n.find("treated as the same host as ") != std::string::npos)
            out << "  " << n << "\n";
    }

    for (const auto& f : findings) {
        const std::string fhost = f["host"].get<std::string>();
        out << "\n[" << f["severity"].get<std::string>() << "] " << f["rule"].get<std::string>()
            << " on " << (fhost.empty() ? "a host no input names" : fhost);
        if (!f["labels"].empty()) out << " {" << labels_text(f["labels"]) << "}";
        if (f.contains("episodes") && f["episodes"].get<unsigned>() > 0) {
            out << ", from " << when(f["opened_t"].get<double>());
            if (!f["closed_t"].is_null())
                out << " to " << when(f["closed_t"].get<double>());
            else
                out << ", still holding at the end";
            if (f["episodes"].get<unsigned>() > 1)
                out << " (" << f["episodes"].get<unsigned>() << " episodes)";
        }
        out << "\n  " << f["summary"].get<std::string>() << "\n";
        if (!f["evidence"].empty()) out << "  evidence:\n";
        for (const auto& e : f["evidence"]) {
            out << "    " << e["name"].get<std::string>() << " = "
                << evidence_text(e["value"].get<std::string>(), e["unit"].get<std::string>());
            if (!e["source"].get<std::string>().empty())
                out << "  (" << e["source"].get<std::string>() << ")";
            out << "\n";
        }
        if (f.contains("alternatives") && !f["alternatives"].empty()) {
            out << "  alternatives:\n";
            for (const auto& a : f["alternatives"])
                out << "    " << a["alternative"].get<std::string>() << ": "
                    << a["status"].get<std::string>() << " (" << a["reason"].get<std::string>()
                    << ")\n";
        }
        if (f.contains("confidence") && !f["confidence"]["level"].get<std::string>().empty())
            out << "  confidence: " << f["confidence"]["level"].get<std::string>() << " — "
                << f["confidence"]["reason"].get<std::string>() << "\n";
    }

    if (!doc["timeline"].empty()) {
        out << "\ntimeline:\n";
        for (const auto& e : doc["timeline"]) {
            out << "  " << when(e["t"].get<double>()) << "  " << e["host"].get<std::string>()
                << "  [" << e["rule"].get<std::string>() << "] " << e["what"].get<std::string>();
            if (!e["value"].get<std::string>().empty())
                out << " (" << e["value"].get<std::string>() << ")";
            out << "\n";
        }
    }
    print_log_lines(out, doc, when);
    if (doc.contains("not_judged") && !doc["not_judged"].empty()) {
        out << "\ncould not judge (too little data, or values that gave no verdict; no finding "
               "from these rules does not mean healthy):\n";
        for (const auto& n : doc["not_judged"])
            out << "  " << n["host"].get<std::string>() << ": " << n["text"].get<std::string>()
                << "\n";
    }
    if (doc.contains("history") && !doc["history"].empty()) {
        out << "\nhistory (counts since the counters were last reset that the rates show are not "
               "growing now):\n";
        for (const auto& n : doc["history"])
            out << "  " << n["subject"].get<std::string>() << ": " << n["text"].get<std::string>()
                << "\n";
    }
    // Input warnings (agent/replay/inputs.h): files not read, hosts mixed in one file; always
    // shown.
    bool warned = false;
    for (const auto& in : doc["inputs"])
        for (const auto& w : in.value("warnings", nlohmann::json::array())) {
            if (!warned) out << "\ninput notes (what was not read or was matched weakly):\n";
            warned = true;
            out << "  " << w.get<std::string>() << "\n";
        }
    if (doc.contains("notes")) print_note_list(out, "notes (not findings)", doc["notes"]);
    print_note_list(out, "could not evaluate (series present but without usable values)",
                    doc["unevaluated"]);
    if (verbose) {
        if (!doc["not_applicable"].empty()) {
            out << "\nnot applicable (the data has none of what the rule reads):\n";
            for (const auto& n : doc["not_applicable"])
                out << "  " << n["subject"].get<std::string>() << ": "
                    << n["text"].get<std::string>() << "\n";
        }
        for (const auto& in : doc["inputs"]) {
            out << "\ninput " << in["name"].get<std::string>() << ": "
                << in["samples"].get<std::size_t>() << " samples\n";
            for (const auto& n : in["notes"]) out << "  " << n.get<std::string>() << "\n";
        }
    } else if (!doc["not_applicable"].empty()) {
        out << "\n"
            << doc["not_applicable"].size()
            << " rule/host pairs not applicable to this data (--verbose lists them)\n";
    }
}

}  // namespace rh

#include "agent/reports/incast_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "agent/reports/diagnose_report.h"
#include "probes/latency/probe.h"
#include "probes/wire/control_fields.h"

namespace rh {

namespace {

using nlohmann::json;

void add_counts(IncastCounts& into, const IncastCounts& from) {
    for (const auto& [k, v] : from) into[k] += v;
}

json opt(const std::optional<double>& v) {
    return v ? json(*v) : json(nullptr);
}

IncastCounters counters_of(const incast::HostRun& h) {
    return {h.sampled, h.passes, h.samples.size(),
            h.sample_error.empty() ? h.error : h.sample_error};
}

json counters_json(const IncastCounters& c) {
    return {
        {"sampled", c.sampled}, {"passes", c.passes}, {"samples", c.samples}, {"error", c.error}};
}

void add_integrity(IncastIntegrity& into, const IncastIntegrity& from) {
    into.messages_verified += from.messages_verified;
    into.verified_messages += from.verified_messages;
    into.verified_bytes += from.verified_bytes;
    into.bad_slots += from.bad_slots;
    add_counts(into.bad, from.bad);
}

/// One sender's row from its outcome (and the receiver's account of its messages).
IncastSenderRow sender_row(const incast::SenderRun& s, const incast::HostRun& host) {
    IncastSenderRow row;
    row.name = s.name;
    row.hostname = host.hello ? host.hello->hostname : "";
    row.status = s.status;
    row.error = s.error;
    row.clock_offset_ms = s.offset_ms;
    row.counters = counters_of(host);
    if (!s.outcome) return row;
    const auto& o = *s.outcome;
    std::int64_t last = 0;
    for (const auto& q : o.qps) {
        row.messages_posted += q.posted;
        row.messages_completed += q.completed;
        row.messages_failed += q.failed;
        add_counts(row.errors, q.errors);
        last = std::max(last, q.last_completion_wall_ms);
        if (!q.error.empty()) row.notes.push_back("QP: " + q.error);
    }
    if (last > 0) row.active_s = static_cast<double>(last - o.scheduled_start_wall_ms) / 1000;
    row.start_late_ms = o.started_wall_ms - o.scheduled_start_wall_ms;
    if (o.receiver_ok) {
        for (const auto& q : o.receiver.qps) {
            row.received.messages_verified += q.messages;
            row.intact_bytes += q.bytes;
            row.received.bad_slots += q.bad_slots;
            row.received.verified_messages += q.verified_messages;
            row.received.verified_bytes += q.verified_bytes;
            add_counts(row.receiver_errors, q.errors);
            add_counts(row.received.bad, q.bad);
            if (!q.error.empty()) row.notes.push_back("receiver QP: " + q.error);
        }
        if (!o.receiver.note.empty()) row.notes.push_back("receiver: " + o.receiver.note);
    } else {
        row.notes.push_back("no result from the receiver: " + o.receiver_error);
    }
    if (!o.note.empty()) row.notes.push_back(o.note);
    row.qps = o.qps.size();
    return row;
}

json sender_json(const IncastSenderRow& s) {
    const IncastIntegrity& in = s.received;
    json j{{"name", s.name},
           {"hostname", s.hostname},
           {"status", s.status},
           {"error", s.error},
           {"clock_offset_ms", s.clock_offset_ms}};
    if (s.start_late_ms) j["start_late_ms"] = *s.start_late_ms;
    if (s.qps) j["qps"] = *s.qps;
    j["messages_posted"] = s.messages_posted;
    j["messages_completed"] = s.messages_completed;
    j["messages_failed"] = s.messages_failed;
    j["messages_received"] = in.messages_verified;
    j["intact_bytes"] = s.intact_bytes;
    j["bad_slots"] = in.bad_slots;
    j["verified_messages"] = in.verified_messages;
    j["verified_bytes"] = in.verified_bytes;
    j["verified_fraction"] = opt(in.verified_fraction());
    j["bad"] = ctl::counts_json(in.bad);
    j["errors"] = ctl::counts_json(s.errors);
    j["receiver_errors"] = ctl::counts_json(s.receiver_errors);
    j["active_s"] = s.active_s;
    j["notes"] = s.notes;
    j["counters"] = counters_json(s.counters);
    j["goodput_gbps"] = s.goodput_gbps;
    j["goodput_mib_per_s"] = s.goodput_mib_per_s;
    return j;
}

json integrity_json(const IncastIntegrity& in) {
    return {{"messages_verified", in.messages_verified},
            {"verified_messages", in.verified_messages},
            {"verified_bytes", in.verified_bytes},
            {"verified_fraction", opt(in.verified_fraction())},
            {"bad_slots", in.bad_slots},
            {"bad", ctl::counts_json(in.bad)}};
}

IncastVictim victim_of(const incast::Run& run) {
    const auto& v = run.victim;
    IncastVictim out;
    out.ran = v.ran;
    out.error = v.error;
    out.from = run.coordinator_host + (v.local_device.empty() ? "" : " " + v.local_device);
    out.to = run.receiver.name;
    out.before = v.before;
    out.during = v.during;
    if (v.before.iterations > 0 && v.during.iterations > 0 && v.before.p99_us > 0)
        out.p99_ratio = v.during.p99_us / v.before.p99_us;
    char b[256];
    if (!out.p99_ratio)
        std::snprintf(b, sizeof b, "no comparison: %s",
                      v.error.empty() ? "too few samples" : v.error.c_str());
    else
        std::snprintf(b, sizeof b,
                      "victim p99 %s during the incast: %.0f us before, %.0f us during (%.1fx)",
                      out.p99_rose() ? "rose" : "did not rise", v.before.p99_us, v.during.p99_us,
                      *out.p99_ratio);
    out.verdict = b;
    return out;
}

json victim_json(const IncastVictim& v) {
    return {{"ran", v.ran},
            {"error", v.error},
            {"from", v.from},
            {"to", v.to},
            {"size_bytes", 64},
            {"latency_kind", "half round trip of a WRITE ping-pong"},
            {"before", to_json(v.before)},
            {"during", to_json(v.during)},
            {"p99_ratio", opt(v.p99_ratio)},
            {"p99_rose", v.p99_rose()},
            {"verdict", v.verdict}};
}

/// The test's events and the diagnosis' timeline, by time.
std::vector<IncastTimelineEntry> timeline_of(const incast::Run& run,
                                             const std::optional<DiagnoseReport>& diagnosis) {
    std::vector<IncastTimelineEntry> t;
    for (const auto& e : run.events) t.push_back({e.wall_ms, e.host, "incast", e.text});
    if (diagnosis)
        for (const DiagnoseTimelineEntry& te : merged_timeline(diagnosis->engine.findings)) {
            const TimelineEvent& e = *te.event;
            t.push_back(
                {e.wall_ms, e.host,
                 "rule " + te.finding->rule_id + " (" + to_string(te.finding->severity) + ")",
                 e.value.empty() ? e.what : e.what + " (" + e.value + ")"});
        }
    std::stable_sort(t.begin(), t.end(),
                     [](const auto& a, const auto& b) { return a.utc_ms < b.utc_ms; });
    return t;
}

std::string num(const char* f, double v) {
    char b[64];
    std::snprintf(b, sizeof b, f, v);
    return b;
}

std::string utc(std::int64_t ms) {
    return format_engine_time(static_cast<double>(ms) / 1000, true, 0);
}

std::string counts_text(const IncastCounts& m) {
    std::string s;
    for (const auto& [k, v] : m) s += (s.empty() ? "" : ", ") + k + " " + std::to_string(v);
    return s.empty() ? "none" : s;
}

std::string lat(const LatencyStats& s, double LatencyStats::*field) {
    const auto v = latency_figure(s, field);
    return v ? num("%.0f", *v) : "-";
}

/// The sample count the text gives for a victim phase: 0 when skipped, "null" when it failed
/// (what its JSON holds there).
std::string iterations_text(const LatencyStats& s) {
    if (!s.skipped.empty()) return "0";
    return s.measured() ? std::to_string(s.iterations) : "null";
}

std::string counters_text(const std::string& name, const IncastCounters& c) {
    return name + " " + (c.sampled ? std::to_string(c.passes) + " passes" : "no (" + c.error + ")");
}

/// One row per sender: status, goodput, messages, bad slots, errors, finish time; then its
/// error and notes.
void print_sender_table(std::ostream& out, const std::vector<IncastSenderRow>& senders) {
    char line[512];
    std::snprintf(line, sizeof line, "  %-24s %-15s %12s %10s %10s %9s %8s %9s\n", "sender",
                  "status", "goodput Gb/s", "MiB/s", "messages", "bad slots", "errors", "finish s");
    out << line;
    for (const IncastSenderRow& s : senders) {
        std::string name = s.name;
        if (!s.hostname.empty() && s.hostname != s.name) name += " (" + s.hostname + ")";
        std::uint64_t errs = 0;
        for (const auto& [k, v] : s.errors) errs += v;
        std::snprintf(line, sizeof line, "  %-24s %-15s %12.3f %10.1f %10llu %9llu %8llu %9.2f\n",
                      name.c_str(), s.status.c_str(), s.goodput_gbps, s.goodput_mib_per_s,
                      static_cast<unsigned long long>(s.received.messages_verified),
                      static_cast<unsigned long long>(s.received.bad_slots),
                      static_cast<unsigned long long>(errs), s.active_s);
        out << line;
        if (!s.error.empty()) out << "      " << s.error << "\n";
        for (const auto& n : s.notes) out << "      " << n << "\n";
    }
}

/// The victim probe's line: its latencies before and during the incast and the verdict.
void print_victim(std::ostream& out, const IncastVictim& v) {
    out << "victim (64 B WRITE " << v.from << " -> " << v.to << ", half round trip, us): ";
    if (!v.ran) {
        out << v.error << "\n";
    } else {
        const auto& b = v.before;
        const auto& d = v.during;
        out << "before p50 " << lat(b, &LatencyStats::p50_us) << " p99 "
            << lat(b, &LatencyStats::p99_us) << " p99.9 " << lat(b, &LatencyStats::p999_us) << " ("
            << iterations_text(b) << " samples); during p50 " << lat(d, &LatencyStats::p50_us)
            << " p99 " << lat(d, &LatencyStats::p99_us) << " p99.9 "
            << lat(d, &LatencyStats::p999_us) << " (" << iterations_text(d) << " samples)\n  "
            << v.verdict << "\n";
        if (!v.error.empty()) out << "  " << v.error << "\n";
    }
}

}  // namespace

std::optional<double> IncastIntegrity::verified_fraction() const {
    // null when none arrived: a 0 would read as "looked at nothing" rather than "nothing to
    // look at".
    if (messages_verified == 0) return std::nullopt;
    return static_cast<double>(verified_messages) / static_cast<double>(messages_verified);
}

std::optional<double> latency_figure(const LatencyStats& s, double LatencyStats::*field) {
    if (!s.measured()) return std::nullopt;
    if (field == &LatencyStats::p999_us && !s.has_p999()) return std::nullopt;
    return s.*field;
}

IncastReport incast_report(const incast::Run& run, const IncastAnalysis& a) {
    IncastReport r;
    r.id = run.id;
    r.coordinator = run.coordinator_host;
    r.config = run.options;
    r.config.stop = nullptr;
    r.start_utc_ms = run.start_wall_ms;
    r.end_utc_ms = run.end_wall_ms;
    const auto& rh = run.receiver;
    r.receiver = {rh.name,     rh.hello,    rh.offset_ms,   rh.rtt_ms,
                  a.link_gbps, a.link_note, counters_of(rh)};

    std::vector<incast::SenderShare> shares;
    for (std::size_t i = 0; i < run.senders.size(); ++i) {
        IncastSenderRow row = sender_row(run.senders[i], run.sender_hosts[i]);
        add_counts(r.errors, row.errors);
        add_counts(r.errors, row.receiver_errors);
        add_integrity(r.integrity, row.received);
        shares.push_back(
            {row.name, row.intact_bytes, row.status == "completed" ? row.active_s : 0});
        r.senders.push_back(std::move(row));
    }
    r.figures = incast::compute_figures(shares, a.link_gbps);
    for (std::size_t i = 0; i < r.senders.size(); ++i) {
        r.senders[i].goodput_gbps = r.figures.gbps[i];
        r.senders[i].goodput_mib_per_s = r.figures.mib_per_s[i];
        r.senders_ran += shares[i].active_s > 0;
    }
    r.victim = victim_of(run);

    std::vector<incast::ProgressSeries> progress;
    for (const auto& s : run.senders) progress.push_back(s.progress);
    const auto secs = static_cast<unsigned>(std::ceil(run.options.duration_ms / 1000.0));
    r.per_second_gbps = incast::per_second_gbps(progress, r.senders_ran ? secs : 0);
    r.activity = a.activity;
    r.diagnosis = a.diagnosis;
    r.timeline = timeline_of(run, a.diagnosis);
    if (a.diagnosis)
        for (const Finding& f : a.diagnosis->engine.findings)
            r.findings.push_back(f.rule_id + "@" + f.host);
    r.notes = run.notes;
    r.notes.insert(r.notes.end(), a.notes.begin(), a.notes.end());
    return r;
}

void to_json(json& doc, const IncastReport& r) {
    const auto& o = r.config;
    doc = {{"schema", 1}, {"id", r.id}, {"coordinator", r.coordinator}};
    doc["config"] = {{"receiver", o.receiver},
                     {"senders", o.senders},
                     {"op", stream::to_string(o.op)},
                     {"size_bytes", o.size_bytes},
                     {"qps_per_sender", o.qps},
                     {"queue_depth", o.queue_depth},
                     {"duration_s", o.duration_ms / 1000.0}};
    doc["start_utc_ms"] = r.start_utc_ms;
    doc["end_utc_ms"] = r.end_utc_ms;
    const auto& rc = r.receiver;
    json rcv{{"name", rc.name},
             {"clock_offset_ms", rc.clock_offset_ms},
             {"rtt_ms", rc.rtt_ms},
             {"link_rate_gbps", opt(rc.link_rate_gbps)},
             {"link_rate_note", rc.link_rate_note},
             {"counters", counters_json(rc.counters)}};
    if (rc.hello) {
        rcv["hostname"] = rc.hello->hostname;
        rcv["device"] = rc.hello->device;
        rcv["port"] = rc.hello->port;
        rcv["port_rate"] = rc.hello->port_rate;
        rcv["active_mtu"] = rc.hello->active_mtu;
    }
    doc["receiver"] = rcv;
    json senders = json::array();
    for (const IncastSenderRow& s : r.senders) senders.push_back(sender_json(s));
    doc["senders"] = senders;
    const auto& fig = r.figures;
    doc["aggregate"] = {{"goodput_gbps", fig.aggregate_gbps},
                        {"goodput_mib_per_s", fig.aggregate_mib_per_s},
                        {"link_rate_gbps", opt(rc.link_rate_gbps)},
                        {"share_of_link", opt(fig.share_of_link)},
                        {"senders_ran", r.senders_ran},
                        {"senders_total", r.senders.size()}};
    doc["fairness"] = {{"jain_index", opt(fig.jain)}, {"senders", r.senders_ran}};
    doc["completion"] = {{"first_finish_s", opt(fig.first_finish_s)},
                         {"last_finish_s", opt(fig.last_finish_s)},
                         {"spread_ms", opt(fig.spread_ms)}};
    doc["integrity"] = integrity_json(r.integrity);
    doc["errors"] = ctl::counts_json(r.errors);
    doc["victim"] = victim_json(r.victim);
    json per_second = json::array();
    for (std::size_t k = 0; k < r.per_second_gbps.size(); ++k)
        per_second.push_back({{"t_s", k + 1}, {"aggregate_gbps", r.per_second_gbps[k]}});
    doc["per_second"] = per_second;
    doc["activity"] = activity_json(r.activity);
    json timeline = json::array();
    for (const IncastTimelineEntry& e : r.timeline)
        timeline.push_back(
            {{"utc_ms", e.utc_ms}, {"host", e.host}, {"source", e.source}, {"text", e.text}});
    doc["timeline"] = timeline;
    doc["diagnosis"] = r.diagnosis ? json(*r.diagnosis) : json(nullptr);
    doc["findings"] = r.findings;
    doc["notes"] = r.notes;
    doc["ok"] = incast_exit_code(r) == 0;
}

int incast_exit_code(const IncastReport& r) {
    if (r.senders_ran == 0) return 2;
    bool bad = r.integrity.bad_slots > 0 || !r.errors.empty() || !r.findings.empty();
    for (const IncastSenderRow& s : r.senders) bad |= s.status != "completed";
    return bad ? 1 : 0;
}

void render_incast_text(std::ostream& out, const IncastReport& r) {
    const auto& c = r.config;
    const auto& rc = r.receiver;
    out << "rocehealth incast " << r.id << ": " << c.senders.size() << " senders -> " << rc.name
        << " (" << (rc.hello ? rc.hello->hostname : "?") << " "
        << (rc.hello ? rc.hello->device : "?") << "), " << stream::to_string(c.op) << " "
        << c.size_bytes << " B, " << c.qps << " QP/sender, queue depth " << c.queue_depth << ", "
        << num("%.1f", c.duration_ms / 1000.0) << " s";
    if (r.start_utc_ms > 0) out << " from " << utc(r.start_utc_ms);
    out << "\n\n";
    print_sender_table(out, r.senders);
    const auto& fig = r.figures;
    out << "\naggregate goodput: " << num("%.3f", fig.aggregate_gbps) << " Gb/s ("
        << num("%.1f", fig.aggregate_mib_per_s) << " MiB/s) from " << r.senders_ran << " of "
        << r.senders.size() << " senders";
    if (fig.share_of_link)
        out << " = " << num("%.1f", 100 * *fig.share_of_link) << "% of the receiver's "
            << num("%g", rc.link_rate_gbps.value_or(0)) << " Gb/s link ("
            << (rc.hello ? rc.hello->port_rate : "") << ")";
    else
        out << " (receiver link rate unknown: " << rc.link_rate_note << ")";
    out << "\n  (Gb/s = 10^9 bit/s, MiB/s = 2^20 byte/s; goodput = bytes of slots the receiver "
           "verified intact / the sender's time from the start to its last completion)\n";
    out << "fairness: Jain's index " << (fig.jain ? num("%.3f", *fig.jain) : "-") << " over "
        << r.senders_ran << " senders (1 = equal shares, 1/n = one sender takes all)\n";
    if (fig.spread_ms)
        out << "completion: first sender done at " << num("%.2f", fig.first_finish_s.value_or(0))
            << " s, last at " << num("%.2f", fig.last_finish_s.value_or(0))
            << " s after the start: spread " << num("%.0f", *fig.spread_ms) << " ms\n";
    const auto& in = r.integrity;
    const auto fraction = in.verified_fraction();
    out << "integrity: " << in.messages_verified
        << " slots checked at the receiver (seq, checksum, first 64 B), " << in.verified_messages
        << " of them in full (" << (fraction ? num("%.1f", 100 * *fraction) + "%, " : std::string())
        << in.verified_bytes << " bytes), " << in.bad_slots << " bad"
        << (in.bad.empty() ? "" : " (" + counts_text(in.bad) + ")") << "\n";
    out << "errors by completion status: " << counts_text(r.errors) << "\n";
    print_victim(out, r.victim);
    if (!r.per_second_gbps.empty()) {
        out << "aggregate Gb/s per second:";
        for (const double g : r.per_second_gbps) out << " " << num("%.3f", g);
        out << "\n";
    }
    out << "counters sampled: " << counters_text(rc.name, rc.counters);
    for (const IncastSenderRow& s : r.senders) out << ", " << counters_text(s.name, s.counters);
    out << "\n";
    if (!r.timeline.empty()) {
        out << "\ntimeline:\n";
        for (const IncastTimelineEntry& e : r.timeline)
            out << "  " << utc(e.utc_ms) << "  " << (e.host.empty() ? "coordinator" : e.host)
                << "  [" << e.source << "] " << e.text << "\n";
    }
    out << "\n";
    if (!r.diagnosis)
        out << "rule engine: not run (no participant's counters were sampled)\n";
    else
        render_diagnose_text(out, *r.diagnosis, false);
    for (const auto& n : r.notes) out << "note: " << n << "\n";
    out << "\n"
        << (incast_exit_code(r) == 0 ? "OK" : "PROBLEMS") << ": " << r.senders_ran << " of "
        << r.senders.size() << " senders ran, " << in.bad_slots << " bad slots, "
        << r.findings.size() << " findings\n";
}

}  // namespace rh

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

void add_counts(std::map<std::string, std::uint64_t>& into,
                const std::map<std::string, std::uint64_t>& from) {
    for (const auto& [k, v] : from) into[k] += v;
}

json opt(const std::optional<double>& v) {
    return v ? json(*v) : json(nullptr);
}

json counters_json(const incast::HostRun& h) {
    return {{"sampled", h.sampled},
            {"passes", h.passes},
            {"samples", h.samples.size()},
            {"error", h.sample_error.empty() ? h.error : h.sample_error}};
}

/// One sender's row; its share for the figures is appended to `shares`.
/// Share of received messages whose whole payload was hashed; null when none arrived (a 0 would
/// read as "looked at nothing" rather than "nothing to look at").
json verified_fraction(std::uint64_t verified, std::uint64_t received) {
    if (received == 0) return nullptr;
    return static_cast<double>(verified) / static_cast<double>(received);
}

json sender_json(const incast::SenderRun& s, const incast::HostRun& host,
                 std::vector<incast::SenderShare>& shares,
                 std::map<std::string, std::uint64_t>& all_errors, json& integrity) {
    json j{{"name", s.name},
           {"hostname", host.hello ? host.hello->hostname : ""},
           {"status", s.status},
           {"error", s.error},
           {"clock_offset_ms", s.offset_ms}};
    std::uint64_t posted = 0, completed = 0, failed = 0, received = 0, intact = 0, bad = 0;
    std::uint64_t full = 0, full_bytes = 0;  // messages/bytes given the full payload pass
    std::map<std::string, std::uint64_t> errors, rx_errors, bad_kinds;
    json notes = json::array();
    double active_s = 0;
    if (s.outcome) {
        const auto& o = *s.outcome;
        std::int64_t last = 0;
        for (const auto& q : o.qps) {
            posted += q.posted;
            completed += q.completed;
            failed += q.failed;
            add_counts(errors, q.errors);
            last = std::max(last, q.last_completion_wall_ms);
            if (!q.error.empty()) notes.push_back("QP: " + q.error);
        }
        if (last > 0) active_s = static_cast<double>(last - o.scheduled_start_wall_ms) / 1000;
        j["start_late_ms"] = o.started_wall_ms - o.scheduled_start_wall_ms;
        if (o.receiver_ok) {
            for (const auto& q : o.receiver.qps) {
                received += q.messages;
                intact += q.bytes;
                bad += q.bad_slots;
                full += q.verified_messages;
                full_bytes += q.verified_bytes;
                add_counts(rx_errors, q.errors);
                add_counts(bad_kinds, q.bad);
                if (!q.error.empty()) notes.push_back("receiver QP: " + q.error);
            }
            if (!o.receiver.note.empty()) notes.push_back("receiver: " + o.receiver.note);
        } else {
            notes.push_back("no result from the receiver: " + o.receiver_error);
        }
        if (!o.note.empty()) notes.push_back(o.note);
        j["qps"] = o.qps.size();
    }
    j["messages_posted"] = posted;
    j["messages_completed"] = completed;
    j["messages_failed"] = failed;
    j["messages_received"] = received;
    j["intact_bytes"] = intact;
    j["bad_slots"] = bad;
    j["verified_messages"] = full;
    j["verified_bytes"] = full_bytes;
    j["verified_fraction"] = verified_fraction(full, received);
    j["bad"] = ctl::counts_json(bad_kinds);
    j["errors"] = ctl::counts_json(errors);
    j["receiver_errors"] = ctl::counts_json(rx_errors);
    j["active_s"] = active_s;
    j["notes"] = notes;
    j["counters"] = counters_json(host);
    add_counts(all_errors, errors);
    add_counts(all_errors, rx_errors);
    integrity["messages_verified"] = integrity["messages_verified"].get<std::uint64_t>() + received;
    integrity["bad_slots"] = integrity["bad_slots"].get<std::uint64_t>() + bad;
    integrity["verified_messages"] = integrity["verified_messages"].get<std::uint64_t>() + full;
    integrity["verified_bytes"] = integrity["verified_bytes"].get<std::uint64_t>() + full_bytes;
    integrity["verified_fraction"] =
        verified_fraction(integrity["verified_messages"].get<std::uint64_t>(),
                          integrity["messages_verified"].get<std::uint64_t>());
    for (const auto& [k, v] : bad_kinds)
        integrity["bad"][k] = integrity["bad"].value(k, std::uint64_t{0}) + v;
    shares.push_back({s.name, intact, s.status == "completed" ? active_s : 0});
    return j;
}

json victim_json(const incast::Run& run) {
    const auto& v = run.victim;
    json j{{"ran", v.ran},
           {"error", v.error},
           {"from", run.coordinator_host + (v.local_device.empty() ? "" : " " + v.local_device)},
           {"to", run.receiver.name},
           {"size_bytes", 64},
           {"latency_kind", "half round trip of a WRITE ping-pong"}};
    j["before"] = to_json(v.before);
    j["during"] = to_json(v.during);
    std::optional<double> ratio;
    if (v.before.iterations > 0 && v.during.iterations > 0 && v.before.p99_us > 0)
        ratio = v.during.p99_us / v.before.p99_us;
    j["p99_ratio"] = opt(ratio);
    j["p99_rose"] = ratio && *ratio >= kVictimRiseFactor;
    char b[256];
    if (!ratio)
        std::snprintf(b, sizeof b, "no comparison: %s",
                      v.error.empty() ? "too few samples" : v.error.c_str());
    else
        std::snprintf(b, sizeof b,
                      "victim p99 %s during the incast: %.0f us before, %.0f us during (%.1fx)",
                      *ratio >= kVictimRiseFactor ? "rose" : "did not rise", v.before.p99_us,
                      v.during.p99_us, *ratio);
    j["verdict"] = b;
    return j;
}

json timeline_json(const incast::Run& run, const json& diagnosis) {
    json t = json::array();
    for (const auto& e : run.events)
        t.push_back(
            {{"utc_ms", e.wall_ms}, {"host", e.host}, {"source", "incast"}, {"text", e.text}});
    if (!diagnosis.is_null())
        for (const auto& e : diagnosis["timeline"]) {
            std::string text = e.value("what", "");
            if (!e.value("value", "").empty()) text += " (" + e["value"].get<std::string>() + ")";
            t.push_back(
                {{"utc_ms", e.value("wall_ms", std::int64_t{0})},
                 {"host", e.value("host", "")},
                 {"source", "rule " + e.value("rule", "") + " (" + e.value("severity", "") + ")"},
                 {"text", text}});
        }
    std::stable_sort(t.begin(), t.end(), [](const json& a, const json& b) {
        return a["utc_ms"].get<std::int64_t>() < b["utc_ms"].get<std::int64_t>();
    });
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

std::string counts_text(const json& m) {
    std::string s;
    for (const auto& [k, v] : m.items())
        s += (s.empty() ? "" : ", ") + k + " " + std::to_string(v.get<std::uint64_t>());
    return s.empty() ? "none" : s;
}

std::string lat(const json& s, const char* key) {
    return s.contains(key) && s[key].is_number() ? num("%.0f", s[key].get<double>()) : "-";
}

}  // namespace

json incast_json(const incast::Run& run, const IncastAnalysis& a) {
    const auto& o = run.options;
    json doc{{"schema", 1}, {"id", run.id}, {"coordinator", run.coordinator_host}};
    doc["config"] = {{"receiver", o.receiver},
                     {"senders", o.senders},
                     {"op", stream::to_string(o.op)},
                     {"size_bytes", o.size_bytes},
                     {"qps_per_sender", o.qps},
                     {"queue_depth", o.queue_depth},
                     {"duration_s", o.duration_ms / 1000.0}};
    doc["start_utc_ms"] = run.start_wall_ms;
    doc["end_utc_ms"] = run.end_wall_ms;
    const auto& rh = run.receiver;
    json rcv{{"name", rh.name},
             {"clock_offset_ms", rh.offset_ms},
             {"rtt_ms", rh.rtt_ms},
             {"link_rate_gbps", opt(a.link_gbps)},
             {"link_rate_note", a.link_note},
             {"counters", counters_json(rh)}};
    if (rh.hello) {
        rcv["hostname"] = rh.hello->hostname;
        rcv["device"] = rh.hello->device;
        rcv["port"] = rh.hello->port;
        rcv["port_rate"] = rh.hello->port_rate;
        rcv["active_mtu"] = rh.hello->active_mtu;
    }
    doc["receiver"] = rcv;

    std::vector<incast::SenderShare> shares;
    std::map<std::string, std::uint64_t> errors;
    json integrity{{"messages_verified", std::uint64_t{0}}, {"verified_messages", std::uint64_t{0}},
                   {"verified_bytes", std::uint64_t{0}},    {"verified_fraction", nullptr},
                   {"bad_slots", std::uint64_t{0}},         {"bad", json::object()}};
    json senders = json::array();
    for (std::size_t i = 0; i < run.senders.size(); ++i)
        senders.push_back(
            sender_json(run.senders[i], run.sender_hosts[i], shares, errors, integrity));
    const auto fig = incast::compute_figures(shares, a.link_gbps);
    unsigned ran = 0;
    for (std::size_t i = 0; i < senders.size(); ++i) {
        senders[i]["goodput_gbps"] = fig.gbps[i];
        senders[i]["goodput_mib_per_s"] = fig.mib_per_s[i];
        ran += shares[i].active_s > 0;
    }
    doc["senders"] = senders;
    doc["aggregate"] = {{"goodput_gbps", fig.aggregate_gbps},
                        {"goodput_mib_per_s", fig.aggregate_mib_per_s},
                        {"link_rate_gbps", opt(a.link_gbps)},
                        {"share_of_link", opt(fig.share_of_link)},
                        {"senders_ran", ran},
                        {"senders_total", run.senders.size()}};
    doc["fairness"] = {{"jain_index", opt(fig.jain)}, {"senders", ran}};
    doc["completion"] = {{"first_finish_s", opt(fig.first_finish_s)},
                         {"last_finish_s", opt(fig.last_finish_s)},
                         {"spread_ms", opt(fig.spread_ms)}};
    doc["integrity"] = integrity;
    doc["errors"] = ctl::counts_json(errors);
    doc["victim"] = victim_json(run);

    std::vector<incast::ProgressSeries> progress;
    for (const auto& s : run.senders) progress.push_back(s.progress);
    json per_second = json::array();
    const auto secs = static_cast<unsigned>(std::ceil(o.duration_ms / 1000.0));
    const auto ps = incast::per_second_gbps(progress, ran ? secs : 0);
    for (std::size_t k = 0; k < ps.size(); ++k)
        per_second.push_back({{"t_s", k + 1}, {"aggregate_gbps", ps[k]}});
    doc["per_second"] = per_second;
    doc["activity"] = a.activity;
    doc["timeline"] = timeline_json(run, a.diagnosis);
    doc["diagnosis"] = a.diagnosis;
    json findings = json::array();
    if (!a.diagnosis.is_null())
        for (const auto& f : a.diagnosis["findings"])
            findings.push_back(f.value("rule", "") + "@" + f.value("host", ""));
    doc["findings"] = findings;
    json notes = run.notes;
    for (const auto& n : a.notes) notes.push_back(n);
    doc["notes"] = notes;
    doc["ok"] = incast_exit_code(doc) == 0;
    return doc;
}

int incast_exit_code(const json& doc) {
    if (doc["aggregate"]["senders_ran"].get<unsigned>() == 0) return 2;
    bool bad = doc["integrity"]["bad_slots"].get<std::uint64_t>() > 0 || !doc["errors"].empty() ||
               !doc["findings"].empty();
    for (const auto& s : doc["senders"]) bad |= s["status"] != "completed";
    return bad ? 1 : 0;
}

void render_incast_text(std::ostream& out, const json& doc) {
    const auto& c = doc["config"];
    const auto& r = doc["receiver"];
    const auto size = c["size_bytes"].get<std::uint64_t>();
    out << "rocehealth incast " << doc["id"].get<std::string>() << ": " << c["senders"].size()
        << " senders -> " << r["name"].get<std::string>() << " (" << r.value("hostname", "?") << " "
        << r.value("device", "?") << "), " << c["op"].get<std::string>() << " " << size << " B, "
        << c["qps_per_sender"] << " QP/sender, queue depth " << c["queue_depth"] << ", "
        << num("%.1f", c["duration_s"].get<double>()) << " s";
    if (doc["start_utc_ms"].get<std::int64_t>() > 0)
        out << " from " << utc(doc["start_utc_ms"].get<std::int64_t>());
    out << "\n\n";
    char line[512];
    std::snprintf(line, sizeof line, "  %-24s %-15s %12s %10s %10s %9s %8s %9s\n", "sender",
                  "status", "goodput Gb/s", "MiB/s", "messages", "bad slots", "errors", "finish s");
    out << line;
    for (const auto& s : doc["senders"]) {
        std::string name = s["name"].get<std::string>();
        if (!s["hostname"].get<std::string>().empty() && s["hostname"] != s["name"])
            name += " (" + s["hostname"].get<std::string>() + ")";
        std::uint64_t errs = 0;
        for (const auto& [k, v] : s["errors"].items()) errs += v.get<std::uint64_t>();
        std::snprintf(line, sizeof line, "  %-24s %-15s %12.3f %10.1f %10llu %9llu %8llu %9.2f\n",
                      name.c_str(), s["status"].get<std::string>().c_str(),
                      s["goodput_gbps"].get<double>(), s["goodput_mib_per_s"].get<double>(),
                      static_cast<unsigned long long>(s["messages_received"].get<std::uint64_t>()),
                      static_cast<unsigned long long>(s["bad_slots"].get<std::uint64_t>()),
                      static_cast<unsigned long long>(errs), s["active_s"].get<double>());
        out << line;
        if (!s["error"].get<std::string>().empty())
            out << "      " << s["error"].get<std::string>() << "\n";
        for (const auto& n : s["notes"]) out << "      " << n.get<std::string>() << "\n";
    }
    const auto& ag = doc["aggregate"];
    out << "\naggregate goodput: " << num("%.3f", ag["goodput_gbps"].get<double>()) << " Gb/s ("
        << num("%.1f", ag["goodput_mib_per_s"].get<double>()) << " MiB/s) from "
        << ag["senders_ran"] << " of " << ag["senders_total"] << " senders";
    if (ag["share_of_link"].is_number())
        out << " = " << num("%.1f", 100 * ag["share_of_link"].get<double>())
            << "% of the receiver's " << num("%g", ag["link_rate_gbps"].get<double>())
            << " Gb/s link (" << r.value("port_rate", "") << ")";
    else
        out << " (receiver link rate unknown: " << r["link_rate_note"].get<std::string>() << ")";
    out << "\n  (Gb/s = 10^9 bit/s, MiB/s = 2^20 byte/s; goodput = bytes of slots the receiver "
           "verified intact / the sender's time from the start to its last completion)\n";
    const auto& f = doc["fairness"];
    out << "fairness: Jain's index "
        << (f["jain_index"].is_number() ? num("%.3f", f["jain_index"].get<double>()) : "-")
        << " over " << f["senders"] << " senders (1 = equal shares, 1/n = one sender takes all)\n";
    const auto& cp = doc["completion"];
    if (cp["spread_ms"].is_number())
        out << "completion: first sender done at "
            << num("%.2f", cp["first_finish_s"].get<double>()) << " s, last at "
            << num("%.2f", cp["last_finish_s"].get<double>()) << " s after the start: spread "
            << num("%.0f", cp["spread_ms"].get<double>()) << " ms\n";
    const auto& in = doc["integrity"];
    out << "integrity: " << in["messages_verified"]
        << " slots checked at the receiver (seq, checksum, first 64 B), "
        << in.value("verified_messages", json(0)) << " of them in full ("
        << (in.value("verified_fraction", json()).is_number()
                ? num("%.1f", 100 * in["verified_fraction"].get<double>()) + "%, "
                : std::string())
        << in.value("verified_bytes", json(0)) << " bytes), " << in["bad_slots"] << " bad"
        << (in["bad"].empty() ? "" : " (" + counts_text(in["bad"]) + ")") << "\n";
    out << "errors by completion status: " << counts_text(doc["errors"]) << "\n";
    const auto& v = doc["victim"];
    out << "victim (64 B WRITE " << v["from"].get<std::string>() << " -> "
        << v["to"].get<std::string>() << ", half round trip, us): ";
    if (!v["ran"].get<bool>()) {
        out << v["error"].get<std::string>() << "\n";
    } else {
        const auto& b = v["before"];
        const auto& d = v["during"];
        out << "before p50 " << lat(b, "p50_us") << " p99 " << lat(b, "p99_us") << " p99.9 "
            << lat(b, "p999_us") << " (" << b.value("iterations", json(0))
            << " samples); during p50 " << lat(d, "p50_us") << " p99 " << lat(d, "p99_us")
            << " p99.9 " << lat(d, "p999_us") << " (" << d.value("iterations", json(0))
            << " samples)\n  " << v["verdict"].get<std::string>() << "\n";
        if (!v["error"].get<std::string>().empty())
            out << "  " << v["error"].get<std::string>() << "\n";
    }
    if (!doc["per_second"].empty()) {
        out << "aggregate Gb/s per second:";
        for (const auto& p : doc["per_second"])
            out << " " << num("%.3f", p["aggregate_gbps"].get<double>());
        out << "\n";
    }
    out << "counters sampled: " << r["name"].get<std::string>() << " "
        << (r["counters"]["sampled"].get<bool>()
                ? std::to_string(r["counters"]["passes"].get<unsigned>()) + " passes"
                : "no (" + r["counters"]["error"].get<std::string>() + ")");
    for (const auto& s : doc["senders"])
        out << ", " << s["name"].get<std::string>() << " "
            << (s["counters"]["sampled"].get<bool>()
                    ? std::to_string(s["counters"]["passes"].get<unsigned>()) + " passes"
                    : "no (" + s["counters"]["error"].get<std::string>() + ")");
    out << "\n";
    if (!doc["timeline"].empty()) {
        out << "\ntimeline:\n";
        for (const auto& e : doc["timeline"])
            out << "  " << utc(e["utc_ms"].get<std::int64_t>()) << "  "
                << (e["host"].get<std::string>().empty() ? std::string("coordinator")
                                                         : e["host"].get<std::string>())
                << "  [" << e["source"].get<std::string>() << "] " << e["text"].get<std::string>()
                << "\n";
    }
    out << "\n";
    if (doc["diagnosis"].is_null())
        out << "rule engine: not run (no participant's counters were sampled)\n";
    else
        render_diagnose_text(out, doc["diagnosis"], false);
    for (const auto& n : doc["notes"]) out << "note: " << n.get<std::string>() << "\n";
    out << "\n"
        << (doc["ok"].get<bool>() ? "OK" : "PROBLEMS") << ": " << ag["senders_ran"] << " of "
        << ag["senders_total"] << " senders ran, " << in["bad_slots"] << " bad slots, "
        << doc["findings"].size() << " findings\n";
}

}  // namespace rh

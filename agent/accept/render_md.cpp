#include "agent/accept/render_md.h"

#include <map>
#include <set>

#include "agent/accept/evidence_text.h"
#include "agent/accept/text_format.h"

namespace rh::accept {

namespace {

std::string md_title(const Stage& s) {
    return md_escape(title_of(s));
}

std::string upper(std::string s) {
    for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

std::string arrow(const std::string& a, const std::string& b) {
    return md_escape(a) + " \xE2\x86\x92 " + md_escape(b);
}

// The key numbers of each stage's results (key_numbers below).

std::string numbers(const std::monostate&) {
    return "";
}

std::string numbers(const InventoryResults& r) {
    std::string bad;
    for (const auto& c : r.consistency) {
        if (c.consistent || !c.must_match) continue;
        std::string hs;
        for (const auto& h : c.differing_hosts) hs += (hs.empty() ? "" : ", ") + md_escape(h);
        bad += (bad.empty() ? "" : "; ") + md_escape(c.fact) + " differs on " + hs;
    }
    return std::to_string(r.hosts.size()) + " hosts, " + std::to_string(r.consistency.size()) +
           " facts compared" + (bad.empty() ? ", those that must match agree" : ": " + bad);
}

std::string numbers(const IdleLatencyResults& r) {
    // Worst pair's p99 per op and size, one line: "write: 64 B 2.6, 4 KiB 3.4; read: ...".
    std::map<std::string, std::map<std::uint64_t, double>> worst;
    for (const auto& l : r.latency)
        if (l.p99_us) {
            auto [it, fresh] = worst[l.op].try_emplace(l.size_bytes, *l.p99_us);
            if (!fresh) it->second = std::max(it->second, *l.p99_us);
        }
    std::string o = "worst-pair p99 in µs";
    for (const char* op : {"write", "read", "send"}) {
        if (!worst.count(op)) continue;
        o += std::string(o.back() == 's' ? ": " : "; ") + op;
        const char* sep = " ";
        for (const auto& [size, us] : worst[op]) {
            o += sep + size_text(size) + " " + fixed(us, 1);
            sep = ", ";
        }
    }
    return o;
}

std::string flow_numbers(const std::vector<FlowResult>& flows) {
    const FlowResult* low = nullptr;
    for (const auto& f : flows)
        if (f.fraction && (!low || *f.fraction < *low->fraction)) low = &f;
    if (!low) return std::to_string(flows.size()) + " flows, none measured";
    return std::to_string(flows.size()) + " flows; lowest " + fixed(low->gbps, 1) +
           " Gb/s = " + fixed(*low->fraction * 100, 1) + " % of link (" +
           arrow(low->src, low->dst) + ")";
}

std::string numbers(const BandwidthResults& r) {
    return flow_numbers(r.pairs);
}

std::string numbers(const ConcurrencyResults& r) {
    return flow_numbers(r.flows) + "; aggregate " + fixed(r.aggregate_gbps, 1) + " Gb/s, Jain " +
           fixed(r.jain_index, 4);
}

std::string numbers(const IncastResults& r) {
    std::uint64_t errors = 0;
    for (const auto& snd : r.senders)
        for (const auto& [status, n] : snd.errors_by_status) errors += n;
    std::string o = std::to_string(r.senders.size()) + " to 1 into " + md_escape(r.receiver) +
                    ": aggregate " + fixed(r.aggregate_goodput_gbps, 1) + " Gb/s (" +
                    fixed(r.fraction ? std::optional<double>(*r.fraction * 100) : std::nullopt, 1) +
                    " % of link), Jain " + fixed(r.jain_index, 3) + ", " + std::to_string(errors) +
                    " error completions";
    if (r.victim)
        o += "; victim p99 " + fixed(r.victim->before.p99_us, 1) + " \xE2\x86\x92 " +
             fixed(r.victim->during.p99_us, 1) + " µs";
    return o;
}

std::string numbers(const FaultResults& r) {
    auto secs = [](std::optional<double> v) {
        return v ? sig3(*v) + " s" : std::string("not measured");
    };
    return "link " + md_escape(r.host + " " + r.netdev) + ": link recovery " +
           secs(r.link_recovery_s) + ", traffic recovery " + secs(r.traffic_recovery_s) + " (" +
           md_escape(r.traffic_src + " -> " + r.traffic_dst) + ")";
}

std::string numbers(const RkeyResults& r) {
    std::size_t bad = 0;
    for (const auto& a : r.attempts) bad += !a.pass;
    return std::to_string(r.attempts.size()) + " attempts, " + std::to_string(bad) +
           " not refused with the expected status";
}

/// One line with the numbers a ticket reader wants from each stage ("" when it has none).
std::string key_numbers(const Stage& s) {
    return std::visit([](const auto& r) { return numbers(r); }, s.results);
}

}  // namespace

std::string render_md(const Report& r) {
    std::string name;
    if (r.spec.contains("name") && r.spec["name"].is_string())
        name = r.spec["name"].get<std::string>();
    std::string hosts;
    for (const auto& h : r.hosts) hosts += (hosts.empty() ? "" : ", ") + md_escape(h.name);
    std::string o = "# RoCE fabric acceptance: " + upper(to_string(r.verdict)) +
                    (name.empty() ? "" : " \xE2\x80\x94 " + md_escape(name)) + "\n\n";
    o += "- Hosts (" + std::to_string(r.hosts.size()) + "): " + hosts + "\n";
    o += "- Run: " + utc_text(r.started_wall_ms) + " to " + utc_text(r.finished_wall_ms) + " (" +
         duration_text(static_cast<double>(r.finished_wall_ms - r.started_wall_ms) / 1000) + ")\n";
    o += "- Full report: `report.html`; data: `report.json` (schema " + std::to_string(r.schema) +
         ")\n";
    if (r.interrupted) {
        std::string not_run;
        for (const auto& s : r.stages)
            if (s.verdict == StageVerdict::not_run)
                not_run += (not_run.empty() ? "" : ", ") + md_title(s);
        o += "- **Interrupted**: " + md_escape(r.interrupted->reason) + " (stage " +
             md_escape(to_string(r.interrupted->stage)) + "); what was measured before is kept" +
             (not_run.empty() ? "" : "; not run: " + not_run) + "\n";
    }
    o += "\n";

    o += "| # | stage | verdict | criteria met | findings (error/warning) "
         "|\n|---:|---|---|---:|---:|\n";
    for (std::size_t i = 0; i < r.stages.size(); ++i) {
        const auto& s = r.stages[i];
        const auto [met, err, warn] = stage_counts(s);
        const std::string v = to_string(s.verdict);
        o += "| " + std::to_string(i + 1) + " | " + md_title(s) + " | " +
             (s.verdict == StageVerdict::fail ? "**FAIL**" : v) + " | " +
             (s.criteria.empty() ? "-"
                                 : std::to_string(met) + "/" + std::to_string(s.criteria.size())) +
             " | " + std::to_string(err) + "/" + std::to_string(warn) + " |\n";
    }

    std::string fails;
    for (const auto& s : r.stages)
        for (const auto& c : s.criteria) {
            if (c.pass) continue;
            std::string ev;
            for (const auto& p : c.evidence)
                ev += (ev.empty() ? "" : "; ") + md_escape(describe_evidence(s, p));
            fails += "- **" + md_title(s) + "**: " + md_escape(c.name) + " \xE2\x80\x94 measured " +
                     md_escape(scalar_text(c.measured, c.unit)) + ", required " +
                     md_escape(c.comparison) + " " + md_escape(scalar_text(c.threshold, c.unit)) +
                     (ev.empty() ? "" : " (evidence: " + ev + ")") + "\n";
        }
    if (!fails.empty()) o += "\n## Failing criteria\n\n" + fails;

    std::string findings;
    for (const auto& s : r.stages)
        for (const auto& f : s.findings) {
            if (f.severity == Severity::info) continue;
            findings += "- [" + to_string(f.severity) + "] **" + md_escape(f.rule_id) + "** on " +
                        md_escape(f.host) + (f.device.empty() ? "" : " " + md_escape(f.device)) +
                        " (" + md_title(s) + "): " + md_escape(f.summary) + "\n";
        }
    if (!findings.empty()) o += "\n## Findings\n\n" + findings;

    o += "\n## Stages\n\n";
    for (const auto& s : r.stages) {
        o += "- **" + md_title(s) + "** (" + to_string(s.verdict) + ")";
        if (!s.reason.empty()) o += ": " + md_escape(s.reason);
        const std::string k = key_numbers(s);
        o += (k.empty() ? "" : " \xE2\x80\x94 " + k) + "\n";
    }
    return o;
}

}  // namespace rh::accept

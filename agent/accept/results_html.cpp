#include "agent/accept/results_html.h"

#include <functional>
#include <map>
#include <tuple>

#include "agent/accept/report_charts.h"
#include "agent/accept/text_format.h"

namespace rh::accept {

namespace {

/// Context for one stage's tables: builds ids and marks rows its failing criteria point at.
struct Rows {
    StageId id;
    std::set<std::string> flagged;

    /// ` id="..."` plus ` class="bad"` when a failing criterion points here.
    std::string attrs(const std::string& pointer, const std::string& cls = "") const {
        const bool bad = flagged.count(pointer) > 0;
        std::string classes = cls;
        if (bad) classes += classes.empty() ? "bad" : " bad";
        return " id=\"" + evidence_anchor(id, pointer) + "\"" +
               (classes.empty() ? "" : " class=\"" + classes + "\"");
    }
};

std::string td(const std::string& text, const std::string& cls = "") {
    return "<td" + (cls.empty() ? "" : " class=\"" + cls + "\"") + ">" + html_escape(text) +
           "</td>";
}

std::string num_td(std::optional<double> v, int decimals) {
    return td(fixed(v, decimals), "num");
}

std::string pct(std::optional<double> f) {
    return f ? fixed(*f * 100, 1) + " %" : "-";
}

std::string arrow(const std::string& a, const std::string& b) {
    return a + " \xE2\x86\x92 " + b;
}

std::string charts(const std::vector<std::string>& svgs) {
    std::string o = "<div class=\"charts\">";
    for (const auto& s : svgs) o += "<figure>" + s + "</figure>";
    return o + "</div>";
}

// ---- inventory ----

/// One column of the transposed facts table: a host NIC, or a host without one.
struct FactCol {
    std::size_t host;
    const InventoryHost* h;
    const InventoryNic* nic;
};

std::string prio_text(const std::optional<std::vector<unsigned>>& p) {
    if (!p) return "unknown";
    if (p->empty()) return "none";
    std::string s;
    for (unsigned v : *p) s += (s.empty() ? "" : ",") + std::to_string(v);
    return s;
}

template <typename T>
std::string opt_u(const std::optional<T>& v, const std::string& unit) {
    return v ? std::to_string(*v) + unit : "unknown";
}

std::string or_unknown(const std::string& s) {
    return s.empty() ? std::string("unknown") : s;
}

using FactRow = std::pair<std::string, std::function<std::string(const FactCol&)>>;

/// The facts table's rows, in order: name and how a column shows it.
const std::vector<FactRow>& inventory_facts() {
    static const std::vector<FactRow> facts = {
        {"kernel", [](const FactCol& c) { return or_unknown(c.h->kernel); }},
        {"memlock limit",
         [](const FactCol& c) {
             return c.h->memlock_unlimited ? std::string("unlimited")
                                           : opt_u(c.h->memlock_limit_bytes, " B");
         }},
        {"netdev", [](const FactCol& c) { return c.nic ? or_unknown(c.nic->netdev) : "-"; }},
        {"NIC model", [](const FactCol& c) { return c.nic ? or_unknown(c.nic->model) : "-"; }},
        {"firmware", [](const FactCol& c) { return c.nic ? or_unknown(c.nic->firmware) : "-"; }},
        {"PCIe current / max",
         [](const FactCol& c) {
             return c.nic ? or_unknown(c.nic->pcie_current) + " / " + or_unknown(c.nic->pcie_max)
                          : "-";
         }},
        {"PCIe limited by",
         [](const FactCol& c) {
             return c.nic ? (c.nic->pcie_limited_by.empty() ? "-" : c.nic->pcie_limited_by) : "-";
         }},
        {"NUMA node", [](const FactCol& c) { return c.nic ? opt_u(c.nic->numa_node, "") : "-"; }},
        {"link rate",
         [](const FactCol& c) {
             return c.nic && c.nic->link_gbps ? sig3(*c.nic->link_gbps) + " Gb/s" : "unknown";
         }},
        {"netdev MTU",
         [](const FactCol& c) { return c.nic ? opt_u(c.nic->netdev_mtu_bytes, "") : "-"; }},
        {"RoCE active_mtu",
         [](const FactCol& c) { return c.nic ? opt_u(c.nic->active_mtu_bytes, "") : "-"; }},
        {"RoCE version / GID index",
         [](const FactCol& c) {
             return c.nic ? or_unknown(c.nic->roce_version) + " / " + opt_u(c.nic->gid_index, "")
                          : "-";
         }},
        {"PFC priorities",
         [](const FactCol& c) { return c.nic ? prio_text(c.nic->pfc_priorities) : "-"; }},
        {"ECN priorities",
         [](const FactCol& c) { return c.nic ? prio_text(c.nic->ecn_priorities) : "-"; }},
        {"trust", [](const FactCol& c) { return c.nic ? or_unknown(c.nic->trust) : "-"; }},
    };
    return facts;
}

/// Per host, transposed: one column per host NIC, one row per fact.
std::string facts_table(const InventoryResults& r, const Rows& rows) {
    std::vector<FactCol> cols;
    for (std::size_t i = 0; i < r.hosts.size(); ++i) {
        if (r.hosts[i].nics.empty()) cols.push_back({i, &r.hosts[i], nullptr});
        for (const auto& n : r.hosts[i].nics) cols.push_back({i, &r.hosts[i], &n});
    }
    std::string o = "<div class=\"scroll\"><table class=\"facts\"><thead><tr><th>fact</th>";
    std::set<std::size_t> headed;
    for (const auto& c : cols) {
        const std::string ptr = "/results/hosts/" + std::to_string(c.host);
        const bool first = headed.insert(c.host).second;
        o += "<th" + (first ? rows.attrs(ptr) : std::string()) + ">" + html_escape(c.h->host) +
             (c.nic ? "<br><span class=\"dim\">" + html_escape(c.nic->device) + " port " +
                          std::to_string(c.nic->port) + "</span>"
                    : std::string()) +
             "</th>";
    }
    o += "</tr></thead><tbody>";
    for (const auto& [name, get] : inventory_facts()) {
        o += "<tr><th>" + html_escape(name) + "</th>";
        for (const auto& c : cols) o += td(get(c));
        o += "</tr>";
    }
    return o + "</tbody></table></div>";
}

/// Consistency across hosts: each fact's values with their hosts, and the hosts that differ.
std::string consistency_table(const InventoryResults& r, const Rows& rows) {
    std::string o =
        "<h4 id=\"" + evidence_anchor(rows.id, "/results/consistency") +
        "\">Consistency across hosts</h4><table><thead><tr><th>fact</th><th>must match</th>"
        "<th>values (hosts)</th><th>hosts that differ</th><th>consistent</th></tr></thead><tbody>";
    for (std::size_t i = 0; i < r.consistency.size(); ++i) {
        const auto& c = r.consistency[i];
        std::string values;
        for (const auto& g : c.values) {
            std::string hs;
            for (const auto& h : g.hosts) hs += (hs.empty() ? "" : ", ") + h;
            values += (values.empty() ? "" : "<br>") + std::string("<b>") + html_escape(g.value) +
                      "</b> <span class=\"dim\">(" + html_escape(hs) + ")</span>";
        }
        std::string differ;
        for (const auto& h : c.differing_hosts) differ += (differ.empty() ? "" : ", ") + h;
        const std::string cls = c.consistent ? "" : (c.must_match ? "warnrow" : "");
        o += "<tr" + rows.attrs("/results/consistency/" + std::to_string(i), cls) + ">" +
             td(c.fact) + td(c.must_match ? "yes" : "no (information)") + "<td>" + values +
             "</td>" + td(differ.empty() ? "-" : differ, differ.empty() ? "" : "strong") +
             td(c.consistent ? "\xE2\x9C\x93 yes" : "\xE2\x9C\x97 no",
                c.consistent ? "ok" : "badtext") +
             "</tr>";
    }
    return o + "</tbody></table>";
}

std::string inventory_html(const InventoryResults& r, const Rows& rows) {
    return "<h4 id=\"" + evidence_anchor(rows.id, "/results/hosts") + "\">Per host</h4>" +
           facts_table(r, rows) + consistency_table(r, rows);
}

// ---- idle latency ----

std::string latency_html(const IdleLatencyResults& r, const Rows& rows,
                         const std::vector<std::string>& hosts) {
    std::string o;
    std::size_t pairs = 0;
    {
        std::set<std::pair<std::string, std::string>> p;
        for (const auto& l : r.latency) p.emplace(l.src, l.dst);
        pairs = p.size();
    }
    o += "<p>" + std::to_string(pairs) + " of " + std::to_string(r.pairs_total) +
         " ordered host pairs measured" +
         (r.sampled ? " (sampled: " + html_escape(r.sampling) + ")" : std::string(" (all pairs)")) +
         ". WRITE latency is half the round trip of a ping-pong; READ latency is post to "
         "completion. Cells: p50 / p99 / p99.9 in µs.</p>";
    o += charts(latency_cdf_charts(r));
    o += charts(latency_heat_maps(r, hosts));

    std::set<std::uint64_t> sizes;
    for (const auto& l : r.latency) sizes.insert(l.size_bytes);
    std::map<std::tuple<std::string, std::string, std::string>,
             std::map<std::uint64_t, std::size_t>>
        table;  // (src, dst, op) -> size -> index
    std::vector<std::tuple<std::string, std::string, std::string>> order;
    for (std::size_t i = 0; i < r.latency.size(); ++i) {
        const auto& l = r.latency[i];
        const auto key = std::make_tuple(l.src, l.dst, l.op);
        if (!table.count(key)) order.push_back(key);
        table[key][l.size_bytes] = i;
    }
    o += "<div class=\"scroll\"><table id=\"" + evidence_anchor(rows.id, "/results/latency") +
         "\"><thead><tr><th>pair</th><th>op</th>";
    for (auto s : sizes) o += "<th class=\"num\">" + size_text(s) + "</th>";
    o += "</tr></thead><tbody>";
    for (const auto& key : order) {
        const auto& [src, dst, op] = key;
        o += "<tr>" + td(arrow(src, dst)) + td(op);
        for (auto s : sizes) {
            const auto it = table[key].find(s);
            if (it == table[key].end()) {
                o += td("-", "num");
                continue;
            }
            const auto& l = r.latency[it->second];
            std::string text = l.error.empty() ? fixed(l.p50_us, 1) + " / " + fixed(l.p99_us, 1) +
                                                     " / " + fixed(l.p999_us, 1)
                                               : "error: " + l.error;
            if (l.checksum_errors && *l.checksum_errors > 0)
                text += " (" + std::to_string(*l.checksum_errors) + " checksum errors)";
            o += "<td" + rows.attrs("/results/latency/" + std::to_string(it->second), "num") +
                 " title=\"" +
                 html_escape(std::to_string(l.iterations) + " iterations, min " +
                             fixed(l.min_us, 2) + " µs, max " + fixed(l.max_us, 2) + " µs") +
                 "\">" + html_escape(text) + "</td>";
        }
        o += "</tr>";
    }
    return o + "</tbody></table></div>";
}

// ---- flows ----

std::string flows_table(const std::vector<FlowResult>& flows, const Rows& rows,
                        const std::string& key) {
    std::string o = "<table id=\"" + evidence_anchor(rows.id, "/results/" + key) +
                    "\"><thead><tr><th>pair</th><th>op</th><th class=\"num\">Gb/s</th>"
                    "<th class=\"num\">link Gb/s</th><th class=\"num\">of link</th>"
                    "<th class=\"num\">duration</th><th>error</th></tr></thead><tbody>";
    for (std::size_t i = 0; i < flows.size(); ++i) {
        const auto& f = flows[i];
        o += "<tr" + rows.attrs("/results/" + key + "/" + std::to_string(i)) + ">" +
             td(arrow(f.src, f.dst)) + td(f.op) + num_td(f.gbps, 1) + num_td(f.link_gbps, 0) +
             td(pct(f.fraction), "num") + td(fixed(f.duration_s, 0) + " s", "num") +
             td(f.error.empty() ? "-" : f.error, f.error.empty() ? "" : "badtext") + "</tr>";
    }
    return o + "</tbody></table>";
}

// ---- incast ----

std::string percentile_row(const std::string& name, const Percentiles& p) {
    return "<tr>" + td(name) + num_td(p.p50_us, 1) + num_td(p.p99_us, 1) + num_td(p.p999_us, 1) +
           "</tr>";
}

std::string incast_html(const IncastResults& r, const Rows& rows) {
    std::string o =
        "<p>" + std::to_string(r.senders.size()) + " senders to <b>" + html_escape(r.receiver) +
        "</b>, " + size_text(r.message_size_bytes) + " messages for " +
        duration_text(r.duration_s) + ". Aggregate goodput " + fixed(r.aggregate_goodput_gbps, 1) +
        " Gb/s (" + fixed(r.aggregate_goodput_mib_s, 0) + " MiB/s), " + pct(r.fraction) +
        " of the receiver's " + fixed(r.link_gbps, 0) + " Gb/s link; Jain fairness index " +
        fixed(r.jain_index, 3) + " (1 = equal shares).</p>";
    if (r.verified_messages)  // what "N bad slots" covers (protocol 4 receivers report it)
        o += "<p>Integrity: " + std::to_string(r.bad_slots.value_or(0)) +
             " bad slots; every message's trailer checked (seq, checksum, first 64 B), " +
             std::to_string(*r.verified_messages) + " payloads (" + pct(r.verified_fraction) +
             ", " + std::to_string(r.verified_bytes.value_or(0)) + " bytes) hashed in full.</p>";
    o += charts({incast_bars(r)});
    o += "<table id=\"" + evidence_anchor(rows.id, "/results/senders") +
         "\"><thead><tr><th>sender</th><th class=\"num\">Gb/s</th><th class=\"num\">MiB/s</th>"
         "<th>error completions by status</th></tr></thead><tbody>";
    for (std::size_t i = 0; i < r.senders.size(); ++i) {
        const auto& s = r.senders[i];
        std::string errs;
        for (const auto& [status, n] : s.errors_by_status)
            errs += (errs.empty() ? "" : ", ") + status + " " + std::to_string(n);
        o += "<tr" + rows.attrs("/results/senders/" + std::to_string(i)) + ">" + td(s.host) +
             num_td(s.goodput_gbps, 2) + num_td(s.goodput_mib_s, 0) +
             td(errs.empty() ? "none" : errs, errs.empty() ? "" : "badtext") + "</tr>";
    }
    o += "</tbody></table>";
    if (r.victim) {
        const auto& v = *r.victim;
        o += "<h4 id=\"" + evidence_anchor(rows.id, "/results/victim") + "\">Victim latency: " +
             html_escape(arrow(v.src, v.dst) + " " + v.op + " " + size_text(v.size_bytes)) +
             "</h4><table class=\"narrow\"><thead><tr><th></th><th class=\"num\">p50 µs</th>"
             "<th class=\"num\">p99 µs</th><th class=\"num\">p99.9 µs</th></tr></thead><tbody>" +
             percentile_row("before the incast (idle)", v.before) +
             percentile_row("during the incast", v.during);
        auto ratio = [](std::optional<double> a, std::optional<double> b) -> std::optional<double> {
            if (!a || !b || *a <= 0) return std::nullopt;
            return *b / *a;
        };
        o += "<tr class=\"dim\">" + td("during / before") +
             td(fixed(ratio(v.before.p50_us, v.during.p50_us), 1) + "\xC3\x97", "num") +
             td(fixed(ratio(v.before.p99_us, v.during.p99_us), 1) + "\xC3\x97", "num") +
             td(fixed(ratio(v.before.p999_us, v.during.p999_us), 1) + "\xC3\x97", "num") + "</tr>";
        o += "</tbody></table>";
    }
    return o;
}

// ---- fault, rkey ----

std::string fault_html(const FaultResults& r, const Rows& rows) {
    auto list = [](const std::vector<std::string>& items, const char* none) {
        std::string o;
        for (const auto& i : items) o += (o.empty() ? "" : "; ") + i;
        return o.empty() ? std::string(none) : o;
    };
    auto secs = [](std::optional<double> v) {
        return v ? sig3(*v) + " s" : std::string("not measured");
    };
    std::string link = r.host + (r.device.empty() ? "" : " " + r.device) +
                       (r.netdev.empty() ? "" : " (" + r.netdev + ")");
    return "<table class=\"narrow\"><tbody><tr><th>link taken down</th>" + td(link) +
           "</tr><tr><th>traffic during the fault</th>" +
           td(r.traffic_src.empty() ? "-" : arrow(r.traffic_src, r.traffic_dst)) +
           "</tr><tr><th>link down at</th>" + td(r.link_down_s ? "+" + secs(r.link_down_s) : "-") +
           "</tr><tr><th>link up at</th>" + td(r.link_up_s ? "+" + secs(r.link_up_s) : "-") +
           "</tr><tr" + rows.attrs("/results/link_recovery_s") +
           "><th>link recovery (up to port ACTIVE)</th>" + td(secs(r.link_recovery_s), "strong") +
           "</tr><tr" + rows.attrs("/results/traffic_recovery_s") +
           "><th>traffic recovery (up to traffic back)</th>" +
           td(secs(r.traffic_recovery_s), "strong") + "</tr><tr><th>connections tried</th>" +
           td(r.traffic_attempts ? fixed(r.traffic_attempts, 0) : "-") +
           "</tr><tr><th>64 B WRITE p50 before / after</th>" +
           td(fixed(r.baseline_p50_us, 1) + " / " + fixed(r.recovered_p50_us, 1) + " µs") +
           "</tr><tr><th>routes and addresses put back</th>" + td(list(r.restored, "none")) +
           "</tr><tr" + rows.attrs("/results/setup_changes") +
           "><th>left changed by the fault</th>" +
           td(list(r.setup_changes, "nothing"), r.setup_changes.empty() ? "ok" : "badtext") +
           "</tr></tbody></table>";
}

std::string rkey_html(const RkeyResults& r, const Rows& rows) {
    std::string o =
        "<p>Each source WRITEs or READs with an rkey that the destination's responder "
        "has deregistered; the completion must be an error.</p><table id=\"" +
        evidence_anchor(rows.id, "/results/attempts") +
        "\"><thead><tr><th>pair</th><th>op</th><th>expected</th><th>got</th>"
        "<th>result</th></tr></thead><tbody>";
    for (std::size_t i = 0; i < r.attempts.size(); ++i) {
        const auto& a = r.attempts[i];
        o += "<tr" + rows.attrs("/results/attempts/" + std::to_string(i)) + ">" +
             td(arrow(a.src, a.dst)) + td(a.op) + td(a.expected_status) +
             td(a.got_status, a.pass ? "" : "badtext") +
             td(a.pass ? "\xE2\x9C\x93 refused as expected" : "\xE2\x9C\x97 not refused",
                a.pass ? "ok" : "badtext") +
             "</tr>";
    }
    return o + "</tbody></table>";
}

}  // namespace

std::string stage_anchor(StageId id) {
    return "stage-" + to_string(id);
}

std::string evidence_anchor(StageId id, const std::string& pointer) {
    std::string a = stage_anchor(id);
    for (char c : pointer) a += c == '/' ? '-' : c;
    return a;
}

std::set<std::string> failing_evidence(const Stage& s) {
    std::set<std::string> out;
    for (const auto& c : s.criteria)
        if (!c.pass) out.insert(c.evidence.begin(), c.evidence.end());
    return out;
}

std::string results_html(const Stage& s, const std::vector<std::string>& hosts) {
    const Rows rows{s.id, failing_evidence(s)};
    struct Visitor {
        const Rows& rows;
        const std::vector<std::string>& hosts;
        std::string operator()(const std::monostate&) const { return ""; }
        std::string operator()(const InventoryResults& r) const { return inventory_html(r, rows); }
        std::string operator()(const IdleLatencyResults& r) const {
            return latency_html(r, rows, hosts);
        }
        std::string operator()(const BandwidthResults& r) const {
            return charts({flow_bars(r.pairs, "Throughput per pair, one pair at a time")}) +
                   flows_table(r.pairs, rows, "pairs");
        }
        std::string operator()(const ConcurrencyResults& r) const {
            return "<p>" + std::to_string(r.concurrent_pairs) + " pairs at once for " +
                   duration_text(r.duration_s) + ": aggregate " + fixed(r.aggregate_gbps, 1) +
                   " Gb/s, Jain fairness index " + fixed(r.jain_index, 4) + ".</p>" +
                   charts({flow_bars(r.flows, "Throughput per flow, all at once")}) +
                   flows_table(r.flows, rows, "flows");
        }
        std::string operator()(const IncastResults& r) const { return incast_html(r, rows); }
        std::string operator()(const FaultResults& r) const { return fault_html(r, rows); }
        std::string operator()(const RkeyResults& r) const { return rkey_html(r, rows); }
    };
    const std::string body = std::visit(Visitor{rows, hosts}, s.results);
    if (body.empty()) return "";
    // Every pointer a criterion names must land somewhere: those the tables above do not carry
    // (e.g. "/results/jain_index") get an empty anchor at the top of the results.
    std::string anchors;
    for (const auto& c : s.criteria)
        for (const auto& p : c.evidence) {
            const std::string id = evidence_anchor(s.id, p);
            if (p.rfind("/results/", 0) == 0 &&
                body.find("id=\"" + id + "\"") == std::string::npos &&
                anchors.find("id=\"" + id + "\"") == std::string::npos)
                anchors += "<span id=\"" + id + "\"></span>";
        }
    return "<div class=\"results\" id=\"" + evidence_anchor(s.id, "/results") + "\">" + anchors +
           body + "</div>";
}

}  // namespace rh::accept

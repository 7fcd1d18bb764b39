#include "agent/daemon/metrics.h"

#include <unistd.h>

#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "core/series_catalog.h"

namespace rh::agent {

namespace {

std::string number_text(double v) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

std::string label_name(std::string_view k) {
    std::string s(k);
    for (char& c : s)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) s.insert(0, "_");
    return s;
}

/// {a="1",b="2"} (empty when no labels), keys in the given order.
std::string label_set(const std::vector<std::pair<std::string, std::string>>& labels) {
    if (labels.empty()) return "";
    std::string s = "{";
    for (const auto& [k, v] : labels)
        s += (s.size() > 1 ? "," : "") + label_name(k) + "=\"" + escape_label_value(v) + "\"";
    return s + "}";
}

/// "p50" -> "0.5", "p99" -> "0.99", "p999" -> "0.999"; other values unchanged.
std::string quantile_value(const std::string& q) {
    if (q.size() < 2 || q[0] != 'p' || q.find_first_not_of("0123456789", 1) != q.npos) return q;
    return "0." + q.substr(1);
}

/// Text-format escaping: backslash and newline always (HELP text), double quote too in label
/// values.
std::string escape_text(std::string_view v, bool quote) {
    std::string out;
    out.reserve(v.size());
    for (char c : v) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '\n')
            out += "\\n";
        else if (quote && c == '"')
            out += "\\\"";
        else
            out += c;
    }
    return out;
}

struct Family {
    std::string type;
    std::string help;
    std::vector<std::string> lines;  ///< "name{labels} value"
};

class Exposition {
  public:
    void add(const std::string& name, const std::string& type, const std::string& help,
             const std::vector<std::pair<std::string, std::string>>& labels,
             const std::string& value) {
        add_sample(name, type, help, name, labels, value);
    }

    /// A line of family `family` whose sample name differs from it (a summary's _sum/_count).
    void add_sample(const std::string& family, const std::string& type, const std::string& help,
                    const std::string& sample_name,
                    const std::vector<std::pair<std::string, std::string>>& labels,
                    const std::string& value) {
        Family& f = families_[family];
        if (f.type.empty()) {
            f.type = type;
            f.help = help;
        }
        f.lines.push_back(sample_name + label_set(labels) + " " + value);
    }

    std::string text() const {
        std::string out;
        for (const auto& [name, f] : families_) {
            out += "# HELP " + name + " " + escape_text(f.help, false) + "\n";
            out += "# TYPE " + name + " " + f.type + "\n";
            for (const auto& l : f.lines) out += l + "\n";
        }
        return out;
    }

  private:
    std::map<std::string, Family> families_;
};

/// Latest values of every stored series: one line per series seen in its host's latest pass,
/// named, converted and described as its catalog row says.
std::size_t add_series(Exposition& ex, const SeriesStore& store) {
    std::size_t unreadable = 0;
    for (const SeriesSpec& spec : series_catalog()) {
        // Not in the store (host_info.h), or add_probes: summaries from the mesh.
        if (!is_stored(spec) || is_probe_series(spec.name)) continue;
        const ExportScale scale = export_scale(spec);
        const std::string family(spec.exported);
        const std::string help = metric_help(spec);
        for (const Series* s : store.find(std::string(spec.name))) {
            if (s->points.empty() || s->kind == SampleKind::inventory) continue;
            const Point& p = s->points.back();
            const auto& passes = store.pass_times(s->key.host);
            if (!passes.empty() && p.t < passes.back()) continue;  // gone from the last pass
            const bool counter = s->kind == SampleKind::counter;
            if (counter ? !p.count() : !p.value()) {
                ++unreadable;
                continue;
            }
            std::string value;
            // Counters export the wrap-corrected total, not the raw read (a 32-bit wrap would
            // look like a reset to Prometheus and lose the count up to the wrap).
            const std::uint64_t count = counter ? s->total.value_or(*p.count()) : 0;
            if (counter && scale.identity())
                value = std::to_string(count);
            else
                value = number_text(scale.apply(counter ? static_cast<double>(count) : *p.value()));
            std::vector<std::pair<std::string, std::string>> labels;
            for (const auto& [k, v] : s->key.labels)
                labels.emplace_back(k, k == "quantile" ? quantile_value(v) : v);
            ex.add(family, counter ? "counter" : "gauge", help, labels, value);
        }
    }
    return unreadable;
}

/// The mesh's summaries and failure counters: per peer (`by_tor` false) or, with a peers file,
/// per destination ToR (the rows' `peer` is the ToR: families *_tor_*, label dst_tor). A
/// summarised view (agent/daemon/mesh_budget.h) shows its worst rows' quantiles and window
/// failures, and its totals as the group `dst_group` ("own_tor" or "other_tors").
void add_probes(Exposition& ex, const ProbeMetrics& pm, bool by_tor) {
    const std::string family =
        by_tor ? "rocehealth_probe_tor_latency_seconds" : "rocehealth_probe_latency_seconds";
    const std::string key = by_tor ? "dst_tor" : "peer";
    const std::string per = by_tor ? "every probed host of each other ToR" : "per peer";
    const std::string help =
        "RDMA probe latency of the mesh " + per +
        ", operation and message size (write: half round trip, read: post to completion); "
        "quantiles over the last " +
        number_text(pm.window_s) +
        (pm.summarised ? " s, of this host's worst destinations only"
                       : " s, _sum and _count since the agent started");
    for (const ProbeLatencyRow& r : pm.latency) {
        std::vector<std::pair<std::string, std::string>> labels = {
            {key, r.peer}, {"op", r.op}, {"size_bytes", std::to_string(r.size_bytes)}};
        const std::pair<const char*, std::optional<double>> qs[] = {
            {"0.5", r.p50_s}, {"0.99", r.p99_s}, {"0.999", r.p999_s}};
        for (const auto& [q, v] : qs) {
            // An empty window says NaN (as client libraries do); p99.9 needs 1000 samples.
            if (!v && r.window_samples > 0) continue;
            auto ql = labels;
            ql.emplace_back("quantile", q);
            ex.add_sample(family, "summary", help, family, ql, v ? number_text(*v) : "NaN");
        }
        if (pm.summarised) continue;  // the group's totals carry the sums
        ex.add_sample(family, "summary", help, family + "_sum", labels, number_text(r.sum_s));
        ex.add_sample(family, "summary", help, family + "_count", labels, std::to_string(r.count));
    }
    for (const auto& [row, n] : pm.errors)
        ex.add(by_tor ? "rocehealth_probe_tor_errors_total" : "rocehealth_probe_errors_total",
               "counter",
               "RDMA probe failures of the mesh " + per +
                   " and operation since the agent started (op \"connect\": no session could be "
                   "set up; a failed phase's completion status is in the log and the findings)",
               {{key, row.first}, {"op", row.second}}, std::to_string(n));
    if (!pm.summarised) return;
    // One gauge per destination, any operation: the fabric rules ask whether a row failed, not
    // how (the op is in rocehealth_probe_group_errors_total{op} and the probe_failed event), and
    // a gauge per op doubled the series they read every cycle (bench/README.md).
    std::map<std::string, std::uint64_t> failed;
    for (const auto& [row, n] : pm.window_errors) failed[row.first] += n;
    for (const auto& [dst, n] : failed)
        ex.add(by_tor ? "rocehealth_probe_tor_window_errors" : "rocehealth_probe_window_errors",
               "gauge",
               "RDMA probe failures of the mesh " + per +
                   ", any operation (connect or a phase), in the last " + number_text(pm.window_s) +
                   " s, of this host's worst destinations only",
               {{key, dst}}, std::to_string(n));
    const std::string group = by_tor ? "other_tors" : "own_tor";
    const std::string gfam = "rocehealth_probe_group_latency_seconds";
    const std::string ghelp =
        "RDMA probe latency of the mesh per destination group (own_tor: this host's ToR, "
        "other_tors: every other ToR), operation and message size: every timed sample since "
        "the agent started";
    for (const auto& [op_size, sc] : pm.total_latency) {
        const std::vector<std::pair<std::string, std::string>> labels = {
            {"dst_group", group},
            {"op", op_size.first},
            {"size_bytes", std::to_string(op_size.second)}};
        ex.add_sample(gfam, "summary", ghelp, gfam + "_sum", labels, number_text(sc.first));
        ex.add_sample(gfam, "summary", ghelp, gfam + "_count", labels, std::to_string(sc.second));
    }
    for (const auto& [op, n] : pm.total_errors)
        ex.add("rocehealth_probe_group_errors_total", "counter",
               "RDMA probe failures of the mesh per destination group (own_tor, other_tors) and "
               "operation since the agent started (op \"connect\": no session could be set up)",
               {{"dst_group", group}, {"op", op}}, std::to_string(n));
}

void add_findings(Exposition& ex, const std::vector<Finding>& findings) {
    std::set<std::string> seen;
    for (const Finding& f : findings) {
        if (f.closed_t != 0) continue;
        std::vector<std::pair<std::string, std::string>> labels = {
            {"rule", f.rule_id}, {"severity", to_string(f.severity)}, {"host", f.host}};
        if (!f.device.empty()) labels.emplace_back("device", f.device);
        if (f.port != 0) labels.emplace_back("port", std::to_string(f.port));
        for (const auto& [k, v] : f.labels) {
            bool dup = false;
            for (const auto& l : labels) dup = dup || l.first == k;
            if (!dup) labels.emplace_back(k, v);
        }
        if (!seen.insert(label_set(labels)).second) continue;  // one series per label set
        ex.add("rocehealth_finding", "gauge",
               "A finding that holds now (1), by rule and severity; see /api/v1/findings", labels,
               "1");
    }
}

/// The catalog's row of a series the agent writes itself (origin agent); a name without a row is
/// a programming error.
const SeriesSpec& agent_series(std::string_view name) {
    const SeriesSpec* s = find_series(name);
    if (!s) throw std::logic_error("series_catalog has no row " + std::string(name));
    return *s;
}

/// One line of an agent series: its catalog family, type and HELP.
void add_agent(Exposition& ex, std::string_view series,
               const std::vector<std::pair<std::string, std::string>>& labels,
               const std::string& value) {
    const SeriesSpec& s = agent_series(series);
    ex.add(std::string(s.exported), std::string(to_string(s.kind)), metric_help(s), labels, value);
}

void add_host_info(Exposition& ex, const HostInfo& hi) {
    std::vector<std::pair<std::string, std::string>> labels = {{"host", hi.host}};
    for (const auto& [k, v] : hi.topology) labels.emplace_back(k, v);
    add_agent(ex, "host_info", labels, "1");
    for (const PortConfigRow& r : hi.ports) {
        std::vector<std::pair<std::string, std::string>> pl = {{"device", r.device},
                                                               {"port", std::to_string(r.port)}};
        if (!r.netdev.empty()) pl.emplace_back("netdev", r.netdev);
        if (r.netdev_mtu_bytes)
            add_agent(ex, "netdev_mtu_bytes", pl, std::to_string(*r.netdev_mtu_bytes));
        if (r.active_mtu_bytes)
            add_agent(ex, "port_active_mtu_bytes", pl, std::to_string(*r.active_mtu_bytes));
        if (!r.trust.empty()) {
            auto tl = pl;
            tl.emplace_back("trust", r.trust);
            add_agent(ex, "port_trust_info", tl, "1");
        }
    }
}

void add_self(Exposition& ex, const SeriesStore& store, const AgentStats& st,
              std::size_t unreadable) {
    ex.add("rocehealth_build_info", "gauge", "rocehealth build; the value is always 1",
           {{"version", st.version}}, "1");
    if (!st.key_fingerprint.empty())
        ex.add("rocehealth_fabric_key_info", "gauge",
               "The fabric key this agent holds, by fingerprint (rocehealth keygen prints it); "
               "always 1. Hosts of one fabric show one fingerprint",
               {{"fingerprint", st.key_fingerprint}}, "1");
    ex.add("rocehealth_collection_passes_total", "counter", "Collection passes done", {},
           std::to_string(st.passes));
    ex.add("rocehealth_collection_pass_duration_seconds", "gauge",
           "How long the last collection pass took", {}, number_text(st.last_pass_duration_s));
    if (st.last_pass_wall_s > 0)
        ex.add("rocehealth_last_collection_timestamp_seconds", "gauge",
               "UTC time of the last collection pass", {}, number_text(st.last_pass_wall_s));
    for (const auto& c : st.collector_sources) {
        ex.add("rocehealth_collector_success", "gauge",
               "1 when every read of the kernel source in the last collection pass answered; no "
               "data on this host (a file or feature the driver lacks: ENOENT, EOPNOTSUPP) is "
               "success",
               {{"source", c.source}}, c.success ? "1" : "0");
        ex.add("rocehealth_collector_duration_seconds", "gauge",
               "Time the kernel source's reads took in the last collection pass (seconds)",
               {{"source", c.source}}, number_text(c.duration_s));
    }
    ex.add("rocehealth_rules_runs_total", "counter", "Rule-engine runs done", {},
           std::to_string(st.rules_runs));
    ex.add("rocehealth_rules_run_duration_seconds", "gauge", "How long the last rules run took", {},
           number_text(st.last_rules_duration_s));
    ex.add("rocehealth_device_rediscoveries_total", "counter",
           "Device rediscoveries (an RDMA device or counter file appeared or disappeared)", {},
           std::to_string(st.rediscoveries));
    const char* reload_help = "SIGHUP configuration reloads by result";
    ex.add("rocehealth_config_reloads_total", "counter", reload_help, {{"result", "success"}},
           std::to_string(st.reloads_ok));
    ex.add("rocehealth_config_reloads_total", "counter", reload_help, {{"result", "failure"}},
           std::to_string(st.reloads_failed));
    for (const auto& [key, n] : st.findings_opened)
        ex.add("rocehealth_findings_opened_total", "counter",
               "Findings opened since the agent started, by rule and severity (a short finding "
               "between two scrapes still counts)",
               {{"rule", key.first}, {"severity", key.second}}, std::to_string(n));
    for (const auto& [reason, n] : st.http_refused)
        ex.add("rocehealth_http_connections_refused_total", "counter",
               "HTTP connections closed without being served, by reason: per_address_cap and "
               "total_cap (503 at accept), request_timeout (request not complete within "
               "http.request_timeout_s, 408), too_large, chunked_body, bad_request, "
               "write_timeout and write_backlog (an answer the client did not take), "
               "tls_handshake (HTTPS: a failed TLS handshake or a plain HTTP request)",
               {{"reason", reason}}, std::to_string(n));
    for (const auto& [source, n] : st.peer_source_errors)
        ex.add("rocehealth_mesh_peer_source_errors_total", "counter",
               "Fetches of the mesh's fleet that failed (DNS, Prometheus targets API) or gave a "
               "fleet that could not be planned, by source; the last good fleet is kept",
               {{"source", source}}, std::to_string(n));
    if (st.fleet_hosts)
        ex.add("rocehealth_mesh_fleet_hosts", "gauge",
               "Hosts of the fleet the probe mesh plans over, this one included (0: none yet)", {},
               std::to_string(*st.fleet_hosts));
    if (st.responder_up)
        ex.add("rocehealth_responder_up", "gauge", "1 when the probe responder is serving", {},
               *st.responder_up ? "1" : "0");
    ex.add("rocehealth_store_series", "gauge", "Series held in the agent's time-series store", {},
           std::to_string(store.series_count()));
    ex.add("rocehealth_series_unreadable", "gauge",
           "Series whose latest read failed (left out of this exposition, never exported as 0)", {},
           std::to_string(unreadable));
    if (st.cpu_seconds)
        ex.add("process_cpu_seconds_total", "counter", "User and system CPU time spent", {},
               number_text(*st.cpu_seconds));
    if (st.rss_bytes)
        ex.add("process_resident_memory_bytes", "gauge", "Resident memory size", {},
               number_text(*st.rss_bytes));
    if (st.start_wall_s)
        ex.add("process_start_time_seconds", "gauge", "Start time of the process since the epoch",
               {}, number_text(*st.start_wall_s));
}

void read_rss(AgentStats& stats) {
    std::ifstream statm("/proc/self/statm");
    double size = 0, resident = 0;
    if (statm >> size >> resident)
        stats.rss_bytes = resident * static_cast<double>(sysconf(_SC_PAGESIZE));
}

}  // namespace

bool is_probe_series(std::string_view series) {
    const SeriesSpec* s = find_series(series);
    return s && s->origin == SeriesOrigin::probes;
}

std::string metric_help(const SeriesSpec& s) {
    const std::string_view u = s.exported_unit;
    // Units that are not quantities ("state" codes, "bool" flags, "info" series of value 1) are
    // said by the text itself.
    if (u.empty() || u == "state" || u == "bool" || u == "info") return std::string(s.help);
    return std::string(s.help) + " (" + std::string(u) + ")";
}

std::string escape_label_value(std::string_view v) {
    return escape_text(v, true);
}

std::string render_metrics(const SeriesStore& store, const std::vector<Finding>& findings,
                           const AgentStats& stats) {
    Exposition ex;
    const std::size_t unreadable = add_series(ex, store);
    if (stats.probes) add_probes(ex, *stats.probes, false);
    if (stats.tor_probes) add_probes(ex, *stats.tor_probes, true);
    add_findings(ex, findings);
    if (stats.host_info) add_host_info(ex, *stats.host_info);
    add_self(ex, store, stats, unreadable);
    return ex.text();
}

void read_process_stats(AgentStats& stats) {
    std::ifstream stat("/proc/self/stat");
    std::string line;
    if (std::getline(stat, line)) {
        // Fields after the ")" that ends the command name: state is field 3.
        const auto close = line.rfind(')');
        std::istringstream is(close == std::string::npos ? "" : line.substr(close + 2));
        std::vector<std::string> f;
        for (std::string w; is >> w;) f.push_back(w);
        // f[0] = field 3; utime = 14, stime = 15, starttime = 22.
        const double tck = static_cast<double>(sysconf(_SC_CLK_TCK));
        if (f.size() > 19 && tck > 0) {
            stats.cpu_seconds = (std::stod(f[11]) + std::stod(f[12])) / tck;
            if (stats.start_wall_s) return read_rss(stats);  // start time is read once
            std::ifstream ps("/proc/stat");
            for (std::string k; ps >> k;) {
                if (k == "btime") {
                    double btime = 0;
                    if (ps >> btime) stats.start_wall_s = btime + std::stod(f[19]) / tck;
                    break;
                }
            }
        }
    }
    read_rss(stats);
}

}  // namespace rh::agent

// Every series name the Prometheus rules, alerts, dashboard and promtool tests
// (packaging/prometheus/) and `rocehealth fabric`'s queries and analysis (agent/fabric/) use is one
// the agent exports or a rule records (issue 30 §4), so renaming a series in the catalog
// (core/series_catalog.cpp) or in agent/daemon/metrics.cpp fails here rather than in a silent
// dashboard. The exported names are those of /metrics rendered for a fixture host that has a
// sample of every stored catalog series and every optional family of the agent's own.
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "agent/daemon/metrics.h"
#include "core/series_catalog.h"

BOOST_AUTO_TEST_SUITE(test_exported_names)

using namespace rh;

namespace {

/// One sample of a stored catalog series, with each of its labels set.
Sample sample_of(const SeriesSpec& spec) {
    Sample s;
    s.t_s = 1;
    s.wall_ms = 1796100000000;
    s.host = "h1";
    s.series = std::string(spec.name);
    std::string_view l = spec.labels;
    while (!l.empty()) {
        const auto comma = l.find(',');
        const std::string key(l.substr(0, comma));
        s.labels[key] = key == "quantile" ? "p50" : key == "port" ? "1" : "x";
        l = comma == std::string_view::npos ? std::string_view{} : l.substr(comma + 1);
    }
    s.unit = std::string(spec.unit);
    s.source = "fixture";
    if (spec.kind == SeriesKind::counter) {
        s.kind = SampleKind::counter;
        s.count = 7;
    } else {
        s.kind = SampleKind::gauge;
        s.value = 1;
    }
    return s;
}

agent::ProbeMetrics probe_metrics(bool summarised) {
    agent::ProbeMetrics pm;
    agent::ProbeLatencyRow r;
    r.peer = "h2";
    r.op = "write";
    r.size_bytes = 64;
    r.window_samples = 1000;
    r.p50_s = r.p99_s = r.p999_s = 1e-5;
    r.sum_s = 1;
    r.count = 1000;
    pm.latency = {r};
    pm.errors[{"h2", "write"}] = 1;
    pm.window_errors[{"h2", "write"}] = 1;
    pm.total_latency[{"write", 64}] = {1.0, 1000};
    pm.total_errors["write"] = 1;
    pm.window_s = 60;
    pm.summarised = summarised;
    return pm;
}

/// /metrics of the fixture host: every stored series, and every optional family; the mesh's
/// per-row and summarised forms both (`summarised_rows` picks which view is summarised).
std::string render(bool summarised_rows) {
    SeriesStore store;
    for (const SeriesSpec& spec : series_catalog())
        if (is_stored(spec)) store.add(sample_of(spec));
    agent::AgentStats st;
    st.version = "0.0.0";
    st.key_fingerprint = "SHA256:x";
    st.passes = 1;
    st.last_pass_wall_s = 1796100000;
    st.responder_up = true;
    st.probes = probe_metrics(summarised_rows);
    st.tor_probes = probe_metrics(!summarised_rows);
    agent::HostInfo hi;
    hi.host = "h1";
    hi.topology = {{"tor", "t1"}};
    hi.ports = {{"mlx5_0", 1, "ens1f0np0", 9000, 4096, "dscp"}};
    st.host_info = hi;
    st.http_refused["total_cap"] = 1;
    st.peer_source_errors["dns"] = 1;
    st.fleet_hosts = 2;
    st.findings_opened[{"pfc_storm", "critical"}] = 1;
    st.collector_sources = {{"rdma_sysfs", true, 0.001}};
    st.cpu_seconds = 1;
    st.rss_bytes = 1;
    st.start_wall_s = 1;
    Finding f;
    f.rule_id = "pfc_storm";
    f.host = "h1";
    return agent::render_metrics(store, {f}, st);
}

/// Family names (# TYPE lines) and sample names of an exposition.
void names_of(const std::string& text, std::set<std::string>& families,
              std::set<std::string>& samples) {
    std::istringstream is(text);
    for (std::string line; std::getline(is, line);) {
        if (line.rfind("# TYPE ", 0) == 0) {
            families.insert(line.substr(7, line.find(' ', 7) - 7));
        } else if (!line.empty() && line[0] != '#') {
            samples.insert(line.substr(0, line.find_first_of("{ ")));
        }
    }
}

std::string read(const std::filesystem::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// The files that name series: packaging/prometheus/ (rules, alerts, dashboard, scrape config,
/// promtool tests, README) and agent/fabric/ (queries, analysis).
std::vector<std::filesystem::path> users() {
    namespace fs = std::filesystem;
    const fs::path root = RH_SOURCE_DIR;
    std::vector<fs::path> out;
    for (const auto& [dir, exts] : std::vector<std::pair<fs::path, std::set<std::string>>>{
             {root / "packaging/prometheus", {".yml", ".json", ".md"}},
             {root / "agent/fabric", {".cpp", ".h"}}})
        for (const auto& e : fs::recursive_directory_iterator(dir))
            if (e.is_regular_file() && exts.count(e.path().extension().string()))
                out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_catalog_row_is_on_metrics_under_its_exported_name) {
    std::set<std::string> families, samples;
    names_of(render(false), families, samples);
    for (const SeriesSpec& spec : series_catalog())
        BOOST_TEST(families.count(std::string(spec.exported)) == 1u,
                   spec.name << " is not on /metrics as " << spec.exported);
}

BOOST_AUTO_TEST_CASE(every_series_name_the_rules_dashboard_and_fabric_use_is_exported) {
    std::set<std::string> known, samples;
    names_of(render(false), known, samples);
    names_of(render(true), known, samples);
    known.insert(samples.begin(), samples.end());
    BOOST_TEST_REQUIRE(known.count("rocehealth_pfc_pause_duration_seconds_total") == 1u);
    const std::size_t exported = known.size();
    // What the rule files record (record: rocehealth:...): names the rules define.
    const std::regex record(R"(record:\s*"?([a-zA-Z_:][a-zA-Z0-9_:]*))");
    std::size_t records = 0;
    for (const auto& p : users())
        if (p.extension() == ".yml" && p.parent_path().filename() != "tests") {
            const std::string text = read(p);
            for (std::sregex_iterator it(text.begin(), text.end(), record), end; it != end; ++it)
                records += known.insert((*it)[1]).second;
        }
    BOOST_TEST_REQUIRE(records > 10u);
    // Not series: the name of a bench program (bench/README.md).
    known.insert("rocehealth_prom_decode_bench");

    const std::regex name(R"(rocehealth[_:][a-zA-Z0-9_:]+)");
    std::size_t checked = 0;
    for (const auto& p : users()) {
        const std::string text = read(p);
        for (std::sregex_iterator it(text.begin(), text.end(), name), end; it != end; ++it) {
            std::string n = it->str();
            ++checked;
            if (known.count(n)) continue;
            // A name in prose followed by ':' ("`rocehealth_host_info`:"), or a prefix that names
            // a group of families ("rocehealth_probe_tor_*", "rocehealth:pfc_pause_...").
            if (n.back() == ':' && known.count(n.substr(0, n.size() - 1))) continue;
            const bool prefix = n.back() == '_' || n.back() == ':';
            const auto after = known.lower_bound(n);
            if (prefix && after != known.end() && after->rfind(n, 0) == 0) continue;
            BOOST_ERROR(p.string()
                        << ": " << n << " is neither exported by the agent nor recorded by a rule");
        }
    }
    BOOST_TEST_MESSAGE(checked << " uses of " << exported << " exported names and " << records
                               << " recorded ones checked");
    BOOST_TEST(checked > 500u);
}

BOOST_AUTO_TEST_SUITE_END()

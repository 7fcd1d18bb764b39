// agent/daemon/metrics: the Prometheus exposition of a store — names in base units, exact
// counters, missing values left out, labels escaped, findings, HELP/TYPE for every family.
#include <boost/test/unit_test.hpp>
#include <map>
#include <sstream>

#include "agent/daemon/metrics.h"

BOOST_AUTO_TEST_SUITE(test_agent_metrics)

using namespace rh;
using rh::agent::AgentStats;
using rh::agent::render_metrics;

namespace {

constexpr std::int64_t kWall0 = 1796100000000;  // ms

Sample counter(const std::string& series, Labels labels, std::optional<std::uint64_t> v, double t,
               const std::string& unit = "packets") {
    Sample s;
    s.t_s = t;
    s.wall_ms = kWall0 + static_cast<std::int64_t>(t * 1000);
    s.host = "h1";
    s.series = series;
    s.labels = std::move(labels);
    s.kind = SampleKind::counter;
    s.unit = unit;
    s.count = v;
    if (!v) s.error = "read failed";
    s.source = "/sys/x";
    return s;
}

Sample gauge(const std::string& series, Labels labels, double v, double t,
             const std::string& unit) {
    Sample s = counter(series, std::move(labels), std::nullopt, t, unit);
    s.kind = SampleKind::gauge;
    s.error.clear();
    s.value = v;
    return s;
}

const Labels kPort = {{"device", "mlx5_0"}, {"port", "1"}, {"netdev", "ens1f0np0"}};

Labels with(Labels l, const std::string& k, const std::string& v) {
    l[k] = v;
    return l;
}

bool has_line(const std::string& text, const std::string& line) {
    std::istringstream is(text);
    for (std::string l; std::getline(is, l);)
        if (l == line) return true;
    return false;
}

bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_CASE(names_follow_prometheus_base_units) {
    // The catalog's exported names and conversions (core/series_catalog.cpp).
    const auto spec = [](std::string_view name) -> const rh::SeriesSpec& {
        const rh::SeriesSpec* s = rh::find_series(name);
        BOOST_TEST_REQUIRE(s != nullptr, name);
        return *s;
    };
    BOOST_TEST(spec("pfc_pause_frames").exported == "rocehealth_pfc_pause_frames_total");
    const auto& pause = spec("pfc_pause_duration_us");
    BOOST_TEST(pause.exported == "rocehealth_pfc_pause_duration_seconds_total");
    BOOST_TEST(rh::export_scale(pause).apply(912345) == 0.912345);
    BOOST_TEST(spec("probe_latency_us").exported == "rocehealth_probe_latency_seconds");
    const auto& rate = spec("port_rate_gbps");
    BOOST_TEST(rate.exported == "rocehealth_port_rate_bytes_per_second");
    BOOST_TEST(rh::export_scale(rate).apply(100) == 12500000000.0);
    BOOST_TEST(spec("roce_rx_bytes").exported == "rocehealth_roce_rx_bytes_total");
    BOOST_TEST(rh::agent::metric_help(pause) ==
               "Time paused by (rx) or pausing (tx) the peer per priority (seconds)");
    BOOST_TEST(rh::agent::metric_help(spec("port_trust_info")).ends_with("always 1"));
}

BOOST_AUTO_TEST_CASE(latest_values_with_labels_and_units_converted) {
    SeriesStore store;
    const Labels rx3 = with(with(kPort, "priority", "3"), "direction", "rx");
    for (double t : {0.0, 1.0}) {
        store.add(
            counter("pfc_pause_duration_us", rx3, 912345 + static_cast<int>(t) * 1000, t, "us"));
        store.add(counter("ack_timeouts", kPort, 18446744073709551615ull, t, "events"));
        store.add(gauge("port_rate_gbps", {{"device", "mlx5_0"}, {"port", "1"}}, 100, t, "Gb/s"));
    }
    const std::string m = render_metrics(store, {}, AgentStats{});
    // The newest point, microseconds as seconds.
    BOOST_TEST(has_line(m,
                        "rocehealth_pfc_pause_duration_seconds_total{device=\"mlx5_0\","
                        "direction=\"rx\",netdev=\"ens1f0np0\",port=\"1\",priority=\"3\"} "
                        "0.913345"));
    // A 64-bit counter is printed exactly, not rounded through a double.
    BOOST_TEST(has_line(m,
                        "rocehealth_ack_timeouts_total{device=\"mlx5_0\",netdev=\"ens1f0np0\","
                        "port=\"1\"} 18446744073709551615"));
    BOOST_TEST(has_line(m,
                        "rocehealth_port_rate_bytes_per_second{device=\"mlx5_0\",port=\"1\"} "
                        "1.25e+10"));
    BOOST_TEST(has_line(m, "# TYPE rocehealth_pfc_pause_duration_seconds_total counter"));
    BOOST_TEST(has_line(m, "# TYPE rocehealth_port_rate_bytes_per_second gauge"));
    BOOST_TEST(contains(m, "# HELP rocehealth_pfc_pause_duration_seconds_total Time paused by"));
}

BOOST_AUTO_TEST_CASE(a_32_bit_wrap_keeps_the_exported_counter_growing) {
    SeriesStore store;
    Sample a = counter("cnp_sent", kPort, 4294967000ull, 0, "packets");
    a.width_bits = 32;  // an mlx5 Q counter
    Sample b = counter("cnp_sent", kPort, 200, 1, "packets");
    b.width_bits = 32;
    store.add(a);
    store.add(b);
    const std::string m = render_metrics(store, {}, AgentStats{});
    // 4294967000 + (2^32 - 4294967000) + 200: Prometheus sees an increase of 496, not a reset.
    BOOST_TEST(has_line(m,
                        "rocehealth_cnp_sent_total{device=\"mlx5_0\",netdev=\"ens1f0np0\","
                        "port=\"1\"} 4294967496"),
               m);
    // A 64-bit counter that goes backwards is a reset (driver reload): the count since it adds.
    SeriesStore reset;
    reset.add(counter("cnp_sent", kPort, 1000, 0, "packets"));
    reset.add(counter("cnp_sent", kPort, 30, 1, "packets"));
    BOOST_TEST(has_line(render_metrics(reset, {}, AgentStats{}),
                        "rocehealth_cnp_sent_total{device=\"mlx5_0\",netdev=\"ens1f0np0\","
                        "port=\"1\"} 1030"));
}

BOOST_AUTO_TEST_CASE(missing_counters_are_left_out_never_zero) {
    SeriesStore store;
    store.add(counter("rnr_nak_received", kPort, 5, 0));
    store.add(counter("rnr_nak_received", kPort, std::nullopt, 1));  // latest read failed
    store.add(counter("cnp_sent", kPort, 7, 1));
    const std::string m = render_metrics(store, {}, AgentStats{});
    BOOST_TEST(!contains(m, "rocehealth_rnr_nak_received_total{"));
    BOOST_TEST(has_line(m, "rocehealth_series_unreadable 1"));
    BOOST_TEST(contains(m, "rocehealth_cnp_sent_total{"));
}

BOOST_AUTO_TEST_CASE(series_gone_from_the_latest_pass_are_left_out) {
    SeriesStore store;
    store.add(counter("cnp_sent", with(kPort, "device", "mlx5_9"), 3, 0));  // device removed
    store.add(counter("cnp_sent", kPort, 4, 0));
    store.add(counter("cnp_sent", kPort, 5, 1));
    const std::string m = render_metrics(store, {}, AgentStats{});
    BOOST_TEST(!contains(m, "mlx5_9"));
    BOOST_TEST(contains(m, "device=\"mlx5_0\",netdev=\"ens1f0np0\",port=\"1\"} 5"));
}

BOOST_AUTO_TEST_CASE(probe_latency_is_a_summary_in_seconds_per_peer_op_and_size) {
    SeriesStore store;
    // The mesh's store series are not exported as such (no gauge family of the same name).
    store.add(gauge("probe_latency_us",
                    {{"peer", "g2"}, {"op", "write"}, {"size_bytes", "64"}, {"quantile", "p50"}},
                    12.5, 0, "us"));
    store.add(counter("probe_errors", {{"peer", "g2"}, {"op", "write"}, {"status", "timeout"}}, 3,
                      0, "events"));
    rh::agent::ProbeSummaries sum;
    sum.configure({"host \"b\"\\x", "g3:18521"}, {"write"}, {64}, 60);
    std::vector<double> v;
    for (int i = 1; i <= 1000; ++i) v.push_back(i / 2.0);  // 0.5 .. 500 us
    sum.add_phase("host \"b\"\\x", "write", 64, v, 1);
    sum.add_error("g3:18521", "connect", 1);
    AgentStats st;
    st.probes = sum.view(1);
    const std::string m = render_metrics(store, {}, st);
    BOOST_TEST(has_line(m, "# TYPE rocehealth_probe_latency_seconds summary"));
    const std::string b = "peer=\"host \\\"b\\\"\\\\x\",op=\"write\",size_bytes=\"64\"";
    BOOST_TEST(has_line(m, "rocehealth_probe_latency_seconds{" + b + ",quantile=\"0.5\"} 0.00025"));
    BOOST_TEST(
        has_line(m, "rocehealth_probe_latency_seconds{" + b + ",quantile=\"0.99\"} 0.000495"));
    BOOST_TEST(
        has_line(m, "rocehealth_probe_latency_seconds{" + b + ",quantile=\"0.999\"} 0.0004995"));
    BOOST_TEST(has_line(m, "rocehealth_probe_latency_seconds_sum{" + b + "} 0.25025"));
    BOOST_TEST(has_line(m, "rocehealth_probe_latency_seconds_count{" + b + "} 1000"));
    // A peer never measured: NaN quantiles, zero sum and count (as client libraries do).
    const std::string g3 = "peer=\"g3:18521\",op=\"write\",size_bytes=\"64\"";
    BOOST_TEST(has_line(m, "rocehealth_probe_latency_seconds{" + g3 + ",quantile=\"0.5\"} NaN"));
    BOOST_TEST(has_line(m, "rocehealth_probe_latency_seconds_count{" + g3 + "} 0"));
    // Failures per (peer, op) from 0, cumulative; the store's probe_errors is not exported.
    BOOST_TEST(has_line(m, "# TYPE rocehealth_probe_errors_total counter"));
    BOOST_TEST(has_line(m, "rocehealth_probe_errors_total{peer=\"g3:18521\",op=\"connect\"} 1"));
    BOOST_TEST(has_line(m, "rocehealth_probe_errors_total{peer=\"g3:18521\",op=\"write\"} 0"));
    BOOST_TEST(!contains(m, "status=\"timeout\""));
    BOOST_TEST(!contains(m, "peer=\"g2\""));
    // One HELP and TYPE for the summary, its _sum/_count lines in its block.
    std::size_t n = 0;
    for (std::size_t p = 0; (p = m.find("# TYPE rocehealth_probe_latency", p)) != m.npos; ++p) ++n;
    BOOST_TEST(n == 1u);
}

BOOST_AUTO_TEST_CASE(inter_tor_latency_is_a_summary_per_destination_tor) {
    // With a peers file: own-ToR peers per peer, the other ToRs' hosts by dst_tor.
    SeriesStore store;
    rh::agent::ProbeSummaries own, tors;
    own.configure({"10.7.0.2"}, {"write"}, {64}, 60);
    tors.configure({"r08", "r09"}, {"write"}, {64}, 60);
    tors.add_phase("r08", "write", 64, {2, 4}, 1);  // two hosts of r08 in one window
    tors.add_phase("r08", "write", 64, {6}, 1);
    tors.add_error("r09", "connect", 1);
    AgentStats st;
    st.probes = own.view(1);
    st.tor_probes = tors.view(1);
    const std::string m = render_metrics(store, {}, st);
    BOOST_TEST(has_line(m, "# TYPE rocehealth_probe_tor_latency_seconds summary"));
    const std::string r08 = "dst_tor=\"r08\",op=\"write\",size_bytes=\"64\"";
    BOOST_TEST(
        has_line(m, "rocehealth_probe_tor_latency_seconds{" + r08 + ",quantile=\"0.5\"} 4e-06"));
    BOOST_TEST(has_line(m, "rocehealth_probe_tor_latency_seconds_count{" + r08 + "} 3"));
    BOOST_TEST(has_line(m, "rocehealth_probe_tor_errors_total{dst_tor=\"r09\",op=\"connect\"} 1"));
    BOOST_TEST(has_line(m, "rocehealth_probe_errors_total{peer=\"10.7.0.2\",op=\"connect\"} 0"));
    BOOST_TEST(!contains(m, "peer=\"r08\""));
}

BOOST_AUTO_TEST_CASE(escaped_label_values) {
    SeriesStore store;
    store.add(counter("cnp_sent", {{"device", "dev \"b\"\\x\n"}}, 1, 0));
    const std::string m = render_metrics(store, {}, AgentStats{});
    BOOST_TEST(has_line(m, "rocehealth_cnp_sent_total{device=\"dev \\\"b\\\"\\\\x\\n\"} 1"));
}

BOOST_AUTO_TEST_CASE(open_findings_are_exported_closed_ones_are_not) {
    SeriesStore store;
    store.add(counter("cnp_sent", kPort, 1, 0));
    Finding open = make_finding("pause_storm", Severity::error, "h1", "mlx5_0", 1);
    open.labels = {{"priority", "3"}, {"direction", "rx"}, {"port", "1"}};
    Finding dup = open;  // same label set: one series
    Finding closed = make_finding("link_flap", Severity::error, "h1", "mlx5_0", 1);
    closed.opened_t = 10;
    closed.closed_t = 11;
    Finding inventory = make_finding("pcie_downtrained", Severity::warning, "h1", "mlx5_0", 0);
    const std::string m = render_metrics(store, {open, dup, closed, inventory}, AgentStats{});
    BOOST_TEST(has_line(m,
                        "rocehealth_finding{rule=\"pause_storm\",severity=\"error\",host=\"h1\","
                        "device=\"mlx5_0\",port=\"1\",direction=\"rx\",priority=\"3\"} 1"));
    BOOST_TEST(has_line(m,
                        "rocehealth_finding{rule=\"pcie_downtrained\",severity=\"warning\","
                        "host=\"h1\",device=\"mlx5_0\"} 1"));
    BOOST_TEST(!contains(m, "rule=\"link_flap\""));
    std::size_t n = 0;
    for (std::size_t p = 0; (p = m.find("rocehealth_finding{rule=\"pause_storm\"", p)) != m.npos;
         ++p)
        ++n;
    BOOST_TEST(n == 1u);
}

BOOST_AUTO_TEST_CASE(self_metrics_and_one_help_and_type_per_family) {
    SeriesStore store;
    store.add(counter("cnp_sent", kPort, 1, 0));
    store.add(counter("cnp_sent", with(kPort, "port", "2"), 1, 0));
    AgentStats st;
    st.version = "0.1.0";
    st.key_fingerprint = "3f2a9c01b7e4d855";
    st.passes = 3;
    st.reloads_failed = 1;
    st.responder_up = false;
    st.findings_opened[{"link_flap", "error"}] = 2;
    st.rss_bytes = 1048576;
    st.http_refused = {{"per_address_cap", 56}, {"request_timeout", 0}};
    st.peer_source_errors = {{"prometheus", 3}};
    st.fleet_hosts = 960;
    st.collector_sources = {{"ethtool_stats", true, 0.00025}, {"aer", false, 1.5e-05}};
    const std::string m = render_metrics(store, {}, st);
    BOOST_TEST(has_line(m, "rocehealth_collector_success{source=\"ethtool_stats\"} 1"));
    BOOST_TEST(has_line(m, "rocehealth_collector_success{source=\"aer\"} 0"));
    BOOST_TEST(
        has_line(m, "rocehealth_collector_duration_seconds{source=\"ethtool_stats\"} 0.00025"));
    BOOST_TEST(has_line(m, "rocehealth_collector_duration_seconds{source=\"aer\"} 1.5e-05"));
    BOOST_TEST(contains(m, "# TYPE rocehealth_collector_success gauge"));
    BOOST_TEST(has_line(m, "rocehealth_mesh_peer_source_errors_total{source=\"prometheus\"} 3"));
    BOOST_TEST(has_line(m, "rocehealth_mesh_fleet_hosts 960"));
    BOOST_TEST(has_line(m, "rocehealth_build_info{version=\"0.1.0\"} 1"));
    // The fleet's keys, compared in Prometheus (issue 27: one fingerprint across a fabric).
    BOOST_TEST(has_line(m, "rocehealth_fabric_key_info{fingerprint=\"3f2a9c01b7e4d855\"} 1"));
    BOOST_TEST(has_line(m, "rocehealth_collection_passes_total 3"));
    BOOST_TEST(has_line(m, "rocehealth_config_reloads_total{result=\"failure\"} 1"));
    BOOST_TEST(has_line(m, "rocehealth_responder_up 0"));
    BOOST_TEST(
        has_line(m, "rocehealth_findings_opened_total{rule=\"link_flap\",severity=\"error\"} 2"));
    BOOST_TEST(has_line(m, "process_resident_memory_bytes 1048576"));
    BOOST_TEST(
        has_line(m, "rocehealth_http_connections_refused_total{reason=\"per_address_cap\"} 56"));
    BOOST_TEST(
        has_line(m, "rocehealth_http_connections_refused_total{reason=\"request_timeout\"} 0"));
    // Every sample's family has exactly one HELP and one TYPE, before its samples.
    std::map<std::string, int> help, type;
    std::istringstream is(m);
    for (std::string l; std::getline(is, l);) {
        if (l.rfind("# HELP ", 0) == 0) {
            ++help[l.substr(7, l.find(' ', 7) - 7)];
            continue;
        }
        if (l.rfind("# TYPE ", 0) == 0) {
            ++type[l.substr(7, l.find(' ', 7) - 7)];
            continue;
        }
        const std::string family = l.substr(0, l.find_first_of("{ "));
        BOOST_TEST(help[family] == 1, family);
        BOOST_TEST(type[family] == 1, family);
    }
    BOOST_TEST(help["rocehealth_cnp_sent_total"] == 1);
}

BOOST_AUTO_TEST_CASE(host_info_carries_the_topology_once_and_only_there) {
    SeriesStore store;
    store.add(counter("pfc_pause_frames", with(with(kPort, "priority", "3"), "direction", "tx"), 7,
                      0, "frames"));
    AgentStats st;
    st.host_info =
        rh::agent::HostInfo{"gpu07", {{"pod", "p1"}, {"rail", "2"}, {"tor", "r\"07"}}, {}};
    const std::string m = render_metrics(store, {}, st);
    BOOST_TEST(has_line(m, "# TYPE rocehealth_host_info gauge"));
    BOOST_TEST(has_line(m, R"(rocehealth_host_info{host="gpu07",pod="p1",rail="2",tor="r\"07"} 1)"),
               m);
    // not copied onto the host's other series: the rules join on instance
    BOOST_TEST(has_line(m, R"(rocehealth_pfc_pause_frames_total{device="mlx5_0",direction="tx",)"
                           R"(netdev="ens1f0np0",port="1",priority="3"} 7)"),
               m);
    std::size_t pods = 0;
    for (auto at = m.find("pod=\"p1\""); at != std::string::npos; at = m.find("pod=", at + 1))
        ++pods;
    BOOST_TEST(pods == 1u, m);

    // without a topology host_info names the host alone
    st.host_info->topology.clear();
    BOOST_TEST(has_line(render_metrics(store, {}, st), R"(rocehealth_host_info{host="gpu07"} 1)"));
}

BOOST_AUTO_TEST_CASE(port_configuration_in_bytes_and_trust_unknown_left_out) {
    AgentStats st;
    rh::agent::PortConfigRow known{"mlx5_0", 1, "ens1f0np0", 9000, 4096, "dscp"};
    rh::agent::PortConfigRow unknown{"mlx5_1", 1, "", std::nullopt, std::nullopt, ""};
    st.host_info = rh::agent::HostInfo{"gpu07", {}, {known, unknown}};
    const std::string m = render_metrics(SeriesStore{}, {}, st);
    BOOST_TEST(has_line(
        m, R"(rocehealth_netdev_mtu_bytes{device="mlx5_0",port="1",netdev="ens1f0np0"} 9000)"));
    BOOST_TEST(has_line(
        m,
        R"(rocehealth_port_active_mtu_bytes{device="mlx5_0",port="1",netdev="ens1f0np0"} 4096)"));
    BOOST_TEST(has_line(
        m,
        R"(rocehealth_port_trust_info{device="mlx5_0",port="1",netdev="ens1f0np0",trust="dscp"} 1)"));
    BOOST_TEST(!contains(m, "device=\"mlx5_1\""), m);  // unknown: absent, never 0
}

BOOST_AUTO_TEST_SUITE_END()  // test_agent_metrics

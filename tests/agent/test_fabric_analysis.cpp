// agent/fabric: the fabric analysis on series built in code (pause-storm origin and victims in
// time order, ToR localisation against a dead host, configuration drift and an even split), the
// strict decoder of Prometheus' answers, and the --from/--to forms.
#include <boost/test/unit_test.hpp>
#include <cmath>

#include "agent/fabric/fabric_analysis.h"
#include "agent/fabric/fabric_queries.h"
#include "agent/fabric/prom_client.h"
#include "agent/fabric/prom_response.h"
#include "agent/fabric/time_arg.h"
#include "fabric_test_series.h"

BOOST_AUTO_TEST_SUITE(test_fabric_analysis)

using namespace rh::fabric;
using namespace rh::fabric::test;

namespace {

std::string inst(int i) {
    return "h" + std::to_string(i) + ":9900";
}

/// The first half of h1..hN under r01, the rest under r02.
std::vector<PromSeries> host_info(int hosts = 6) {
    std::vector<PromSeries> out;
    for (int i = 1; i <= hosts; ++i)
        out.push_back(series({{"instance", inst(i)},
                              {"host", "h" + std::to_string(i)},
                              {"tor", i <= hosts / 2 ? "r01" : "r02"}},
                             [](double) { return 1.0; }));
    return out;
}

PromSeries pause(int host, const std::string& dir, double from_s, double share) {
    return series({{"instance", inst(host)}, {"priority", "3"}, {"direction", dir}},
                  [=](double t) { return t >= kT0 + from_s ? share : 0.0; });
}

const rh::Finding* find(const FabricResult& r, const std::string& rule) {
    for (const auto& f : r.findings)
        if (f.rule_id == rule) return &f;
    return nullptr;
}

}  // namespace

BOOST_AUTO_TEST_CASE(pause_origin_then_victims_in_time_order) {
    FabricSeries in;
    in.host_info = host_info();
    in.pause_fraction = {pause(2, "tx", 300, 0.3), pause(2, "rx", 0, 0.0), pause(5, "rx", 600, 0.2),
                         pause(1, "rx", 420, 0.2), pause(3, "rx", 0, 0.01)};
    const FabricResult r = analyse_fabric(in);
    const rh::Finding* f = find(r, "fabric_pause_storm_origin");
    BOOST_REQUIRE(f);
    BOOST_TEST(f->host == "h2");
    BOOST_TEST(f->labels.at("priority") == "3");
    BOOST_TEST(f->labels.at("tor") == "r01");
    BOOST_TEST(f->opened_t == kT0 + 300);
    BOOST_REQUIRE_EQUAL(f->timeline.size(), 3u);
    BOOST_TEST(f->timeline[0].host == "h2");
    BOOST_TEST(f->timeline[1].host == "h1");
    BOOST_TEST(f->timeline[2].host == "h5");
    BOOST_TEST(f->timeline[1].t == kT0 + 420);
    BOOST_TEST(r.findings.size() == 1u);  // h3's 1 % is no victim
}

BOOST_AUTO_TEST_CASE(pause_everywhere_has_no_origin_and_short_bursts_do_not_count) {
    FabricSeries in;
    in.host_info = host_info();
    // Every host pauses and is paused alike: congestion, not a storm from one place.
    for (int h = 1; h <= 6; ++h) {
        in.pause_fraction.push_back(pause(h, "tx", 0, 0.2));
        in.pause_fraction.push_back(pause(h, "rx", 0, 0.2));
    }
    BOOST_TEST(analyse_fabric(in).findings.empty());
    // A 1-minute burst is shorter than the rule's 2-minute hold.
    in.pause_fraction = {
        series({{"instance", inst(2)}, {"priority", "3"}, {"direction", "tx"}},
               [](double t) { return t >= kT0 + 300 && t < kT0 + 360 ? 0.5 : 0; })};
    BOOST_TEST(analyse_fabric(in).findings.empty());
}

namespace {

/// Every host probes every other; pairs from r01 into r02 get `p50_into_r02`, pairs into
/// `dead_host` fail, from `from_s` on.
FabricSeries mesh(double p50_into_r02, int dead_host, double from_s = 600) {
    FabricSeries in;
    in.host_info = host_info();
    for (int s = 1; s <= 6; ++s)
        for (int d = 1; d <= 6; ++d) {
            if (s == d) continue;
            const bool into = s <= 3 && d >= 4;
            const rh::Labels l = {{"instance", inst(s)},
                                  {"peer", "h" + std::to_string(d) + ":18515"},
                                  {"op", "write"},
                                  {"size_bytes", "64"}};
            in.probe_p50_s.push_back(series(
                l, [=](double t) { return into && t >= kT0 + from_s ? p50_into_r02 : 5e-6; }));
            in.probe_errors.push_back(series(
                l, [=](double t) { return d == dead_host && t >= kT0 + from_s ? 3.0 : 0.0; }));
        }
    return in;
}

}  // namespace

BOOST_AUTO_TEST_CASE(tor_blamed_when_most_pairs_into_it_are_bad) {
    const FabricResult r = analyse_fabric(mesh(50e-6, 0));
    const rh::Finding* f = find(r, "fabric_tor_probes_failing");
    BOOST_REQUIRE(f);
    BOOST_TEST(f->labels.at("tor") == "r02");
    BOOST_TEST(f->host == "ToR r02");
    BOOST_TEST(f->opened_t == kT0 + 600);
    BOOST_TEST(f->timeline.size() == 9u);
    BOOST_TEST(r.findings.size() == 1u);
}

BOOST_AUTO_TEST_CASE(a_host_name_claimed_under_two_tors_maps_no_peer) {
    // h7, under r03, also calls itself h4 (a cloned image): which ToR the peer "h4" is under
    // is unknown, so the 3 pairs into it are left out (as in the rules' peer map), with a note
    // naming both ToRs; r02 is still found from its other 6 pairs.
    FabricSeries in = mesh(50e-6, 0);
    in.host_info.push_back(series({{"instance", inst(7)}, {"host", "h4"}, {"tor", "r03"}},
                                  [](double) { return 1.0; }));
    const FabricResult r = analyse_fabric(in);
    const rh::Finding* f = find(r, "fabric_tor_probes_failing");
    BOOST_REQUIRE(f);
    BOOST_TEST(f->labels.at("tor") == "r02");
    BOOST_TEST(f->timeline.size() == 6u);
    BOOST_REQUIRE_EQUAL(r.notes.size(), 1u);
    BOOST_TEST(r.notes[0].subject == "mesh peer h4:18515");
    BOOST_TEST(r.notes[0].text.find("ToRs r02, r03 all name themselves h4") != std::string::npos,
               r.notes[0].text);
}

BOOST_AUTO_TEST_CASE(one_dead_host_is_not_its_tor) {
    // h6 fails every probe: 3 of 9 pairs into r02 from r01 (plus its ToR-mates', not counted).
    BOOST_TEST(!find(analyse_fabric(mesh(5e-6, 6)), "fabric_tor_probes_failing"));
}

/// The topology-aware mesh (mesh.peers_file): one row per host and destination ToR (dst_tor),
/// h1..h4 under r01, h5..h8 under r03, h9 and h10 under r02; a row fails from 300 s on when
/// `fails(host, dst_tor)`.
template <typename F>
FabricSeries tor_mesh(F fails) {
    FabricSeries in;
    const auto tor_of = [](int h) { return h <= 4 ? "r01" : h <= 8 ? "r03" : "r02"; };
    for (int h = 1; h <= 10; ++h) {
        in.host_info.push_back(
            series({{"instance", inst(h)}, {"host", "h" + std::to_string(h)}, {"tor", tor_of(h)}},
                   [](double) { return 1.0; }));
        for (const std::string dst : {"r01", "r02", "r03"}) {
            if (dst == tor_of(h)) continue;
            const bool bad = fails(h, dst);
            in.probe_errors.push_back(
                series({{"instance", inst(h)}, {"dst_tor", dst}, {"op", "write"}},
                       [=](double t) { return bad && t >= kT0 + 300 ? 2.0 : 0.0; }));
        }
    }
    return in;
}

BOOST_AUTO_TEST_CASE(tor_blamed_from_per_destination_tor_series) {
    // ToR r02 dead: every row into it fails, and its hosts' rows out (a probe is a round trip).
    FabricSeries in =
        tor_mesh([](int h, const std::string& dst) { return dst == "r02" || h >= 9; });
    // A peer named by address cannot be placed under a ToR: left out, with a note — unless
    // its prober runs the topology-aware mesh, whose per-peer rows are its own ToR's peers by
    // address (the lab's fabric: a note per host and ToR-mate otherwise). h11 runs mesh.peers.
    in.host_info.push_back(series({{"instance", inst(11)}, {"host", "h11"}, {"tor", "r01"}},
                                  [](double) { return 1.0; }));
    for (int s : {1, 11})
        in.probe_errors.push_back(series({{"instance", inst(s)},
                                          {"peer", "10.0.0." + std::to_string(s) + ":18515"},
                                          {"op", "write"}},
                                         [](double) { return 0.0; }));
    const FabricResult r = analyse_fabric(in);
    const rh::Finding* f = find(r, "fabric_tor_probes_failing");
    BOOST_REQUIRE(f);
    BOOST_TEST(f->labels.at("tor") == "r02");
    BOOST_TEST(f->opened_t == kT0 + 300);
    BOOST_TEST(f->timeline.size() == 8u);
    BOOST_TEST(r.findings.size() == 1u);
    BOOST_REQUIRE_EQUAL(r.notes.size(), 1u);
    BOOST_TEST(r.notes[0].subject == "mesh peer 10.0.0.11:18515");
}

BOOST_AUTO_TEST_CASE(one_dead_host_is_not_its_tor_with_per_destination_tor_series) {
    // h10 fails every probe: every row into r02 fails (each source probes h10 in the window),
    // as do h10's own rows out, but its ToR-mate h9's rows out are fine (the lab's g3 alone).
    const FabricResult r = analyse_fabric(
        tor_mesh([](int h, const std::string& dst) { return dst == "r02" || h == 10; }));
    BOOST_TEST(!find(r, "fabric_tor_probes_failing"));
}

BOOST_AUTO_TEST_CASE(a_p50_without_its_failure_series_makes_a_pair_only_when_slow) {
    // As the rules (rocehealth:probe_pair_bad:2m): a row is a pair through its failure series,
    // or when it is slow. r02 dead (8 failing rows into it); h11 and h12 (r01) show healthy p50
    // rows into r02 without a failure series (no pair), h13 a slow one (a bad pair).
    FabricSeries in =
        tor_mesh([](int h, const std::string& dst) { return dst == "r02" || h >= 9; });
    for (int h : {11, 12, 13}) {
        in.host_info.push_back(
            series({{"instance", inst(h)}, {"host", "h" + std::to_string(h)}, {"tor", "r01"}},
                   [](double) { return 1.0; }));
        in.probe_p50_s.push_back(series(
            {{"instance", inst(h)}, {"dst_tor", "r02"}, {"op", "write"}, {"size_bytes", "64"}},
            [=](double) { return h == 13 ? 1e-3 : 5e-6; }));
    }
    const FabricResult r = analyse_fabric(in);
    const rh::Finding* f = find(r, "fabric_tor_probes_failing");
    BOOST_REQUIRE(f);
    const auto value = [&](const std::string& name) {
        for (const auto& e : f->evidence)
            if (e.name == name) return e.value;
        return std::string("(none)");
    };
    BOOST_TEST(value("pairs_into_tor") == "9");
    BOOST_TEST(value("bad_pairs_into_tor") == "9");
}

BOOST_AUTO_TEST_CASE(a_topology_aware_agents_per_peer_rows_make_no_pairs_between_tors) {
    // The rows into r02 are fine (only its hosts' rows out fail); h1..h8 (topology-aware: they
    // have dst_tor rows) also export per-peer rows that fail toward r02's hosts by name, as a
    // host whose topology is wrong would. Those rows are its own ToR's peers by construction: they
    // make no pair (the rules leave them out before their join), so r02 is not blamed on them.
    FabricSeries in = tor_mesh([](int h, const std::string&) { return h >= 9; });
    for (int s = 1; s <= 8; ++s)
        for (int d : {9, 10})
            in.probe_errors.push_back(series({{"instance", inst(s)},
                                              {"peer", "h" + std::to_string(d) + ":18515"},
                                              {"op", "write"}},
                                             [](double t) { return t >= kT0 + 300 ? 2.0 : 0.0; }));
    const FabricResult r = analyse_fabric(in);
    BOOST_TEST(!find(r, "fabric_tor_probes_failing"));
    BOOST_TEST(r.notes.empty());
}

BOOST_AUTO_TEST_CASE(config_drift_names_the_minority_port) {
    FabricSeries in;
    in.host_info = host_info();
    for (int h = 1; h <= 6; ++h) {
        const rh::Labels port = {{"instance", inst(h)}, {"device", "mlx5_0"}, {"port", "1"}};
        auto mtu = port, trust = port, pfc = port;
        mtu["__name__"] = "rocehealth_netdev_mtu_bytes";
        trust["__name__"] = "rocehealth_port_trust_info";
        trust["trust"] = h <= 3 ? "dscp" : "pcp";  // even split: no majority, no drift
        pfc["__name__"] = "rocehealth_pfc_enabled";
        pfc["priority"] = "3";
        in.port_config.push_back(series(mtu, [=](double) { return h == 4 ? 1500.0 : 9000.0; }));
        in.port_config.push_back(series(trust, [](double) { return 1.0; }));
        in.port_config.push_back(series(pfc, [=](double t) {
            return h == 2 && t >= kT0 + 900 ? 0.0 : 1.0;  // turned off half way
        }));
    }
    const FabricResult r = analyse_fabric(in);
    BOOST_REQUIRE_EQUAL(r.findings.size(), 2u);
    BOOST_TEST(r.findings[0].host == "h4");
    BOOST_TEST(r.findings[0].labels.at("setting") == "netdev_mtu_bytes");
    BOOST_TEST(r.findings[0].labels.at("value") == "1500");
    BOOST_TEST(r.findings[0].labels.at("fabric_value") == "9000");
    BOOST_TEST(r.findings[1].host == "h2");
    BOOST_TEST(r.findings[1].labels.at("priority") == "3");
    BOOST_TEST(r.findings[1].opened_t == kT0 + 900);
}

// Healthy only when the analyses saw input: a fleet with quiet pause counters but no probe or
// configuration series has judged pauses only, and says which analyses it could not run.
BOOST_AUTO_TEST_CASE(analyses_without_input_are_not_judged) {
    FabricSeries in;
    in.host_info = host_info();
    in.pause_fraction = {pause(1, "rx", 0, 0.0), pause(1, "tx", 0, 0.0)};
    const FabricResult r = analyse_fabric(in);
    BOOST_TEST(r.findings.empty());
    std::vector<std::string> rules;
    for (const auto& n : r.not_judged) rules.push_back(n.subject);
    BOOST_TEST(
        rules == (std::vector<std::string>{"fabric_tor_probes_failing", "fabric_config_drift"}),
        boost::test_tools::per_element());
}

namespace {

/// The text of `rule`'s not-judged note, or "" when it was judged.
std::string not_judged_text(const FabricResult& r, const std::string& rule) {
    std::string text;
    for (const auto& n : r.not_judged)
        if (n.subject == rule) {
            BOOST_TEST(text.empty(), rule << " not judged twice");
            text = n.text;
        }
    return text;
}

PromSeries mtu(int host, double value) {
    return series({{"__name__", "rocehealth_netdev_mtu_bytes"},
                   {"instance", inst(host)},
                   {"device", "mlx5_0"},
                   {"port", "1"}},
                  [=](double) { return value; });
}

}  // namespace

// Too little input is not health either (a new user's find: one probe pair, where the ToR rule
// needs 4 into a ToR, said healthy, exit 0): each rule below its minimum says what it saw
// against what it needs.
BOOST_AUTO_TEST_CASE(rules_below_their_minimum_input_are_not_judged) {
    FabricSeries in;
    in.host_info = host_info();
    in.probe_errors = {series({{"instance", inst(1)}, {"peer", "h4"}, {"op", "write"}},
                              [](double) { return 0.0; })};
    in.port_config = {mtu(1, 9000), mtu(2, 9000)};
    in.pause_fraction = {pause(1, "rx", 0, 0.0)};
    FabricResult r = analyse_fabric(in);
    BOOST_TEST(r.findings.empty());
    const std::string mesh_why = not_judged_text(r, "fabric_tor_probes_failing");
    BOOST_TEST(mesh_why.find("1 pair(s) between ToRs into 1 ToR(s), at most 1 into one (r02)") !=
                   std::string::npos,
               mesh_why);
    BOOST_TEST(mesh_why.find("needs at least 4 pairs into a ToR") != std::string::npos, mesh_why);
    const std::string config_why = not_judged_text(r, "fabric_config_drift");
    BOOST_TEST(config_why.find("at most 2 port(s)") != std::string::npos, config_why);
    BOOST_TEST(config_why.find("at least 3 ports") != std::string::npos, config_why);
    const std::string pause_why = not_judged_text(r, "fabric_pause_storm_origin");
    BOOST_TEST(pause_why.find("0 with both rx and tx") != std::string::npos, pause_why);

    // Three pairs into r02 are still one short; pairs into r01 alone have nothing to compare.
    in.probe_errors.clear();
    for (int s : {1, 2, 3})
        in.probe_errors.push_back(series({{"instance", inst(s)}, {"peer", "h5"}, {"op", "write"}},
                                         [](double) { return 0.0; }));
    BOOST_TEST(!not_judged_text(analyse_fabric(in), "fabric_tor_probes_failing").empty());
    // Enough of each: judged, healthy.
    in = mesh(5e-6, 0);
    in.port_config = {mtu(1, 9000), mtu(2, 9000), mtu(3, 9000)};
    in.pause_fraction = {pause(1, "rx", 0, 0.0), pause(1, "tx", 0, 0.0)};
    r = analyse_fabric(in);
    BOOST_TEST(r.findings.empty());
    BOOST_TEST(r.not_judged.empty());
    // Points over less than the 2 m hold cannot show a held condition.
    in.pause_fraction = {series(
                             {{"instance", inst(1)}, {"priority", "3"}, {"direction", "rx"}},
                             [](double) { return 0.0; }, 60),
                         series(
                             {{"instance", inst(1)}, {"priority", "3"}, {"direction", "tx"}},
                             [](double) { return 0.0; }, 60)};
    const std::string short_why = not_judged_text(analyse_fabric(in), "fabric_pause_storm_origin");
    BOOST_TEST(short_why.find("over 60 s of points") != std::string::npos, short_why);
}

// A setting the agents could not read is exported as NaN: its ports are no input, and the answer
// says so (a new user's find: every port's MTU NaN and PFC fine gave PFC's verdict and no word
// of MTU). Three NaN-only MTU ports do not make drift judged either.
BOOST_AUTO_TEST_CASE(a_setting_read_as_nan_is_said_not_judged) {
    FabricSeries in;
    in.host_info = host_info();
    for (int h = 1; h <= 4; ++h) {
        in.port_config.push_back(mtu(h, std::nan("")));
        in.port_config.push_back(series({{"__name__", "rocehealth_pfc_enabled"},
                                         {"instance", inst(h)},
                                         {"device", "mlx5_0"},
                                         {"port", "1"},
                                         {"priority", "3"}},
                                        [](double) { return 1.0; }));
    }
    in.port_config[2] = mtu(2, 9000);  // one port of four read its MTU
    FabricResult r = analyse_fabric(in);
    BOOST_TEST(r.findings.empty());
    BOOST_TEST(not_judged_text(r, "fabric_config_drift").empty());  // PFC had 4 ports
    std::string note;
    for (const auto& n : r.notes)
        if (n.subject == "rocehealth_netdev_mtu_bytes") note = n.text;
    BOOST_TEST(note.find("3 of 4 port(s) reported only NaN") != std::string::npos, note);
    BOOST_TEST(note.find("those ports were not judged") != std::string::npos, note);

    // Only NaN MTUs and nothing else: too little input, not healthy.
    in.port_config = {mtu(1, std::nan("")), mtu(2, std::nan("")), mtu(3, std::nan(""))};
    r = analyse_fabric(in);
    const std::string why = not_judged_text(r, "fabric_config_drift");
    BOOST_TEST(why.find("at most 0 port(s)") != std::string::npos, why);
    note.clear();
    for (const auto& n : r.notes)
        if (n.subject == "rocehealth_netdev_mtu_bytes") note = n.text;
    BOOST_TEST(note.find("this setting was not judged") != std::string::npos, note);
}

// One rule, one state: a reason from outside the data (the plan's step) never makes a found
// rule "not judged" too, and a rule not judged stays one entry, with the cause.
BOOST_AUTO_TEST_CASE(each_rule_has_one_state) {
    FabricResult r = analyse_fabric(mesh(50e-6, 0));
    BOOST_REQUIRE(find(r, "fabric_tor_probes_failing"));
    BOOST_REQUIRE(!not_judged_text(r, "fabric_config_drift").empty());
    add_not_judged(r, {{"fabric_tor_probes_failing", "the step is 236 s"},
                       {"fabric_config_drift", "no input at a query step of 25200 s"},
                       {"fabric_pause_storm_origin", "the step is 236 s"}});
    BOOST_TEST(not_judged_text(r, "fabric_tor_probes_failing").empty());
    BOOST_TEST(not_judged_text(r, "fabric_config_drift") == "no input at a query step of 25200 s");
    BOOST_TEST(not_judged_text(r, "fabric_pause_storm_origin") == "the step is 236 s");
    BOOST_TEST(r.not_judged.size() == 2u);
    BOOST_TEST(r.notes.back().subject == "fabric_tor_probes_failing");
    BOOST_TEST(r.notes.back().text.find("may have missed") != std::string::npos);
    // A step past the lookback: every rule may have had its data skipped, with the step as reason.
    const auto unseen = skipped_at_step(25200, 15, 2);
    BOOST_REQUIRE_EQUAL(unseen.size(), 3u);
    BOOST_TEST(unseen[2].subject == "fabric_config_drift");
    BOOST_TEST(unseen[0].text.find("25200 s") != std::string::npos);
    BOOST_TEST(unseen[0].text.find("raise --max-points (now 2)") != std::string::npos);
    BOOST_TEST(skipped_at_step(300, 15, 2).empty());
    // A step set by --min-step: the advice is to lower it, not to shorten the range.
    const auto own = skipped_at_step(600, 600, 50000);
    BOOST_REQUIRE_EQUAL(own.size(), 3u);
    BOOST_TEST(own[0].text.find("Lower --min-step (now 600 s)") != std::string::npos, own[0].text);
    BOOST_TEST(own[0].text.find("--max-points") == std::string::npos, own[0].text);
}

// The span of the data found, not of the range asked (a new user's find: "3600 s of data" for
// 10 minutes of points).
BOOST_AUTO_TEST_CASE(the_data_span_is_that_of_the_points) {
    FabricSeries in;
    in.host_info = {series(
        {{"instance", inst(1)}, {"host", "h1"}, {"tor", "r01"}}, [](double) { return 1.0; }, 600)};
    in.port_config = {mtu(1, 9000)};
    in.port_config[0].points.push_back({kT0 + 2400, std::nan("")});  // no value: not data
    const FabricResult r = analyse_fabric(in);
    BOOST_TEST(r.data_first_s == kT0);
    BOOST_TEST(r.data_last_s == kT0 + 1800);
    BOOST_TEST(analyse_fabric({}).data_last_s == 0);
}

BOOST_AUTO_TEST_CASE(decoder_takes_the_api_shape_only) {
    const auto ok = decode_matrix(
        R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{"instance":"a"},
            "values":[[1764763200,"1.5"],[1764763215.5,"NaN"],[1764763230,"+Inf"]]}]}})",
        10);
    BOOST_REQUIRE(ok);
    BOOST_REQUIRE_EQUAL(ok->size(), 1u);
    BOOST_TEST((*ok)[0].labels.at("instance") == "a");
    BOOST_TEST((*ok)[0].points[1].t_s == 1764763215.5);
    BOOST_TEST(std::isnan((*ok)[0].points[1].value));
    BOOST_TEST(std::isinf((*ok)[0].points[2].value));
    const auto err = decode_matrix(
        R"({"status":"error","errorType":"bad_data","error":"parse error at char 3"})", 10);
    BOOST_REQUIRE(!err);
    BOOST_TEST(err.error().cause == kCausePrometheusError);
    BOOST_TEST(err.error().detail == "Prometheus error bad_data: parse error at char 3");
    // A long error keeps its end, where VictoriaMetrics puts the reason after the echoed query.
    const std::string query(3000, 'q');
    const auto long_err = decode_matrix(
        R"({"status":"error","errorType":"422","error":"error when executing query=\")" + query +
            R"(\" on the time range: cannot select more than 5000000 unique time series"})",
        10);
    BOOST_REQUIRE(!long_err);
    const std::string& d = long_err.error().detail;
    BOOST_TEST(d.find("cannot select more than 5000000 unique time series") != std::string::npos);
    BOOST_TEST(d.find("error when executing query=") != std::string::npos);
    BOOST_TEST(d.find("bytes left out") != std::string::npos);
    BOOST_TEST(d.size() < 700u);
    for (
        const char* bad :
        {"", "[]", "{\"status\":1}",
         R"({"status":"success","data":{"resultType":"vector","result":[]}})",
         R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{"a":1},"values":[]}]}})",
         R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,"x"]]}]}})",
         R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[["1","2"]]}]}})"}) {
        const auto r = decode_matrix(bad, 10);
        BOOST_TEST(!r, bad);
        if (!r) BOOST_TEST(r.error().cause == kCauseMalformed, bad);
    }
    const auto many = decode_matrix(
        R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[]},{"metric":{},"values":[]}]}})",
        1);
    BOOST_REQUIRE(!many);
    BOOST_TEST(many.error().cause == kCauseTooManySeries);
}

// /api/v1/query's answer (what is read at a range's end: PromClient::query_at): a vector, one
// "value" a series; a matrix, or a series without its point, is not that answer.
BOOST_AUTO_TEST_CASE(the_instant_decoder_takes_a_vector_of_one_point_a_series) {
    const auto ok = decode_vector(
        R"({"status":"success","data":{"resultType":"vector","result":[
            {"metric":{"host":"h1","tor":"r1"},"value":[1764763200.5,"1"]},
            {"metric":{"host":"h2"},"value":[1764763200.5,"NaN"]}]}})",
        10);
    BOOST_REQUIRE(ok);
    BOOST_REQUIRE_EQUAL(ok->size(), 2u);
    BOOST_TEST((*ok)[0].labels.at("tor") == "r1");
    BOOST_REQUIRE_EQUAL((*ok)[0].points.size(), 1u);
    BOOST_TEST((*ok)[0].points[0].t_s == 1764763200.5);
    BOOST_TEST((*ok)[0].points[0].value == 1.0);
    BOOST_TEST(std::isnan((*ok)[1].points[0].value));
    for (
        const char* bad :
        {R"({"status":"success","data":{"resultType":"matrix","result":[]}})",
         R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{}}]}})",
         R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"values":[[1,"1"]]}]}})",
         R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"1",2]}]}})",
         R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":1}]}})"}) {
        const auto r = decode_vector(bad, 10);
        BOOST_TEST(!r, bad);
        if (!r) BOOST_TEST(r.error().cause == kCauseMalformed, bad);
    }
    const auto err = decode_vector(
        R"({"status":"error","errorType":"bad_data","error":"parse error at char 3"})", 10);
    BOOST_REQUIRE(!err);
    BOOST_TEST(err.error().cause == kCausePrometheusError);
}

BOOST_AUTO_TEST_CASE(time_arguments) {
    double t = 0;
    const double now = 1764763200;
    BOOST_TEST(!parse_time_arg("--from", "now", now, t));
    BOOST_TEST(t == now);
    BOOST_TEST(!parse_time_arg("--from", "-1h", now, t));
    BOOST_TEST(t == now - 3600);
    BOOST_TEST(!parse_time_arg("--from", "now-1.5m", now, t));
    BOOST_TEST(t == now - 90);
    BOOST_TEST(!parse_time_arg("--from", "1764763200.5", now, t));
    BOOST_TEST(t == 1764763200.5);
    BOOST_TEST(!parse_time_arg("--from", "2025-12-03T12:00:00Z", now, t));
    BOOST_TEST(t == 1764763200);
    BOOST_TEST(!parse_time_arg("--from", "2025-12-03T13:00:00.250+01:00", now, t));
    BOOST_TEST(t == 1764763200.25);
    for (const char* bad : {"", "-1x", "yesterday", "2025-13-03T12:00:00Z", "2025-12-03", "-h"})
        BOOST_TEST(parse_time_arg("--to", bad, now, t).has_value(), bad);
    // Out of the calendar's range: said as such, naming the option (a new user's find: an
    // overflowed year, and Prometheus' "duration out of range" for -1000000d).
    for (const char* far : {"99999999999999999999", "-1000000d", "9999-01-01T00:00:00Z"}) {
        const auto e = parse_time_arg("--from", far, now, t);
        BOOST_TEST_REQUIRE(e.has_value(), far);
        BOOST_TEST(*e ==
                   std::string("--from: '") + far + "' is out of range (1970-01-01 to 2200-01-01)");
    }
    BOOST_TEST(rfc3339(1764763200) == "2025-12-03T12:00:00Z");
    BOOST_TEST(rfc3339(1764763200.25) == "2025-12-03T12:00:00.250Z");
}

// A long range must not hide a live fault (issue 29): 30 days keep a step within the rules'
// windows (the 1 m pause rate, half the 2 m hold), paged by time; only a range past
// --max-points steps coarser, and then the two windowed rules are not judged (config drift,
// a last value, is judged at any step).
BOOST_AUTO_TEST_CASE(long_ranges_keep_a_fine_step_or_are_not_judged) {
    const double day = 86400;
    BOOST_TEST(coarsest_judged_step_s("fabric_pause_storm_origin") == 60);
    BOOST_TEST(coarsest_judged_step_s("fabric_tor_probes_failing") == 60);
    BOOST_TEST(std::isinf(coarsest_judged_step_s("fabric_config_drift")));
    const FabricPlan hour = plan_fabric_fetch(0, 3600, 15, 50000, 250);
    BOOST_TEST(hour.step_s == 15);
    BOOST_TEST(hour.points_per_series == 241u);
    BOOST_TEST(hour.requests == 5u);  // 5 queries, one page each
    BOOST_TEST(hour.not_judged.empty());
    const FabricPlan month = plan_fabric_fetch(0, 30 * day, 15, 50000, 250);
    BOOST_TEST(month.step_s <= coarsest_judged_step_s("fabric_pause_storm_origin"));
    BOOST_TEST(month.points_per_series <= 50000u);
    BOOST_TEST(month.not_judged.empty());
    // Paged: every request within Prometheus' 11,000 points per series.
    // host_info is one instant query; the 4 others a page each.
    BOOST_TEST(month.requests == 1 + 4 * ((month.points_per_series + 249) / 250));
    // The old plan's 30 d step (11,000 points a series) was 236 s: now it is not judged.
    const FabricPlan coarse = plan_fabric_fetch(0, 30 * day, 15, 11000, 250);
    BOOST_TEST(coarse.step_s == 236);
    std::vector<std::string> rules;
    for (const auto& n : coarse.not_judged) rules.push_back(n.subject);
    BOOST_TEST(rules == (std::vector<std::string>{"fabric_pause_storm_origin",
                                                  "fabric_tor_probes_failing"}),
               boost::test_tools::per_element());
    BOOST_TEST(coarse.not_judged[0].text.find("236 s, coarser than the 60 s") != std::string::npos);
    BOOST_TEST(coarse.not_judged[0].text.find("--max-points") != std::string::npos);
    // --min-step past the windows is not judged either, whatever the range.
    const FabricPlan own = plan_fabric_fetch(0, 3600, 61, 50000, 250);
    BOOST_REQUIRE_EQUAL(own.not_judged.size(), 2u);
    BOOST_TEST(own.not_judged[0].text.find("Lower --min-step (now 61 s)") != std::string::npos,
               own.not_judged[0].text);
    BOOST_TEST(plan_fabric_fetch(0, 3600, 60, 50000, 250).not_judged.empty());
}

BOOST_AUTO_TEST_CASE(a_range_shorter_than_the_hold_is_not_judged) {
    // A storm running through a 60 s range held 60 s in it: the 2 m hold cannot be seen, so
    // nothing found there is not health (new-user find: `--from -10m --to -9m` said healthy).
    const FabricPlan minute = plan_fabric_fetch(0, 60, 15, 50000, 250);
    BOOST_TEST(minute.not_judged.size() == 2u);
    BOOST_TEST(minute.not_judged[0].text.find("the range is 60 s, shorter than the 120 s") !=
               std::string::npos);
    BOOST_TEST(plan_fabric_fetch(0, 120, 15, 50000, 250).not_judged.empty());
}

BOOST_AUTO_TEST_CASE(step_and_url) {
    BOOST_TEST(parse_prometheus_url("http://prom:9090/p/")->path_prefix == "/p");
    BOOST_TEST(parse_prometheus_url("http://prom:9090/p/")->scheme_host_port == "http://prom:9090");
    for (const char* bad : {"prom:9090", "http://", "http://:9090", "http://a:0", "http://a:x",
                            "ftp://a", "http://a:9090/?x=1", "http://a:9090/p#f", "http://a?x=1"})
        BOOST_TEST(!parse_prometheus_url(bad), bad);
    // Credentials in the URL are refused with the option that sends them (a new user's find).
    const auto cred = parse_prometheus_url("http://user:pw@prom:9090");
    BOOST_TEST_REQUIRE(!cred);
    BOOST_TEST(cred.error().message().find("--header 'Authorization: Basic") != std::string::npos,
               cred.error().message());
    const auto qs = fabric_queries("{tor=\"r07\"}", 15, 3600);
    // host_info once, at the end, over the range and the lookback before it.
    BOOST_TEST(qs.front().promql == "last_over_time(rocehealth_host_info{tor=\"r07\"}[3900s])");
    BOOST_TEST(qs.front().at_end_only);
    BOOST_TEST(qs[1].promql.find("and on (instance) rocehealth_host_info{tor=\"r07\"}") !=
               std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()  // test_fabric_analysis

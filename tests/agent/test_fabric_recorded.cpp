// agent/fabric, the recorded source: the analyses on the series the fabric rules record
// (per-ToR ratios and counts, nonzero pause shares with a count of reporting pairs, per-value
// port counts and drifting rows), as a fleet's `fabric --source recorded` reads them; the
// selector text for the blamed ToRs' rows; --source's words.
#include <boost/test/unit_test.hpp>
#include <cmath>

#include "agent/fabric/fabric_analysis.h"
#include "agent/fabric/fabric_queries.h"
#include "agent/fabric/time_arg.h"
#include "fabric_test_series.h"

BOOST_AUTO_TEST_SUITE(test_fabric_recorded)

using namespace rh::fabric;
using rh::fabric::test::kT0;

namespace {

constexpr double kStep = 30;

/// At the recording rules' 30 s step.
template <typename F>
PromSeries series(rh::Labels labels, F value, double span_s = 1800) {
    return rh::fabric::test::series(std::move(labels), value, span_s, kStep);
}

/// Four ToRs r01..r04, 3 hosts each (h1..h12).
std::vector<PromSeries> host_info() {
    std::vector<PromSeries> out;
    for (int i = 1; i <= 12; ++i)
        out.push_back(series({{"instance", "h" + std::to_string(i) + ":9900"},
                              {"host", "h" + std::to_string(i)},
                              {"tor", "r0" + std::to_string((i - 1) / 3 + 1)}},
                             [](double) { return 1.0; }));
    return out;
}

/// The mesh as the rules record it: 9 pairs into each ToR, all bad into `bad_tor` from
/// kT0 + `from_s` (0 bad before), none elsewhere; rows out of `bad_tor` bad at `rows_out`.
void recorded_mesh(FabricSeries& in, const std::string& bad_tor, double from_s, double rows_out) {
    for (int r = 1; r <= 4; ++r) {
        const std::string tor = "r0" + std::to_string(r);
        const bool bad = tor == bad_tor;
        in.tor_into_count.push_back(series({{"peer_tor", tor}}, [](double) { return 9.0; }));
        in.tor_into_bad_ratio.push_back(series(
            {{"peer_tor", tor}}, [=](double t) { return bad && t >= kT0 + from_s ? 1.0 : 0.0; }));
        in.tor_rows_out_bad_ratio.push_back(series(
            {{"tor", tor}}, [=](double t) { return bad && t >= kT0 + from_s ? rows_out : 0.0; }));
    }
}

const rh::Finding* find(const FabricResult& r, const std::string& rule) {
    for (const auto& f : r.findings)
        if (f.rule_id == rule) return &f;
    return nullptr;
}

bool not_judged(const FabricResult& r, const std::string& rule) {
    for (const auto& n : r.not_judged)
        if (n.subject == rule) return true;
    return false;
}

}  // namespace

BOOST_AUTO_TEST_CASE(tor_blamed_from_recorded_ratios_and_its_rows_make_the_timeline) {
    FabricSeries in;
    in.host_info = host_info();
    recorded_mesh(in, "r02", 600, 1.0);
    const FabricResult first = analyse_fabric(in);
    const rh::Finding* f = find(first, "fabric_tor_probes_failing");
    BOOST_REQUIRE(f);
    BOOST_TEST(f->labels.at("tor") == "r02");
    BOOST_TEST(f->opened_t == kT0 + 600);  // run start; fired after the 2 min hold
    BOOST_TEST(f->summary.find("9 of 9") != std::string::npos);
    BOOST_TEST(f->timeline.empty());  // no rows yet: the second pass fetches them
    // The second pass: two rows into r02 bad from +600 and +660 (points only while bad).
    for (const auto& [src, from_s] : {std::pair{"h1:9900", 600.0}, {"h7:9900", 660.0}})
        in.bad_rows.push_back(
            series({{"instance", src}, {"dst_tor", "r02"}, {"peer_tor", "r02"}},
                   [=](double t) { return t >= kT0 + from_s ? 1.0 : std::nan(""); }));
    const FabricResult second = analyse_fabric(in);
    f = find(second, "fabric_tor_probes_failing");
    BOOST_REQUIRE(f);
    BOOST_REQUIRE_EQUAL(f->timeline.size(), 2u);
    BOOST_TEST(f->timeline[0].host == "h1");
    BOOST_TEST(f->timeline[0].t == kT0 + 600);
    BOOST_TEST(f->timeline[1].host == "h7");
    BOOST_TEST(f->timeline[0].source == "rocehealth:probe_pair_bad_between_tors:2m");
    BOOST_TEST(!not_judged(second, "fabric_tor_probes_failing"));
}

BOOST_AUTO_TEST_CASE(a_tor_timeline_lists_the_first_pairs_to_go_bad_and_counts_the_rest) {
    FabricSeries in;
    in.host_info = host_info();
    recorded_mesh(in, "r02", 600, 1.0);
    // 30 rows into r02: 10 go bad at +600, 10 at +630, 10 at +660; all are bad when the rule
    // fires (+720): the 20 listed are those of +600 and +630.
    for (int i = 0; i < 30; ++i)
        in.bad_rows.push_back(
            series({{"instance", "x" + std::to_string(i) + ":9900"},
                    {"dst_tor", "r02"},
                    {"peer_tor", "r02"}},
                   [=](double t) { return t >= kT0 + 600 + 30 * (i / 10) ? 1.0 : std::nan(""); }));
    const FabricResult r = analyse_fabric(in);
    const rh::Finding* f = find(r, "fabric_tor_probes_failing");
    BOOST_REQUIRE(f);
    BOOST_REQUIRE_EQUAL(f->timeline.size(), 20u);
    for (const auto& e : f->timeline) BOOST_TEST(e.t <= kT0 + 630);
    bool counted = false;
    for (const auto& e : f->evidence)
        if (e.name == "pairs_in_timeline") counted = e.value == "20 of 30";
    BOOST_TEST(counted);
}

BOOST_AUTO_TEST_CASE(recorded_rows_out_of_the_tor_mostly_fine_is_one_host_not_the_tor) {
    FabricSeries in;
    in.host_info = host_info();
    recorded_mesh(in, "r02", 600, 0.3);
    const FabricResult r = analyse_fabric(in);
    BOOST_TEST(!find(r, "fabric_tor_probes_failing"));
    BOOST_TEST(!not_judged(r, "fabric_tor_probes_failing"));  // judged: healthy
}

BOOST_AUTO_TEST_CASE(a_tor_with_its_count_but_not_its_bad_share_is_not_judged_never_healthy) {
    // The rules' write of r02's bad share was dropped from +500 (vmalert's remote write under
    // load, seen at 1,000 hosts) while r02 went bad at +600: its count alone says nothing.
    FabricSeries in;
    in.host_info = host_info();
    recorded_mesh(in, "r02", 600, 1.0);
    for (PromSeries& s : in.tor_into_bad_ratio)
        if (s.labels.at("peer_tor") == "r02")
            std::erase_if(s.points, [](const PromPoint& p) { return p.t_s >= kT0 + 500; });
    const FabricResult r = analyse_fabric(in);
    BOOST_TEST(!find(r, "fabric_tor_probes_failing"));
    BOOST_REQUIRE(not_judged(r, "fabric_tor_probes_failing"));
    for (const auto& n : r.not_judged)
        if (n.subject == "fabric_tor_probes_failing") {
            BOOST_TEST(n.text.find("r02 at 44 of 61 steps") != std::string::npos, n.text);
            BOOST_TEST(n.text.find(rfc3339(kT0 + 510)) != std::string::npos, n.text);
        }
    // The reverse (a bad share with no count) is as incomplete.
    FabricSeries rev;
    rev.host_info = host_info();
    recorded_mesh(rev, "r02", 600, 1.0);
    for (PromSeries& s : rev.tor_into_count)
        if (s.labels.at("peer_tor") == "r03")
            std::erase_if(s.points, [](const PromPoint& p) { return p.t_s >= kT0 + 1500; });
    const FabricResult rr = analyse_fabric(rev);
    // r02 is still found; r03's hole is a note that other faults may have been missed.
    BOOST_TEST(find(rr, "fabric_tor_probes_failing"));
    BOOST_TEST(!not_judged(rr, "fabric_tor_probes_failing"));
    bool noted = false;
    for (const auto& n : rr.notes)
        noted = noted || (n.subject == "fabric_tor_probes_failing" &&
                          n.text.find("may have missed") != std::string::npos &&
                          n.text.find("r03 at 11 of 61 steps") != std::string::npos);
    BOOST_TEST(noted);
}

BOOST_AUTO_TEST_CASE(recorded_mesh_below_its_minimum_is_not_judged) {
    FabricSeries in;
    in.host_info = host_info();
    in.tor_into_count.push_back(series({{"peer_tor", "r01"}}, [](double) { return 3.0; }));
    in.tor_into_bad_ratio.push_back(series({{"peer_tor", "r01"}}, [](double) { return 1.0; }));
    const FabricResult r = analyse_fabric(in);
    BOOST_TEST(!find(r, "fabric_tor_probes_failing"));
    BOOST_TEST(not_judged(r, "fabric_tor_probes_failing"));
}

BOOST_AUTO_TEST_CASE(recorded_pause_without_nonzero_shares_is_judged_by_its_reporting_count) {
    FabricSeries in;
    in.host_info = host_info();
    // 12 hosts report rx and tx, nobody paused: the nonzero-share query returned nothing.
    in.pause_pairs_reporting.push_back(series({}, [](double) { return 12.0; }));
    BOOST_TEST(!not_judged(analyse_fabric(in), "fabric_pause_storm_origin"));
    // Only 90 s of reporting: shorter than the rule's 2 min hold.
    in.pause_pairs_reporting = {series(
        {}, [](double) { return 12.0; }, 90)};
    BOOST_TEST(not_judged(analyse_fabric(in), "fabric_pause_storm_origin"));
    // None reports both directions.
    in.pause_pairs_reporting = {series({}, [](double) { return 0.0; })};
    BOOST_TEST(not_judged(analyse_fabric(in), "fabric_pause_storm_origin"));
    // With the nonzero shares of an origin: found, as from the raw series.
    in.pause_pairs_reporting = {series({}, [](double) { return 12.0; })};
    in.pause_fraction = {series({{"instance", "h2:9900"}, {"priority", "3"}, {"direction", "tx"}},
                                [](double t) { return t >= kT0 + 300 ? 0.3 : std::nan(""); })};
    const FabricResult r = analyse_fabric(in);
    const rh::Finding* f = find(r, "fabric_pause_storm_origin");
    BOOST_REQUIRE(f);
    BOOST_TEST(f->host == "h2");
    BOOST_TEST(f->opened_t == kT0 + 300);
}

BOOST_AUTO_TEST_CASE(recorded_drift_names_ports_unlike_the_majority_at_the_end) {
    FabricSeries in;
    in.host_info = host_info();
    const rh::Labels mtu = {{"setting", "netdev_mtu_bytes"}};
    auto with = [](rh::Labels l,
                   std::initializer_list<std::pair<const std::string, std::string>> more) {
        l.insert(more);
        return l;
    };
    in.config_ports = {series(with(mtu, {{"value", "9000"}}), [](double) { return 10.0; }),
                       series(with(mtu, {{"value", "1500"}}), [](double) { return 2.0; })};
    // h5 drifts from +900 to the end; h9 drifted until +600 and came back.
    const rh::Labels port = {{"device", "mlx5_0"}, {"port", "1"}, {"netdev", "ens1f0np0"}};
    rh::Labels h5 = with(mtu, {{"value", "1500"}, {"instance", "h5:9900"}});
    rh::Labels h9 = with(mtu, {{"value", "1500"}, {"instance", "h9:9900"}});
    h5.insert(port.begin(), port.end());
    h9.insert(port.begin(), port.end());
    in.config_drifting = {
        series(h5, [](double t) { return t >= kT0 + 900 ? 1500.0 : std::nan(""); }),
        series(h9, [](double t) { return t <= kT0 + 600 ? 1500.0 : std::nan(""); })};
    const FabricResult r = analyse_fabric(in);
    std::vector<const rh::Finding*> drift;
    for (const auto& f : r.findings)
        if (f.rule_id == "fabric_config_drift") drift.push_back(&f);
    BOOST_REQUIRE_EQUAL(drift.size(), 1u);
    BOOST_TEST(drift[0]->host == "h5");
    BOOST_TEST(drift[0]->opened_t == kT0 + 900);
    BOOST_TEST(drift[0]->labels.at("fabric_value") == "9000");
    BOOST_TEST(drift[0]->summary.find("10 of 12 ports") != std::string::npos);
    BOOST_TEST(!not_judged(r, "fabric_config_drift"));
    // Two ports in all: too few to have a majority to drift from.
    in.config_ports = {series(with(mtu, {{"value", "9000"}}), [](double) { return 1.0; }),
                       series(with(mtu, {{"value", "1500"}}), [](double) { return 1.0; })};
    in.config_drifting.clear();
    BOOST_TEST(not_judged(analyse_fabric(in), "fabric_config_drift"));
}

BOOST_AUTO_TEST_CASE(blamed_tor_names_are_matched_literally) {
    BOOST_TEST(promql_regex_literal("r07") == "r07");
    BOOST_TEST(promql_regex_literal("r.0") == "r\\\\.0");  // regex \. in a PromQL string
    BOOST_TEST(promql_regex_literal("a|b") == "a\\\\|b");
    BOOST_TEST(promql_regex_literal("q\"x") == "q\\\"x");      // the string's quote
    BOOST_TEST(promql_regex_literal("b\\s") == "b\\\\\\\\s");  // a backslash: regex \\ .
}

BOOST_AUTO_TEST_CASE(source_words) {
    BOOST_TEST((parse_fabric_source("auto") == FabricSource::automatic));
    BOOST_TEST((parse_fabric_source("raw") == FabricSource::raw));
    BOOST_TEST((parse_fabric_source("recorded") == FabricSource::recorded));
    BOOST_TEST(!parse_fabric_source("Recorded"));
    BOOST_TEST(!parse_fabric_source(""));
    // Each recorded analysis starts with its presence check.
    std::vector<std::string> names;
    for (const FabricQuery& q : recorded_queries()) names.push_back(q.name);
    BOOST_TEST((names == std::vector<std::string>{"pause_pairs_reporting", "pause_fraction",
                                                  "tor_into_count", "tor_into_bad_ratio",
                                                  "tor_rows_out_bad_ratio", "config_ports",
                                                  "config_drifting"}));
}

BOOST_AUTO_TEST_SUITE_END()

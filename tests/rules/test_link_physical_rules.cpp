// The shipped rules for link-level (802.3x) pause and physical-layer errors (issue 12, classes 5
// and 7) over stores built in code: what fires, at which severity, naming what, and what stays
// quiet on a healthy link. Every store has passes 1 s apart on one 100 Gb/s port.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdint>
#include <string>

#include "../store/make_sample.h"
#include "../support/shipped_rules.h"
#include "rules/engine/engine.h"
#include "rules/engine/measure.h"

BOOST_AUTO_TEST_SUITE(test_rules_link_physical)

namespace {

using rh::Labels;
using rh::SeriesStore;

const Labels kPort{{"device", "mlx5_0"}, {"port", "1"}, {"netdev", "ens1f0np0"}};
constexpr int kPasses = 10;  // t = 0..10 s

Labels with(Labels l, const Labels& more) {
    l.insert(more.begin(), more.end());
    return l;
}

const rh::RuleSet& shipped() {
    return rh::test::shipped_rules();
}

/// Counter growing by `per_s` each 1 s pass, unit `unit`.
void counter(SeriesStore& st, const std::string& series, const Labels& extra, std::uint64_t per_s,
             const std::string& unit) {
    for (int k = 0; k <= kPasses; ++k) {
        auto s = rh::test::counter("hostA", series, with(kPort, extra), k, 5000 + per_s * k);
        s.unit = unit;
        st.add(std::move(s));
    }
}

void gauge(SeriesStore& st, const std::string& series, double v) {
    for (int k = 0; k <= kPasses; ++k) st.add(rh::test::gauge("hostA", series, kPort, k, v));
}

/// A store with the port's rate and width gauges.
SeriesStore port_store(double gbps = 100, double lanes = 4) {
    SeriesStore st;
    gauge(st, "port_rate_gbps", gbps);
    gauge(st, "port_width_lanes", lanes);
    return st;
}

std::vector<rh::Finding> of_rule(const rh::EngineResult& r, const std::string& id) {
    std::vector<rh::Finding> out;
    std::copy_if(r.findings.begin(), r.findings.end(), std::back_inserter(out),
                 [&](const rh::Finding& f) { return f.rule_id == id; });
    return out;
}

rh::Finding only(const rh::EngineResult& r, const std::string& id) {
    const auto f = of_rule(r, id);
    BOOST_REQUIRE_EQUAL(f.size(), 1u);
    return f.front();
}

bool has(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

}  // namespace

// ---- class 5: link-level pause -----------------------------------------------------------------

BOOST_AUTO_TEST_CASE(global_pause_duration_43_percent_is_a_link_pause_storm) {
    auto st = port_store();
    counter(st, "link_pause_duration_us", {{"direction", "rx"}}, 430000, "us");  // 0.43 s per s
    const auto f = only(rh::run_rules(st, shipped()), "link_pause_storm");
    BOOST_TEST(f.severity == rh::Severity::warning);
    BOOST_TEST(f.labels.at("direction") == "rx");
    BOOST_TEST(has(f.summary, "43% of the time"), f.summary);
    BOOST_TEST(has(f.summary, "the switch (or peer) paused this host"), f.summary);
    BOOST_TEST(of_rule(rh::run_rules(st, shipped()), "pause_storm").empty());  // not PFC
}

BOOST_AUTO_TEST_CASE(global_pause_over_half_the_time_is_an_error) {
    auto st = port_store();
    counter(st, "link_pause_duration_us", {{"direction", "tx"}}, 600000, "us");
    const auto f = only(rh::run_rules(st, shipped()), "link_pause_storm");
    BOOST_TEST(f.severity == rh::Severity::error);
    BOOST_TEST(has(f.summary, "this host sent the pauses"), f.summary);
}

BOOST_AUTO_TEST_CASE(pause_frames_without_duration_estimate_the_fraction) {
    // bnxt / ice / ethtool netlink: frames only. 900 frames/s x 335.5 us (65535 quanta x 512
    // bit times at 100 Gb/s) = 30% of the time at most.
    auto st = port_store();
    counter(st, "link_pause_frames", {{"direction", "tx"}}, 900, "frames");
    const auto f = only(rh::run_rules(st, shipped()), "link_pause_storm");
    BOOST_TEST(f.labels.at("direction") == "tx");
    BOOST_TEST(has(f.summary, "30% of the time"), f.summary);
    BOOST_TEST(rh::pause_quanta_s(100) * 900 == 0.30198, boost::test_tools::tolerance(1e-4));
}

BOOST_AUTO_TEST_CASE(duration_counter_wins_over_the_frame_estimate) {
    // mlx5 with global pause on: 900 frames/s would estimate 30%, the duration says 2%.
    auto st = port_store();
    counter(st, "link_pause_frames", {{"direction", "rx"}}, 900, "frames");
    counter(st, "link_pause_duration_us", {{"direction", "rx"}}, 20000, "us");
    BOOST_TEST(of_rule(rh::run_rules(st, shipped()), "link_pause_storm").empty());
}

BOOST_AUTO_TEST_CASE(light_global_pause_is_healthy) {
    auto st = port_store();
    counter(st, "link_pause_frames", {{"direction", "rx"}}, 100, "frames");  // 3.4%
    counter(st, "link_pause_frames", {{"direction", "tx"}}, 0, "frames");
    const auto r = rh::run_rules(st, shipped());
    BOOST_TEST(of_rule(r, "link_pause_storm").empty());
}

BOOST_AUTO_TEST_CASE(pfc_storm_with_global_pause_keeps_the_alternative_open) {
    auto st = port_store();
    counter(st, "pfc_pause_duration_us", {{"priority", "3"}, {"direction", "rx"}}, 400000, "us");
    counter(st, "link_pause_duration_us", {{"direction", "rx"}}, 300000, "us");
    const auto f = only(rh::run_rules(st, shipped()), "pause_storm");
    const auto a = std::find_if(f.alternatives.begin(), f.alternatives.end(), [](const auto& x) {
        return has(x.alternative, "link-level (global) pause");
    });
    BOOST_REQUIRE(a != f.alternatives.end());
    BOOST_TEST(a->status == "not ruled out");
}

// ---- class 7: physical-layer errors ------------------------------------------------------------

BOOST_AUTO_TEST_CASE(fcs_errors_above_1e_12_of_the_line_are_physical_errors) {
    auto st = port_store();
    counter(st, "fcs_errors", {}, 5, "frames");  // 5 / 1e11 bits = 5e-11
    const auto f = only(rh::run_rules(st, shipped()), "physical_errors");
    BOOST_TEST(f.severity == rh::Severity::warning);
    BOOST_TEST(has(f.summary, "cable, optic or connector"), f.summary);
    BOOST_TEST(has(f.summary, "5e-11 frames per bit on the line"), f.summary);
}

BOOST_AUTO_TEST_CASE(uncorrectable_fec_blocks_at_1e_9_are_an_error) {
    auto st = port_store();
    counter(st, "fec_uncorrectable_blocks", {}, 200, "blocks");  // 2e-9
    BOOST_TEST(only(rh::run_rules(st, shipped()), "physical_errors").severity ==
               rh::Severity::error);
}

BOOST_AUTO_TEST_CASE(the_ratio_is_per_line_bit_so_a_slower_port_tolerates_fewer) {
    // 1 FCS error per 10 s: 5e-13 at 200 Gb/s (within 1e-12), 1e-11 at 10 Gb/s (above).
    for (const double gbps : {200.0, 10.0}) {
        SeriesStore st = port_store(gbps);
        for (int k = 0; k <= kPasses; ++k) {
            auto s = rh::test::counter("hostA", "fcs_errors", kPort, k, k == kPasses ? 1 : 0);
            s.unit = "frames";
            st.add(std::move(s));
        }
        BOOST_TEST_CONTEXT(gbps << " Gb/s") {
            BOOST_TEST(of_rule(rh::run_rules(st, shipped()), "physical_errors").size() ==
                       (gbps < 100 ? 1u : 0u));
        }
    }
}

BOOST_AUTO_TEST_CASE(ib_link_error_recovery_is_a_physical_error) {
    auto st = port_store();
    counter(st, "link_error_recovery", {}, 1, "events");
    const auto f = only(rh::run_rules(st, shipped()), "physical_errors");
    BOOST_TEST(has(f.summary, "link retrains"), f.summary);
}

BOOST_AUTO_TEST_CASE(clean_link_has_no_physical_finding) {
    auto st = port_store();
    for (const char* s : {"fcs_errors", "symbol_errors", "pcs_symbol_errors"})
        counter(st, s, {}, 0, "errors");
    counter(st, "fec_corrected_bit_errors", {}, 500, "bits");  // 5e-9: a healthy optic
    for (int l = 0; l < 4; ++l)
        counter(st, "lane_corrected_bit_errors", {{"lane", std::to_string(l)}}, 125, "bits");
    const auto r = rh::run_rules(st, shipped());
    for (const char* id : {"physical_errors", "fec_marginal_link", "lane_errors"})
        BOOST_TEST(of_rule(r, id).empty(), id);
}

BOOST_AUTO_TEST_CASE(healthy_pam4_link_at_1e_6_raw_ber_is_not_marginal) {
    // 200 Gb/s over 4 PAM4 lanes: raw (pre-FEC) BER around 1e-6 is normal there, far below the
    // RS(544,514) limit, and one lane somewhat worse than the others at that level is not a fault.
    auto st = port_store(200, 4);
    counter(st, "fec_corrected_bit_errors", {}, 200000, "bits");  // 2e11 line bits a pass: 1e-6
    counter(st, "lane_corrected_bit_errors", {{"lane", "0"}}, 160000, "bits");
    for (int l = 1; l < 4; ++l)
        counter(st, "lane_corrected_bit_errors", {{"lane", std::to_string(l)}}, 13300, "bits");
    const auto r = rh::run_rules(st, shipped());
    BOOST_TEST(of_rule(r, "fec_marginal_link").empty());
    BOOST_TEST(of_rule(r, "lane_errors").empty());
}

BOOST_AUTO_TEST_CASE(fec_corrected_1e_4_is_a_marginal_link_error) {
    auto st = port_store();
    counter(st, "fec_corrected_bit_errors", {}, 10000000, "bits");  // 1e-4
    const auto f = only(rh::run_rules(st, shipped()), "fec_marginal_link");
    BOOST_TEST(f.severity == rh::Severity::error);
    BOOST_TEST(has(f.summary, "0.0001 bits per bit on the line"), f.summary);
    BOOST_TEST(has(f.summary, "ethtool -m"), f.summary);
    BOOST_TEST(of_rule(rh::run_rules(st, shipped()), "physical_errors").empty());  // no loss yet
}

BOOST_AUTO_TEST_CASE(fec_corrected_2e_5_is_a_marginal_link_warning) {
    auto st = port_store();
    counter(st, "fec_corrected_bit_errors", {}, 2000000, "bits");  // 2e-5
    BOOST_TEST(only(rh::run_rules(st, shipped()), "fec_marginal_link").severity ==
               rh::Severity::warning);
}

BOOST_AUTO_TEST_CASE(one_lane_with_98_percent_of_the_errors_is_named) {
    auto st = port_store();
    counter(st, "fec_corrected_bit_errors", {}, 5000000, "bits");
    counter(st, "lane_corrected_bit_errors", {{"lane", "0"}}, 30000, "bits");
    counter(st, "lane_corrected_bit_errors", {{"lane", "1"}}, 30000, "bits");
    counter(st, "lane_corrected_bit_errors", {{"lane", "2"}}, 4900000, "bits");
    counter(st, "lane_corrected_bit_errors", {{"lane", "3"}}, 40000, "bits");
    const auto f = only(rh::run_rules(st, shipped()), "lane_errors");
    BOOST_TEST(f.labels.at("lane") == "2");
    BOOST_TEST(has(f.summary, "lane 2 has 98% of the port's bits"), f.summary);
    BOOST_TEST(has(f.summary, "that lane of the cable"), f.summary);
}

BOOST_AUTO_TEST_CASE(errors_spread_over_lanes_or_a_one_lane_port_name_no_lane) {
    {
        auto st = port_store();
        for (int l = 0; l < 4; ++l)
            counter(st, "lane_corrected_bit_errors", {{"lane", std::to_string(l)}}, 100000, "bits");
        BOOST_TEST(of_rule(rh::run_rules(st, shipped()), "lane_errors").empty());
    }
    {
        auto st = port_store(25, 1);  // 25 Gb/s (1X): lane 0 always has everything
        counter(st, "lane_corrected_bit_errors", {{"lane", "0"}}, 100000, "bits");
        for (int l = 1; l < 4; ++l)
            counter(st, "lane_corrected_bit_errors", {{"lane", std::to_string(l)}}, 0, "bits");
        BOOST_TEST(of_rule(rh::run_rules(st, shipped()), "lane_errors").empty());
    }
}

BOOST_AUTO_TEST_CASE(retransmits_with_physical_errors_keep_that_cause_open) {
    for (const bool phys : {true, false}) {
        auto st = port_store();
        counter(st, "ack_timeouts", {}, 5, "events");
        counter(st, "fcs_errors", {}, phys ? 50 : 0, "frames");
        const auto r = rh::run_rules(st, shipped());
        const auto f = only(r, "retransmits");
        const auto a = std::find_if(f.alternatives.begin(), f.alternatives.end(),
                                    [](const auto& x) { return has(x.alternative, "physical"); });
        BOOST_REQUIRE(a != f.alternatives.end());
        BOOST_TEST_CONTEXT("physical errors " << phys) {
            BOOST_TEST(a->status == (phys ? "not ruled out" : "ruled out"));
            BOOST_TEST(of_rule(r, "physical_errors").size() == (phys ? 1u : 0u));
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()  // test_rules_link_physical

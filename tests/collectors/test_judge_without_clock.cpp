// Captures without a clock (agent/replay/capture_time.h, inputs.cpp, the engine's
// EngineOptions::unspaced_hosts) and "healthy when nothing was judged" (issue 26, classes 1 and
// 5): capture directories written by the test, loaded as `diagnose --bundle` loads them, the
// shipped rules run with diagnose's options, the exit code diagnose would give.
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "agent/replay/inputs.h"
#include "agent/replay/replay.h"
#include "core/exit_codes.h"
#include "rules/engine/engine.h"
#include "tests/support/capture_dirs.h"
#include "tests/support/shipped_rules.h"

BOOST_AUTO_TEST_SUITE(test_judge_without_clock)

namespace {

/// A capture directory under a private root (removed when the test's Root goes).
struct Root : rh::test::CaptureRoot {
    Root() : CaptureRoot("rh_noclock_") {}
};

constexpr auto& write = rh::test::write_capture_file;

std::string devinfo(const char* state) {
    return std::string(
               "hca_id:\tmlx5_0\n\ttransport:\t\t\tInfiniBand (0)\n\tnode_guid:\t\t\t"
               "0c42:a103:0065:4e9a\n\tsys_image_guid:\t\t\t0c42:a103:0065:4e9a\n"
               "\tphys_port_cnt:\t\t\t1\n\t\tport:\t1\n\t\t\tstate:\t\t\t") +
           state +
           "\n\t\t\tmax_mtu:\t\t4096 (5)\n\t\t\tactive_mtu:\t\t4096 (5)\n"
           "\t\t\tlink_layer:\t\tEthernet\n";
}

/// mlx5 hw_counters (`grep . hw_counters/*`): rnr_nak_retry_err is RNR NAKs received,
/// rp_cnp_ignored CNPs the reaction point ignored.
std::string hw_counters(std::uint64_t rnr_naks, std::uint64_t cnp_ignored) {
    const std::string p = "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/";
    return p + "out_of_buffer:0\n" + p + "rnr_nak_retry_err:" + std::to_string(rnr_naks) + "\n" +
           p + "local_ack_timeout_err:0\n" + p + "packet_seq_err:0\n" + p +
           "rp_cnp_ignored:" + std::to_string(cnp_ignored) + "\n";
}

/// `ip -s -s link` of one interface, with RX dropped `dropped`.
std::string ip_s_s_link(std::uint64_t dropped) {
    return "2: ens1f0np0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP mode "
           "DEFAULT group default qlen 1000\n    link/ether 0c:42:a1:65:4e:9a brd "
           "ff:ff:ff:ff:ff:ff\n    RX:  bytes packets errors dropped  missed   mcast\n    "
           "98765432100 123456789      0 " +
           std::to_string(dropped) +
           "       0       0\n    RX errors:  length    crc  frame   fifo overrun\n"
           "                 0      0      0      0       0\n"
           "    TX:  bytes packets errors dropped carrier collsns\n    87654321000 98765432      0"
           "       0       0       0\n    TX errors: aborted   fifo window heartbt transns\n"
           "                 0      0      0       0       2\n";
}

struct Diagnosis {
    rh::SeriesStore store{rh::StoreLimits{1e12, 1u << 30}};
    std::vector<rh::InputReport> reports;
    rh::EngineResult result;
    int exit_code = 0;
    std::string notes, warnings;
};

/// What `diagnose --bundle dirs...` does with the inputs (cmd_diagnose.cpp).
void diagnose(Diagnosis& d, const std::vector<std::string>& dirs,
              std::optional<double> interval_s = std::nullopt) {
    auto r = rh::load_bundles(d.store, dirs, interval_s);
    BOOST_TEST_REQUIRE(r.ok(), (r.ok() ? "" : r.error().message()));
    d.reports = *r;
    rh::EngineOptions opts = rh::replay_engine_options();
    opts.counters_expected = true;
    for (const auto& in : d.reports) {
        if (in.spacing_unknown) opts.unspaced_hosts.insert(in.hosts.begin(), in.hosts.end());
        for (const auto& n : in.notes) d.notes += n + "\n";
        for (const auto& n : in.warnings) d.warnings += n + "\n";
    }
    d.result = rh::run_rules(d.store, rh::test::shipped_rules(), opts);
    d.exit_code = rh::diagnosis_exit_code(d.result);
}

bool has_finding(const Diagnosis& d, const std::string& rule) {
    return std::any_of(d.result.findings.begin(), d.result.findings.end(),
                       [&](const rh::Finding& f) { return f.rule_id == rule; });
}

std::string not_judged(const Diagnosis& d, const std::string& kind) {
    std::string out;
    for (const auto& n : d.result.not_judged)
        if (n.kind == kind) out += n.rule_id + " ";
    return out;
}

bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_port_that_comes_up_is_found_without_a_clock) {
    Root root;
    const std::string a = root.dir("c0"), b = root.dir("c1"), c = root.dir("c2");
    write(a, "devinfo.txt", devinfo("PORT_DOWN (1)"));
    write(b, "devinfo.txt", devinfo("PORT_INIT (2)"));
    write(c, "devinfo.txt", devinfo("PORT_ACTIVE (4)"));
    for (const auto& d : {a, b, c}) write(d, "hw.txt", hw_counters(0, 5));
    Diagnosis d;
    diagnose(d, {a, b, c});
    BOOST_TEST(has_finding(d, "link_flap"));
    BOOST_TEST(d.exit_code == rh::kExitFindings);
    BOOST_TEST(d.reports[0].spacing_unknown);
    BOOST_TEST(contains(d.notes, "no clock in " + a + ", " + b + ", " + c), d.notes);
    // The rate rules are named as needing the interval, not judged healthy.
    const std::string named = not_judged(d, "no_interval");
    BOOST_TEST(contains(named, "rnr "), named);
    BOOST_TEST(contains(named, "retransmits "), named);
    BOOST_TEST(!contains(named, "link_flap"), named);
}

BOOST_AUTO_TEST_CASE(lifetime_counts_are_judged_and_no_finding_means_exit_2) {
    Root root;
    const std::string a = root.dir("c0"), b = root.dir("c1");
    for (const auto& d : {a, b}) write(d, "devinfo.txt", devinfo("PORT_ACTIVE (4)"));
    write(a, "hw.txt", hw_counters(0, 20000));
    write(b, "hw.txt", hw_counters(400, 20400));
    Diagnosis d;
    diagnose(d, {a, b});
    BOOST_TEST(has_finding(d, "lifetime_cnp_ignored"));
    BOOST_TEST(!has_finding(d, "rnr"));  // 400 RNR NAKs, but over an unknown time
    BOOST_TEST(d.exit_code == rh::kExitFindings);

    // --interval still judges the rates: 400 RNR NAKs in 10 s is an rnr finding.
    Diagnosis spaced;
    diagnose(spaced, {a, b}, 10.0);
    BOOST_TEST(!spaced.reports[0].spacing_unknown);
    BOOST_TEST(not_judged(spaced, "no_interval").empty());
    BOOST_TEST(has_finding(spaced, "rnr"));

    // Nothing found, rates not judged: could not judge (2), never healthy.
    write(a, "hw.txt", hw_counters(0, 0));
    write(b, "hw.txt", hw_counters(3, 0));
    Diagnosis quiet;
    diagnose(quiet, {a, b});
    BOOST_TEST(quiet.result.findings.empty());
    BOOST_TEST(contains(not_judged(quiet, "no_interval"), "rnr "));
    BOOST_TEST(quiet.exit_code == rh::kExitCannotRun);
}

BOOST_AUTO_TEST_CASE(date_lines_in_a_named_zone_give_the_spacing) {
    Root root;
    const std::string a = root.dir("c0"), b = root.dir("c1");
    for (const auto& d : {a, b}) write(d, "devinfo.txt", devinfo("PORT_ACTIVE (4)"));
    write(a, "hw.txt", "Thu Mar 13 09:41:02 CST 2025\n" + hw_counters(0, 0));
    write(b, "hw.txt", "Thu Mar 13 09:41:22 CST 2025\n" + hw_counters(400, 0));
    Diagnosis d;
    diagnose(d, {a, b});
    BOOST_TEST(!d.reports[0].spacing_unknown);
    BOOST_TEST(d.result.t_last - d.result.t_first == 20.0);
    BOOST_TEST(!d.result.wall_clock);  // CST is three zones: no wall clock claimed
    BOOST_TEST(contains(d.notes, "c0: time from c0/hw.txt:1 (date, zone CST): spacing only"),
               d.notes);
    BOOST_TEST(has_finding(d, "rnr"));
}

BOOST_AUTO_TEST_CASE(utc_date_lines_are_a_wall_clock_and_put_captures_in_order) {
    Root root;
    const std::string a = root.dir("c0"), b = root.dir("c1");
    for (const auto& d : {a, b}) write(d, "devinfo.txt", devinfo("PORT_ACTIVE (4)"));
    write(a, "hw.txt", "Fri, 04 Dec 2026 22:15:16 +0000\n" + hw_counters(0, 0));
    write(b, "hw.txt", "Fri Dec  4 10:15:36 PM UTC 2026\n" + hw_counters(400, 0));
    Diagnosis d;
    diagnose(d, {b, a});  // given newest first
    BOOST_TEST(d.result.wall_clock);
    BOOST_TEST(d.result.t_last - d.result.t_first == 20.0);
    BOOST_TEST(contains(d.notes, "captures given out of time order (" + b + ", " + a + ")"),
               d.notes);
    BOOST_TEST(has_finding(d, "rnr"));
}

BOOST_AUTO_TEST_CASE(a_timestamp_file_and_a_date_line_that_disagree_are_noted) {
    Root root;
    const std::string a = root.dir("c0");
    write(a, "devinfo.txt", devinfo("PORT_ACTIVE (4)"));
    write(a, "hw.txt", "Fri Dec  4 22:15:16 UTC 2026\n" + hw_counters(0, 0));
    write(a, "timestamp", "1796423116\n");  // 600 s later
    Diagnosis d;
    diagnose(d, {a});
    BOOST_TEST(contains(d.notes, "c0/hw.txt:1: its date time is 600 s before the `timestamp`"),
               d.notes);
}

BOOST_AUTO_TEST_CASE(counters_falling_without_a_clock_hint_at_the_order) {
    Root root;
    const std::string a = root.dir("c0"), b = root.dir("c1");
    for (const auto& d : {a, b}) write(d, "devinfo.txt", devinfo("PORT_ACTIVE (4)"));
    const std::string p = "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/";
    write(a, "hw.txt",
          p + "out_of_sequence:900\n" + p + "packet_seq_err:800\n" + p +
              "local_ack_timeout_err:700\n" + p + "rnr_nak_retry_err:600\n");
    write(b, "hw.txt",
          p + "out_of_sequence:90\n" + p + "packet_seq_err:80\n" + p +
              "local_ack_timeout_err:70\n" + p + "rnr_nak_retry_err:60\n");
    Diagnosis d;
    diagnose(d, {a, b});
    BOOST_TEST(contains(d.warnings, "c0 -> " + b + ": 4 of 4 changed counters go down"),
               d.warnings);
}

BOOST_AUTO_TEST_CASE(ibv_devinfo_alone_is_not_healthy) {
    Root root;
    const std::string a = root.dir("c0"), b = root.dir("c1");
    for (const auto& d : {a, b}) write(d, "devinfo.txt", devinfo("PORT_ACTIVE (4)"));
    for (const auto& d : {a, b}) write(d, "timestamp", d == a ? "1796422516" : "1796422526");
    Diagnosis d;
    diagnose(d, {a, b});
    BOOST_TEST(d.result.findings.empty());
    BOOST_TEST(contains(not_judged(d, "no_counters"), "counters"));
    BOOST_TEST(d.exit_code == rh::kExitCannotRun);
}

BOOST_AUTO_TEST_CASE(ip_s_s_link_drops_are_counters_the_discard_rule_judges) {
    Root root;
    const std::string a = root.dir("c0"), b = root.dir("c1");
    for (const auto& d : {a, b}) write(d, "devinfo.txt", devinfo("PORT_ACTIVE (4)"));
    write(a, "rdma-link.txt",
          "link mlx5_0/1 state ACTIVE physical_state LINK_UP netdev ens1f0np0\n");
    write(b, "rdma-link.txt",
          "link mlx5_0/1 state ACTIVE physical_state LINK_UP netdev ens1f0np0\n");
    write(a, "ip.txt", ip_s_s_link(1000));
    write(b, "ip.txt", ip_s_s_link(1200));  // 200 more in 10 s
    Diagnosis d;
    diagnose(d, {a, b}, 10.0);
    BOOST_TEST(has_finding(d, "rx_discards"));
    BOOST_TEST(d.exit_code == rh::kExitFindings);
    // Not rising: netdev statistics alone did not show what the other rules read: not healthy.
    write(b, "ip.txt", ip_s_s_link(1001));
    Diagnosis quiet;
    diagnose(quiet, {a, b}, 10.0);
    BOOST_TEST(quiet.result.findings.empty());
    BOOST_TEST(quiet.exit_code == rh::kExitCannotRun);
}

BOOST_AUTO_TEST_CASE(an_empty_or_unreadable_capture_folder_is_named) {
    Root root;
    const std::string a = root.dir("c0"), b = root.dir("c1");
    write(a, "devinfo.txt", devinfo("PORT_ACTIVE (4)"));
    write(a, "hw.txt", hw_counters(0, 0));
    write(b, "notes.txt", "nothing useful here\n");
    Diagnosis d;
    diagnose(d, {a, b}, 10.0);
    BOOST_TEST(contains(d.warnings, "c1: no file in it that rocehealth reads"), d.warnings);
}

// Such a folder among a host's stamped captures joins no host: as a capture without a clock it
// cost the host its spacing, and every rate rule said "give --interval" (a new user's find).
BOOST_AUTO_TEST_CASE(an_empty_folder_among_stamped_captures_leaves_their_clock) {
    Root root;
    const std::string a = root.dir("c0"), e = root.dir("empty"), o = root.dir("other"),
                      b = root.dir("c1");
    write(o, "notes.txt", "nothing useful here\n");
    for (const auto& [dir, t, rnr] : {std::tuple{a, "1796422516", 0}, {b, "1796422526", 5000}}) {
        write(dir, "devinfo.txt", devinfo("PORT_ACTIVE (4)"));
        write(dir, "hw.txt", hw_counters(rnr, 0));
        write(dir, "timestamp", std::string(t) + "\n");
    }
    Diagnosis d;
    diagnose(d, {a, e, o, b});
    BOOST_TEST(not_judged(d, "no_interval").empty(), not_judged(d, "no_interval"));
    BOOST_TEST(has_finding(d, "rnr"));
    BOOST_REQUIRE_EQUAL(d.reports.size(), 4u);
    BOOST_TEST(d.reports[1].hosts.empty());
    BOOST_TEST(!d.reports[0].spacing_unknown);
    BOOST_TEST(contains(d.warnings, e + ": no file in it that rocehealth reads (empty folder)"),
               d.warnings);
    BOOST_TEST(contains(d.warnings, "left out of the host captures"), d.warnings);
}

BOOST_AUTO_TEST_SUITE_END()

// A port that was never cabled is a note, not an error (rules/port_usage.h), and evidence reads
// with its units (rules/evidence_format.h). Each test states what an operator reads.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <string>

#include "../store/make_sample.h"
#include "../support/shipped_rules.h"
#include "rules/engine/checks.h"
#include "rules/engine/engine.h"
#include "rules/evidence_format.h"
#include "rules/port_usage.h"
#include "rules/rule.h"
#include "store/from_snapshot.h"
#include "store/series_store.h"

BOOST_AUTO_TEST_SUITE(test_port_usage)

using namespace rh;

namespace {

bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

Netdev netdev(const std::string& name, const std::string& operstate) {
    Netdev n;
    n.name = name;
    n.source = "/sys/devices/pci0000:00/0000:00:01.0/0000:3b:00.1/net/" + name;
    n.mtu_bytes = 1500;
    n.operstate = operstate;
    n.carrier_changes = 1;
    n.rx_bytes = n.tx_bytes = n.rx_packets = n.tx_packets = 0;
    return n;
}

/// mlx5_1 port 1 as an unused port of a dual-port NIC looks: DOWN/Disabled, no carrier,
/// carrier_changes 1, every traffic counter 0, link-local GIDs only, MTU 1500.
Port unused_port() {
    Port p;
    p.number = 1;
    p.state_code = 1;
    p.state = "DOWN";
    p.phys_state_code = 3;
    p.phys_state = "Disabled";
    p.rate = "40 Gb/sec (4X QDR)";
    p.link_layer = "Ethernet";
    p.gids = {{0, "fe80:0000:0000:0000:0e42:a1ff:fe65:4e9b", "IB/RoCE v1", "ens1f1np1"},
              {1, "fe80:0000:0000:0000:0e42:a1ff:fe65:4e9b", "RoCE v2", "ens1f1np1"}};
    p.counters = {
        {"port_rcv_data", 0, "", ""}, {"port_xmit_data", 0, "", ""}, {"link_downed", 0, "", ""}};
    p.netdev_name = "ens1f1np1";
    p.netdev = netdev("ens1f1np1", "down");
    p.verbs.active_mtu_bytes = 1024;
    p.verbs.max_mtu_bytes = 4096;
    return p;
}

Device mlx5_1() {
    Device d;
    d.name = "mlx5_1";
    return d;
}

Snapshot host_with(Port p) {
    Device d;
    d.name = "mlx5_1";
    d.ports.push_back(std::move(p));
    Snapshot s;
    s.host = "hostA";
    s.sysfs_root = "/sys";
    s.devices.push_back(std::move(d));
    return s;
}

RuleOutput run(const Snapshot& s, std::vector<std::string> required = {}) {
    return run_host_checks(test::shipped_rules(), RuleInput{s, std::nullopt, std::move(required)});
}

/// A normalized counter as a collector or the store gives it.
NormalizedCounter normalized(const char* name, const char* raw, const char* unit,
                             std::uint64_t value) {
    NormalizedCounter c;
    c.name = name;
    c.raw_name = raw;
    c.unit = unit;
    c.value = value;
    return c;
}

std::vector<Finding> only(const RuleOutput& out, const std::string& id) {
    std::vector<Finding> f;
    for (const auto& x : out.findings)
        if (x.rule_id == id) f.push_back(x);
    return f;
}

}  // namespace

BOOST_AUTO_TEST_CASE(an_unused_port_is_a_note_not_three_errors) {
    const auto out = run(host_with(unused_port()));
    BOOST_TEST(out.findings.empty());
    BOOST_TEST(out.unevaluated.empty());
    BOOST_TEST_REQUIRE(out.notes.size() == 1u);
    BOOST_TEST(out.notes[0].subject == "mlx5_1 port 1 (ens1f1np1)");
    BOOST_TEST(contains(out.notes[0].text,
                        "DOWN, no carrier, never carried traffic: taken as not cabled"));
}

// Issue 26: "not cabled" is judged over every capture: a port DOWN in the inventory's capture
// that left DOWN in a later one (POLLING/INIT/ACTIVE in the store) is not taken as uncabled, so
// its time rules judge it (came up late, bounced). Its netdev's own series (carrier_changes,
// labelled by netdev only) are skipped with it while it is uncabled.
BOOST_AUTO_TEST_CASE(uncabled_is_judged_over_all_captures) {
    const Snapshot s = host_with(unused_port());
    for (const bool came_up : {false, true}) {
        BOOST_TEST_CONTEXT("came up " << came_up) {
            SeriesStore store(StoreLimits{1e9, 1000000, false});
            for (int t = 0; t < 3; ++t) {
                Sample g =
                    test::gauge("hostA", "port_state_code", {{"device", "mlx5_1"}, {"port", "1"}},
                                t * 10.0, came_up && t > 0 ? 4.0 : 1.0);
                store.add(g);
            }
            const auto uncabled = never_cabled_ports(s, store, "hostA");
            BOOST_TEST(uncabled.count({"mlx5_1", "1"}) == (came_up ? 0u : 1u));
            BOOST_TEST(uncabled_group(uncabled, {{"netdev", "ens1f1np1"}}) == !came_up);
            BOOST_TEST(!uncabled_group(uncabled, {{"netdev", "ens1f0np0"}}));
            BOOST_TEST(port_state_history(store, "hostA", "mlx5_1", 1).left_down == came_up);
        }
    }
}

BOOST_AUTO_TEST_CASE(absent_counters_are_no_evidence_of_traffic) {
    Port p = unused_port();
    p.counters.clear();
    p.netdev->rx_bytes.reset();
    p.netdev->tx_bytes.reset();
    p.netdev->carrier_changes.reset();
    BOOST_TEST(judge_port_usage(mlx5_1(), p, {}).never_cabled);
    p.netdev.reset();  // a capture without `ip link`
    BOOST_TEST(judge_port_usage(mlx5_1(), p, {}).never_cabled);
}

BOOST_AUTO_TEST_CASE(each_sign_of_use_keeps_the_down_port_a_finding) {
    struct Case {
        const char* sign;
        void (*apply)(Port&);
    };
    const Case cases[] = {
        // PMA data counts 4-byte words: shown in bytes under the series' name (as diagnose).
        {"port_xmit_data_bytes = 208475320068 bytes",
         [](Port& p) { p.counters[1].value = 52118830017u; }},
        {"link_downed = 1 event", [](Port& p) { p.counters[2].value = 1u; }},
        {"rx_bytes = 918273645512 bytes", [](Port& p) { p.netdev->rx_bytes = 918273645512u; }},
        {"carrier_changes = 2 events", [](Port& p) { p.netdev->carrier_changes = 2u; }},
        {"operstate up", [](Port& p) { p.netdev->operstate = "up"; }},
        {"::ffff:10.0.1.1",
         [](Port& p) {
             p.gids.push_back({3, "0000:0000:0000:0000:0000:ffff:0a00:0101", "RoCE v2", "x"});
             p.gids.back().gid = "::ffff:10.0.1.1";
         }},
        {"rx_prio3_bytes = 4096 bytes",
         [](Port& p) {
             p.normalized.push_back(normalized("priority_bytes", "rx_prio3_bytes", "bytes", 4096u));
         }},
        {"link_down_events_phy = 3 events",
         [](Port& p) {
             p.normalized.push_back(
                 normalized("link_down_events", "link_down_events_phy", "events", 3u));
         }},
    };
    for (const Case& c : cases) {
        BOOST_TEST_CONTEXT(c.sign) {
            Port p = unused_port();
            c.apply(p);
            const auto u = judge_port_usage(mlx5_1(), p, {});
            BOOST_TEST(!u.never_cabled);
            BOOST_TEST(std::any_of(u.in_use_signs.begin(), u.in_use_signs.end(),
                                   [&](const std::string& s) { return contains(s, c.sign); }));
            const auto f = only(run(host_with(p)), "port_not_active");
            BOOST_TEST_REQUIRE(f.size() == 1u);
            BOOST_TEST(contains(f[0].summary, "although it was in use"));
        }
    }
}

BOOST_AUTO_TEST_CASE(a_port_with_its_cable_in_is_never_taken_as_uncabled) {
    Port p = unused_port();
    p.phys_state_code = 5;  // LinkUp but not ACTIVE: the cable is there
    p.phys_state = "LinkUp";
    BOOST_TEST(!judge_port_usage(mlx5_1(), p, {}).never_cabled);
    BOOST_TEST(only(run(host_with(p)), "port_not_active").size() == 1u);
}

BOOST_AUTO_TEST_CASE(a_required_port_that_is_down_is_an_error_whatever_its_history) {
    for (const std::string entry : {"mlx5_1/1", "ens1f1np1"}) {
        BOOST_TEST_CONTEXT(entry) {
            const auto out = run(host_with(unused_port()), {entry});
            const auto f = only(out, "port_not_active");
            BOOST_TEST_REQUIRE(f.size() == 1u);
            BOOST_TEST(f[0].severity == Severity::error);
            BOOST_TEST(contains(f[0].summary, "although it is a required port"));
            BOOST_TEST(out.notes.empty());
            // Required ports are judged whole: the MTU of a port that must carry RoCE counts.
            BOOST_TEST(only(out, "roce_mtu").size() == 1u);
        }
    }
    // Another port required changes nothing; a required port that is not there is named.
    auto out = run(host_with(unused_port()), {"mlx5_1/2"});
    BOOST_TEST(out.findings.empty());
    BOOST_TEST_REQUIRE(out.unevaluated.size() == 1u);
    BOOST_TEST(out.unevaluated[0].subject == "required port mlx5_1/2");
}

BOOST_AUTO_TEST_CASE(required_port_entries_are_checked) {
    BOOST_TEST(check_required_port("mlx5_0/1").empty());
    BOOST_TEST(check_required_port("ens1f1np1").empty());
    BOOST_TEST(check_required_port("mlx5_0/255").empty());
    for (const char* bad :
         {"", "mlx5_0/", "/1", "mlx5_0/0", "mlx5_0/256", "mlx5_0/x", "a b", "averylongnetdevname0"})
        BOOST_TEST_CONTEXT(bad) {
            BOOST_TEST(!check_required_port(bad).empty());
        }
}

BOOST_AUTO_TEST_CASE(no_gid_table_in_the_capture_cannot_evaluate_the_gid_rule) {
    Port p = unused_port();
    p.state_code = 4;
    p.state = "ACTIVE";
    p.phys_state_code = 5;
    p.phys_state = "LinkUp";
    p.gids.clear();
    p.gids_unavailable = "no GID table in the capture (ibv_devinfo without -v)";
    const auto out = run(host_with(p));
    BOOST_TEST(only(out, "no_roce_v2_gid").empty());
    const bool said =
        std::any_of(out.unevaluated.begin(), out.unevaluated.end(),
                    [](const Note& n) { return contains(n.text, "ibv_devinfo without -v"); });
    BOOST_TEST(said);
}

BOOST_AUTO_TEST_CASE(inventory_evidence_reads_with_units_and_state_names) {
    Port p = unused_port();
    p.counters[0].value = 1000u;  // was in use
    p.netdev->source = "/home/user/fixture/sys/devices/pci0000:00/net/ens1f1np1";
    Snapshot s = host_with(p);
    s.sysfs_root = "/home/user/fixture/sys";
    const auto out = run(s);
    const auto down = only(out, "port_not_active");
    BOOST_TEST_REQUIRE(down.size() == 1u);
    BOOST_TEST(down[0].evidence[0].value == "1 (DOWN)");
    BOOST_TEST(down[0].evidence[1].value == "3 (Disabled)");
    for (const Evidence& e : down[0].evidence) BOOST_TEST(!contains(e.source, "/home/user"));
    BOOST_TEST(down[0].evidence[0].source == ".../class/infiniband/mlx5_1/ports/1/state");
    const auto mtu = only(out, "roce_mtu");
    BOOST_TEST_REQUIRE(mtu.size() == 1u);
    BOOST_TEST(mtu[0].evidence[0].name == "ens1f1np1 MTU");
    BOOST_TEST(mtu[0].evidence[0].value == "1500 bytes");
    BOOST_TEST(mtu[0].evidence[0].source == ".../devices/pci0000:00/net/ens1f1np1/mtu");
    BOOST_TEST(mtu[0].evidence[1].value == "1024 bytes");
}

BOOST_AUTO_TEST_CASE(evidence_values_say_their_units) {
    BOOST_TEST(format_gbps(100) == "100 Gb/s");
    BOOST_TEST(format_gbps(2.5) == "2.5 Gb/s");
    BOOST_TEST(format_port_state(4) == "4 (ACTIVE)");
    BOOST_TEST(format_port_state(1) == "1 (DOWN)");
    BOOST_TEST(format_port_state(9) == "9 (unknown state)");
    BOOST_TEST(format_phys_state(5) == "5 (LinkUp)");
    BOOST_TEST(format_bytes(4096) == "4096 bytes");
    BOOST_TEST(format_bytes(9000) == "9000 bytes");
    BOOST_TEST(format_us(335.5) == "335.5 us");
    BOOST_TEST(format_count(1532, "frames") == "1532 frames");
    BOOST_TEST(format_count(1, "events") == "1 event");
    BOOST_TEST(format_value(0, "bool") == "off");
    BOOST_TEST(format_value(1, "bool") == "on");
    BOOST_TEST(format_value(4, "state") == "4 (ACTIVE)");
    BOOST_TEST(format_value(100, "Gb/s") == "100 Gb/s");
    BOOST_TEST(format_value(4096, "bytes") == "4096 bytes");
    BOOST_TEST(format_value(4, "lanes") == "4 lanes");
    BOOST_TEST(series_display_name("pfc_enabled", {{"device", "mlx5_0"}, {"priority", "3"}}) ==
               "PFC on priority 3");
    BOOST_TEST(series_display_name("port_state_code", {{"device", "mlx5_0"}}) == "port state");
    BOOST_TEST(series_display_name("port_rate_gbps", {}) == "port rate");
    BOOST_TEST(series_display_name("pfc_pause_frames",
                                   {{"port", "1"}, {"priority", "3"}, {"direction", "rx"}}) ==
               "pfc_pause_frames (rx, priority 3)");
    // A bare number gets its unit; a value that has one keeps it once.
    BOOST_TEST(evidence_text("100", "Gb/s") == "100 Gb/s");
    BOOST_TEST(evidence_text("4096 bytes", "bytes") == "4096 bytes");
    BOOST_TEST(evidence_text("63% of the time", "") == "63% of the time");
    BOOST_TEST(evidence_text("DOWN", "") == "DOWN");
    BOOST_TEST(cite_sysfs("/sys", "/sys/class/net/eth0/mtu") == "/sys/class/net/eth0/mtu");
    BOOST_TEST(cite_sysfs("/tmp/x/sys/", "/tmp/x/sys/class/net/eth0/mtu") ==
               ".../class/net/eth0/mtu");
    BOOST_TEST(cite_sysfs("/tmp/x/sys", "/tmp/x/system") == "/tmp/x/system");
}

// The engine (diagnose, the agent) judges ports from the stored inventory, which keeps no
// counters: the store's traffic series must make a used port count as used, and a never-cabled
// port must not make link_flap's "state != ACTIVE" fire.
BOOST_AUTO_TEST_CASE(engine_notes_the_unused_port_and_link_flap_stays_silent) {
    const auto rules = load_rules_file(default_rules_path());
    BOOST_TEST_REQUIRE(static_cast<bool>(rules));
    for (const bool used : {false, true}) {
        BOOST_TEST_CONTEXT(used) {
            Port p = unused_port();
            if (used)
                p.normalized.push_back(
                    normalized("port_xmit_data_bytes", "port_xmit_data", "bytes", 208475320068u));
            // A fixture tree given as --sysfs-root: sources are cited relative to it.
            p.netdev->source = "/home/user/fx/sys/devices/pci0000:00/net/ens1f1np1";
            p.netdev->carrier_changes = used ? 4u : 1u;
            Snapshot s = host_with(p);
            s.sysfs_root = "/home/user/fx/sys";
            SeriesStore store;
            for (double t : {0.0, 30.0, 60.0})
                for (const Sample& x : samples_from_snapshot(s, SampleTime{t, 0}, t == 0))
                    store.add(x);
            const EngineResult r = run_rules(store, *rules);
            const auto fired = [&](const char* id) {
                return std::any_of(r.findings.begin(), r.findings.end(),
                                   [&](const Finding& f) { return f.rule_id == id; });
            };
            BOOST_TEST(fired("port_not_active") == used);
            // Down at every pass: no change of state in the data, so no flap (used or not).
            BOOST_TEST(!fired("link_flap"));
            BOOST_TEST(fired("roce_mtu") == used);
            const bool noted = std::any_of(r.notes.begin(), r.notes.end(), [](const Note& n) {
                return contains(n.text, "taken as not cabled");
            });
            BOOST_TEST(noted == !used);
            for (const Finding& f : r.findings)
                for (const Evidence& e : f.evidence)
                    BOOST_TEST(!contains(e.source, "/home/user"), f.rule_id << ": " << e.source);
            EngineOptions required;
            required.required_ports = {"mlx5_1/1"};
            const EngineResult rr = run_rules(store, *rules, required);
            BOOST_TEST(std::any_of(rr.findings.begin(), rr.findings.end(), [](const Finding& f) {
                return f.rule_id == "port_not_active";
            }));
        }
    }
}

// A flap is a change of state within the data: a used port that is down at every pass is
// port_not_active only; up -> down, down -> up and up -> down -> up are link_flap, with the
// state it was down in as evidence. carrier_changes stays flat, so the state alone decides.
BOOST_AUTO_TEST_CASE(link_flap_needs_a_change_of_state_within_the_data) {
    const auto rules = load_rules_file(default_rules_path());
    BOOST_TEST_REQUIRE(static_cast<bool>(rules));
    struct Case {
        const char* what;
        std::vector<bool> up;  // per pass, 30 s apart
        bool flap;
    };
    const Case cases[] = {{"down throughout", {false, false, false, false}, false},
                          {"up throughout", {true, true, true, true}, false},
                          {"up, then down to the end", {true, true, false, false}, true},
                          {"down, then up to the end", {false, false, true, true}, true},
                          {"up, down, up", {true, false, false, true}, true},
                          {"down only at the first pass", {false, true, true, true}, true}};
    for (const Case& c : cases) {
        BOOST_TEST_CONTEXT(c.what) {
            SeriesStore store;
            for (std::size_t i = 0; i < c.up.size(); ++i) {
                Port p = unused_port();
                p.normalized.push_back(
                    normalized("port_xmit_data_bytes", "port_xmit_data", "bytes", 208475320068u));
                p.netdev->carrier_changes = 4u;
                if (c.up[i]) {
                    p.state_code = kIbPortActive;
                    p.state = "ACTIVE";
                    p.phys_state_code = kPhysLinkUp;
                    p.phys_state = "LinkUp";
                }
                const double t = 30.0 * static_cast<double>(i);
                for (const Sample& x : samples_from_snapshot(host_with(p), SampleTime{t, 0}, true))
                    store.add(x);
            }
            const EngineResult r = run_rules(store, *rules);
            const auto of = [&](const char* id) {
                std::vector<Finding> f;
                for (const Finding& x : r.findings)
                    if (x.rule_id == id) f.push_back(x);
                return f;
            };
            const auto flaps = of("link_flap");
            BOOST_TEST(flaps.size() == (c.flap ? 1u : 0u));
            for (const Finding& f : flaps)
                for (const Evidence& e : f.evidence)
                    if (e.name == "port state") BOOST_TEST(e.value == "1 (DOWN)");
            BOOST_TEST(of("port_not_active").size() == (c.up.back() ? 0u : 1u));
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()  // test_port_usage

// Rules on hand-built inventories: each test states what an operator would expect to read.
#include <boost/test/unit_test.hpp>

#include "../support/shipped_rules.h"
#include "rules/engine/checks.h"
#include "rules/mtu_math.h"
#include "rules/pcie_math.h"
#include "rules/rule.h"

BOOST_AUTO_TEST_SUITE(test_rules)

using namespace rh;

namespace {

PcieLink link(std::string bdf, bool fn, double cur_s, unsigned cur_w, double max_s,
              unsigned max_w) {
    PcieLink l;
    l.bdf = bdf;
    l.sysfs_path = "devices/pci0000:00/" + bdf;
    l.is_function = fn;
    l.current_speed_gts = cur_s;
    l.current_width = cur_w;
    l.max_speed_gts = max_s;
    l.max_width = max_w;
    return l;
}

Port roce_port(unsigned netdev_mtu, std::optional<unsigned> active = {}) {
    Port p;
    p.number = 1;
    p.state_code = 4;
    p.state = "ACTIVE";
    p.phys_state_code = 5;
    p.phys_state = "LinkUp";
    p.rate = "100 Gb/sec (2X HDR)";
    p.link_layer = "Ethernet";
    p.gids = {{0, "fe80:0000:0000:0000:0e42:a1ff:fe65:4e9a", "IB/RoCE v1", "eth0"},
              {1, "fe80:0000:0000:0000:0e42:a1ff:fe65:4e9a", "RoCE v2", "eth0"},
              {3, "0000:0000:0000:0000:0000:ffff:0a00:0001", "RoCE v2", "eth0"}};
    p.netdev_name = "eth0";
    Netdev n;
    n.name = "eth0";
    n.source = "rtnetlink";
    n.mtu_bytes = netdev_mtu;
    n.operstate = "up";
    p.netdev = n;
    p.verbs.active_mtu_bytes = active;
    if (active)
        p.verbs.max_mtu_bytes = 4096;
    else
        p.verbs.unavailable = "no verbs device: sysfs root is a fixture";
    return p;
}

Snapshot host_with(Device d) {
    Snapshot s;
    s.host = "hostA";
    s.sysfs_root = "/sys";
    s.devices.push_back(std::move(d));
    return s;
}

Device mlx5(std::vector<PcieLink> chain, Port p) {
    Device d;
    d.name = "mlx5_0";
    d.pcie = std::move(chain);
    d.ports.push_back(std::move(p));
    return d;
}

std::vector<Finding> run(const Snapshot& s, std::optional<PeerView> peer = {}) {
    return run_host_checks(test::shipped_rules(), RuleInput{s, std::move(peer), {}}).findings;
}

std::vector<Finding> only(const std::vector<Finding>& fs, const std::string& id) {
    std::vector<Finding> out;
    for (const auto& f : fs)
        if (f.rule_id == id) out.push_back(f);
    return out;
}

bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_CASE(healthy_host_has_no_findings) {
    auto s = host_with(mlx5(
        {link("0000:3b:00.0", true, 16, 16, 16, 16), link("0000:00:01.0", false, 16, 16, 16, 16)},
        roce_port(9000, 4096)));
    BOOST_TEST(run(s).empty());
}

BOOST_AUTO_TEST_CASE(nic_at_x8_of_x16_names_the_function) {
    auto s = host_with(mlx5(
        {link("0000:3b:00.0", true, 16, 8, 16, 16), link("0000:00:01.0", false, 16, 16, 16, 16)},
        roce_port(9000, 4096)));
    auto f = only(run(s), "pcie_downtrained");
    BOOST_TEST_REQUIRE(f.size() == 1u);
    BOOST_TEST(contains(f[0].summary, "0000:3b:00.0"));
    BOOST_TEST(contains(f[0].summary, "x8 of 16 GT/s x16"));
    BOOST_TEST(contains(f[0].summary, "below the 16 GT/s x16 both ends support"));
    BOOST_TEST(contains(f[0].summary, "still above the 100 Gb/s the card's ports need"));
    // Gen4 x8 carries ~126 Gb/s: more than a 100 Gb/s port, so a warning, not an error.
    BOOST_TEST(f[0].severity == Severity::warning);
    BOOST_TEST(f[0].evidence.size() == 3u);  // two links and the ports' need
}

// Issue 26: an x8 card in an x16 slot trains at x8, the most the card can do: healthy, live
// (untyped sysfs chain) and from lspci (typed) alike.
BOOST_AUTO_TEST_CASE(x8_card_in_x16_slot_is_healthy) {
    auto p = roce_port(9000, 4096);
    p.rate = "25 Gb/sec (1X EDR)";
    for (const bool typed : {false, true}) {
        BOOST_TEST_CONTEXT("typed " << typed) {
            PcieLink fn = link("0000:3b:00.0", true, 8, 8, 8, 8);
            PcieLink root = link("0000:00:01.0", false, 8, 8, 8, 16);
            if (typed) fn.port_type = "Endpoint", root.port_type = "Root Port";
            auto s = host_with(mlx5({fn, root}, p));
            BOOST_TEST(only(run(s), "pcie_downtrained").empty());
        }
    }
}

/// Two devices, one per function of card 0000:b3:00, each with one port of `rate`.
Snapshot two_function_card(std::vector<PcieLink> chain, const std::string& rate) {
    auto p = roce_port(9000, 4096);
    p.rate = rate;
    Device a = mlx5(chain, p), b = mlx5(chain, p);
    b.name = "mlx5_1";
    b.pcie.front().bdf = "0000:b3:00.1";
    Snapshot s = host_with(a);
    s.devices.push_back(b);
    return s;
}

// The card's ports share its link: 2 x 100 Gb/s need 200 Gb/s, more than a Gen4 x8 slot's
// ~126, although one port alone would fit. The slot (root port LnkCap x8) limits.
BOOST_AUTO_TEST_CASE(need_is_the_sum_of_every_port_of_the_card) {
    const std::vector<PcieLink> chain = {link("0000:b3:00.0", true, 16, 8, 16, 16),
                                         link("0000:b2:00.0", false, 16, 8, 16, 8)};
    auto one = host_with(mlx5(chain, roce_port(9000, 4096)));
    BOOST_TEST(only(run(one), "pcie_downtrained").empty());
    auto f = only(run(two_function_card(chain, "100 Gb/sec (2X HDR)")), "pcie_downtrained");
    BOOST_TEST_REQUIRE(f.size() == 2u);  // one per device of the card
    BOOST_TEST(f[0].severity == Severity::error);
    BOOST_TEST(contains(f[0].summary, "below the 200 Gb/s the card's ports need"));
    BOOST_TEST(contains(f[0].summary, "mlx5_1 port 1 100 Gb/s"));
    BOOST_TEST(contains(f[0].summary, "The slot limits"), f[0].summary);
    BOOST_TEST(!contains(f[0].summary, "Reseat the card"));
    // 2 x 25 Gb/s on a Gen3 x8 link (~63 Gb/s): enough, whatever the slot's width.
    const std::vector<PcieLink> gen3 = {link("0000:b3:00.0", true, 8, 8, 8, 8),
                                        link("0000:b2:00.0", false, 8, 8, 8, 16)};
    BOOST_TEST(
        only(run(two_function_card(gen3, "25 Gb/sec (1X EDR)")), "pcie_downtrained").empty());
}

// A root port whose LnkCtl2 Target Link Speed is 8 GT/s trains no faster, whatever its LnkCap:
// a 16 GT/s card on it at 8 GT/s is not downtrained; it only matters if the ports need more.
BOOST_AUTO_TEST_CASE(target_link_speed_caps_the_port) {
    PcieLink root = link("0000:00:01.0", false, 8, 16, 16, 16);
    root.port_type = "Root Port";
    PcieLink fn = link("0000:3b:00.0", true, 8, 16, 16, 16);
    fn.port_type = "Endpoint";
    auto f = only(run(host_with(mlx5({fn, root}, roce_port(9000, 4096)))), "pcie_downtrained");
    BOOST_TEST_REQUIRE(f.size() == 1u);  // without the cap: trained below both ends
    BOOST_TEST(contains(f[0].summary, "below the 16 GT/s x16 both ends support"));
    root.target_speed_gts = 8;
    BOOST_TEST(
        only(run(host_with(mlx5({fn, root}, roce_port(9000, 4096)))), "pcie_downtrained").empty());
}

// The kernel's "limited by 8 GT/s x8 link at 0000:b2:00.0" names a port whose LnkCap the
// capture does not show: short of the ports' need (an error at that port), but not called a
// training fault: the x8 may be the slot's wiring.
BOOST_AUTO_TEST_CASE(limit_with_one_end_unknown_is_not_called_downtraining) {
    PcieLink fn = link("0000:b3:00.0", true, 16, 16, 16, 16);
    fn.current_speed_gts.reset();
    fn.current_width.reset();
    PcieLink port = link("0000:b2:00.0", false, 8, 8, 8, 8);
    port.max_speed_gts.reset();
    port.max_width.reset();
    auto f = only(run(two_function_card({fn, port}, "100 Gb/sec (2X HDR)")), "pcie_downtrained");
    BOOST_TEST_REQUIRE(f.size() == 2u);
    BOOST_TEST(f[0].severity == Severity::error);
    BOOST_TEST(contains(f[0].summary, "0000:b2:00.0"));
    BOOST_TEST(contains(f[0].summary, "cannot be told apart"));
    BOOST_TEST(!contains(f[0].summary, "both ends support"));
}

BOOST_AUTO_TEST_CASE(downtrained_bridge_below_port_rate_is_an_error_naming_the_bridge) {
    auto p = roce_port(9000, 4096);
    p.rate = "200 Gb/sec (4X HDR)";
    auto s = host_with(mlx5(
        {link("0000:3b:00.0", true, 16, 16, 16, 16), link("0000:3a:00.0", false, 8, 16, 16, 16),
         link("0000:00:01.0", false, 16, 16, 16, 16)},
        p));
    auto f = only(run(s), "pcie_downtrained");
    BOOST_TEST_REQUIRE(f.size() == 1u);
    BOOST_TEST(contains(f[0].summary, "upstream port 0000:3a:00.0"));
    BOOST_TEST(f[0].severity == Severity::error);  // 8 GT/s x16 = 126 Gb/s < 200 Gb/s
}

// The rules file is the one source of a check's severity: the same PCIe finding follows the
// rule's `severity` and `escalate` as a user edits them.
BOOST_AUTO_TEST_CASE(check_severity_follows_the_rules_file) {
    auto p = roce_port(9000, 4096);
    p.rate = "200 Gb/sec (4X HDR)";
    const auto below = host_with(mlx5(
        {link("0000:3b:00.0", true, 16, 16, 16, 16), link("0000:3a:00.0", false, 8, 16, 16, 16),
         link("0000:00:01.0", false, 16, 16, 16, 16)},
        p));
    const auto headroom = host_with(mlx5(
        {link("0000:3b:00.0", true, 16, 8, 16, 16), link("0000:00:01.0", false, 16, 16, 16, 16)},
        roce_port(9000, 4096)));
    RuleSet rules = test::shipped_rules();
    RuleSpec* pcie = nullptr;
    for (auto& r : rules.rules)
        if (r.id == "pcie_downtrained") pcie = &r;
    BOOST_TEST_REQUIRE(pcie != nullptr);
    const auto severity_of = [&](const Snapshot& s) {
        const auto f = only(run_host_checks(rules, RuleInput{s, std::nullopt, {}}).findings,
                            "pcie_downtrained");
        BOOST_TEST_REQUIRE(f.size() == 1u);
        return f[0].severity;
    };
    pcie->severity = Severity::info;
    BOOST_TEST(severity_of(headroom) == Severity::info);
    BOOST_TEST(severity_of(below) == Severity::error);  // the shipped escalation
    pcie->escalate.clear();
    BOOST_TEST(severity_of(below) == Severity::info);
    // A rules file without the check does not run it.
    std::erase_if(rules.rules, [](const RuleSpec& r) { return r.id == "pcie_downtrained"; });
    const auto out = run_host_checks(rules, RuleInput{below, std::nullopt, {}});
    BOOST_TEST(only(out.findings, "pcie_downtrained").empty());
    BOOST_TEST(std::count(out.rules.begin(), out.rules.end(), "pcie_downtrained") == 0);
}

BOOST_AUTO_TEST_CASE(unknown_link_values_are_not_evidence_of_downtraining) {
    PcieLink l = link("0000:3b:00.0", true, 16, 16, 16, 16);
    l.max_width.reset();
    l.current_speed_gts.reset();
    auto s = host_with(mlx5({l}, roce_port(9000, 4096)));
    BOOST_TEST(only(run(s), "pcie_downtrained").empty());
}

// InfiniBand: the link trained (LinkUp) but the port stays INIT: no subnet manager.
BOOST_AUTO_TEST_CASE(ib_port_stuck_at_init_names_the_subnet_manager) {
    Port p = roce_port(9000, 4096);
    p.link_layer = "InfiniBand";
    p.state_code = 2;
    p.state = "INIT";
    auto f = only(run(host_with(mlx5({}, p))), "port_not_active");
    BOOST_TEST_REQUIRE(f.size() == 1u);
    BOOST_TEST(contains(f[0].summary, "no subnet manager"));
    // Polling: enabled but never trained, a cable/optic/peer question, not the SM.
    p.state_code = 1;
    p.state = "DOWN";
    p.phys_state_code = 2;
    p.phys_state = "Polling";
    f = only(run(host_with(mlx5({}, p))), "port_not_active");
    BOOST_TEST_REQUIRE(f.size() == 1u);
    BOOST_TEST(!contains(f[0].summary, "subnet manager"));
    BOOST_TEST(contains(f[0].summary, "Polling, not trained"));
}

BOOST_AUTO_TEST_CASE(netdev_mtu_1500_limits_roce_mtu_to_1024) {
    auto s = host_with(mlx5({}, roce_port(1500, 1024)));
    auto f = only(run(s), "roce_mtu");
    BOOST_TEST_REQUIRE(f.size() == 1u);
    BOOST_TEST(contains(f[0].summary, "1024"));
    BOOST_TEST(contains(f[0].summary, "eth0 MTU is 1500"));
    BOOST_TEST(contains(f[0].summary, "4192"));
}

BOOST_AUTO_TEST_CASE(without_verbs_the_netdev_mtu_still_tells_the_roce_mtu) {
    auto s = host_with(mlx5({}, roce_port(1500)));
    auto f = only(run(s), "roce_mtu");
    BOOST_TEST_REQUIRE(f.size() == 1u);
    bool derived = false;
    for (const auto& e : f[0].evidence) derived = derived || contains(e.source, "derived");
    BOOST_TEST(derived);
}

BOOST_AUTO_TEST_CASE(peer_with_other_active_mtu_names_both_values) {
    auto s = host_with(mlx5({}, roce_port(9000, 4096)));
    PeerView peer{"10.99.0.11:18520", "g1", "rxe0", 1, 1024u};
    auto f = only(run(s, peer), "roce_mtu");
    BOOST_TEST_REQUIRE(f.size() == 1u);
    BOOST_TEST(contains(f[0].summary, "4096"));
    BOOST_TEST(contains(f[0].summary, "1024"));
    BOOST_TEST(contains(f[0].summary, "g1"));
    PeerView same{"10.99.0.11:18520", "g1", "rxe0", 1, 4096u};
    BOOST_TEST(only(run(s, same), "roce_mtu").empty());
}

BOOST_AUTO_TEST_CASE(port_down_is_an_error_and_unknown_state_is_not) {
    auto p = roce_port(9000, 4096);
    p.state_code = 1;
    p.state = "DOWN";
    p.phys_state_code = 3;
    p.phys_state = "Disabled";
    auto f = only(run(host_with(mlx5({}, p))), "port_not_active");
    BOOST_TEST_REQUIRE(f.size() == 1u);
    BOOST_TEST(f[0].severity == Severity::error);
    BOOST_TEST(contains(f[0].summary, "DOWN/Disabled"));

    p.state_code.reset();
    p.phys_state_code.reset();
    BOOST_TEST(only(run(host_with(mlx5({}, p))), "port_not_active").empty());
}

BOOST_AUTO_TEST_CASE(ethernet_port_with_only_roce_v1_gids) {
    auto p = roce_port(9000, 4096);
    p.gids = {{0, "fe80::1", "IB/RoCE v1", "eth0"}};
    auto f = only(run(host_with(mlx5({}, p))), "no_roce_v2_gid");
    BOOST_TEST_REQUIRE(f.size() == 1u);
    BOOST_TEST(contains(f[0].evidence[1].value, "0=IB/RoCE v1"));
    // A netdev without an IP address keeps only the link-local v2 GID: not routable either.
    p.gids = {{0, "fe80:0000:0000:0000:5054:00ff:fe99:0002", "RoCE v2", "eth0"}};
    f = only(run(host_with(mlx5({}, p))), "no_roce_v2_gid");
    BOOST_TEST_REQUIRE(f.size() == 1u);
    BOOST_TEST(contains(f[0].summary, "no routable RoCE v2 GID"));
    p.link_layer = "InfiniBand";  // IB ports have no RoCE GIDs by design
    BOOST_TEST(only(run(host_with(mlx5({}, p))), "no_roce_v2_gid").empty());
}

BOOST_AUTO_TEST_CASE(mtu_math_matches_the_kernel_table) {
    BOOST_TEST(*ib_mtu_for_netdev_mtu(1500) == 1024u);
    BOOST_TEST(*ib_mtu_for_netdev_mtu(2200) == 2048u);
    BOOST_TEST(*ib_mtu_for_netdev_mtu(4191) == 2048u);
    BOOST_TEST(*ib_mtu_for_netdev_mtu(4192) == 4096u);
    BOOST_TEST(*ib_mtu_for_netdev_mtu(9000) == 4096u);
    BOOST_TEST(!ib_mtu_for_netdev_mtu(300).has_value());
}

BOOST_AUTO_TEST_CASE(pcie_math) {
    BOOST_TEST(pcie_link_gbps(16, 8) == 16 * 8 * 128.0 / 130.0);
    BOOST_TEST(pcie_link_gbps(5, 8) == 32.0);
    BOOST_TEST(*parse_port_rate_gbps("100 Gb/sec (4X EDR)") == 100.0);
    BOOST_TEST(*parse_port_rate_gbps("2.5 Gb/sec (1X SDR)") == 2.5);
    BOOST_TEST(!parse_port_rate_gbps("").has_value());
    // Not finite, or no port's: refused, so no share of link divides by them.
    for (const char* bad :
         {"inf Gb/sec", "nan Gb/sec", "1E6666Gb/sec", "-100 Gb/sec", "100000 Gb/sec"})
        BOOST_TEST(!parse_port_rate_gbps(bad).has_value(), bad);
    BOOST_TEST(!parse_port_rate_gbps("fast").has_value());
}

BOOST_AUTO_TEST_CASE(port_already_at_its_best_mtu_is_not_a_finding) {
    // rxe subtracts 80 header bytes: MTU 4180 already gives active_mtu 4096.
    auto s = host_with(mlx5({}, roce_port(4180, 4096)));
    BOOST_TEST(only(run(s), "roce_mtu").empty());
}

BOOST_AUTO_TEST_CASE(netdev_mtu_too_small_for_any_roce_packet) {
    auto s = host_with(mlx5({}, roce_port(300)));
    auto f = only(run(s), "roce_mtu");
    BOOST_TEST_REQUIRE(f.size() == 1u);
    BOOST_TEST(f[0].severity == Severity::error);
    BOOST_TEST(contains(f[0].summary, "too small for any RoCE packet"));
    BOOST_TEST(!contains(f[0].summary, "none"));
}

BOOST_AUTO_TEST_CASE(what_cannot_be_read_is_unevaluated_not_healthy) {
    auto p = roce_port(9000, 4096);
    p.state_code.reset();
    p.state.clear();
    p.netdev->mtu_bytes.reset();
    PcieLink l = link("0000:3b:00.0", true, 16, 16, 16, 16);
    l.current_speed_gts.reset();  // "Unknown": link down or device powered off
    Device no_ports;
    no_ports.name = "irdma0";
    auto s = host_with(mlx5({l}, p));
    s.devices.push_back(no_ports);
    auto out = run_host_checks(test::shipped_rules(), RuleInput{s, std::nullopt, {}});
    BOOST_TEST(out.findings.empty());
    std::string all;
    for (const auto& n : out.unevaluated) all += n.subject + ": " + n.text + "\n";
    BOOST_TEST(contains(all, "mlx5_0 port 1: cannot tell whether the port is ACTIVE/LinkUp"), all);
    BOOST_TEST(contains(all, "netdev MTU unknown"), all);
    BOOST_TEST(contains(all, "mlx5_0 PCIe 0000:3b:00.0: link speed/width unknown"), all);
    BOOST_TEST(contains(all, "irdma0: no readable port"), all);
}

// A sysfs tree copied with `cp -rL` keeps the function's folder, not the ports above it: the
// function alone cannot tell a narrow slot from a downtrained link, at x8 or at x16. Not
// evaluated, never healthy (found by a new user: `check --sysfs-root` on such a copy said
// healthy).
BOOST_AUTO_TEST_CASE(function_without_its_upstream_ports_is_unevaluated) {
    for (const unsigned width : {8u, 16u}) {
        BOOST_TEST_CONTEXT("x" << width) {
            PcieLink fn = link("0000:3b:00.0", true, 16, 16, width, 16);
            fn.upstream_unread = "device is a folder (cp -L?): the ports above were not read";
            auto out = run_host_checks(
                test::shipped_rules(),
                RuleInput{host_with(mlx5({fn}, roce_port(9000, 4096))), std::nullopt, {}});
            BOOST_TEST(only(out.findings, "pcie_downtrained").empty());
            std::string all;
            for (const auto& n : out.unevaluated) all += n.subject + ": " + n.text + "\n";
            BOOST_TEST(contains(all, "mlx5_0 PCIe 0000:3b:00.0: device is a folder"), all);
            BOOST_TEST(contains(all, "whether a link above the NIC limits it is unknown"), all);
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()  // test_rules

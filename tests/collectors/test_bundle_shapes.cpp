#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "../support/shipped_rules.h"
#include "collectors/bundle/bundle.h"
#include "collectors/bundle/bundle_model.h"
#include "rules/engine/checks.h"
#include "rules/rule.h"
#include "tests/support/bundle_support.h"
#include "tests/support/test_support.h"

BOOST_AUTO_TEST_SUITE(test_bundle_shapes)

// Bundle import on small inline captures shaped like what operators paste (issue 12 classes 4,
// 6, 8 and 11): port <-> netdev <-> PCI function by content, PCIe chains from lspci -vv alone,
// header-less / CRLF / prompt-prefixed pastes, and sources as "<capture>/<file>:<line>".
// Uses the pure entry point import_bundle_files (no file system).

namespace {

using rh::test::all_notes;
using rh::test::ethtool_stat;
using rh::test::Files;

using rh::test::device;
using rh::test::import;
using rh::test::port1;

/// ibv_devinfo of one device with one Ethernet port; with `verbose`, -v lines and the GID
/// table (link-local GID from `eui` = the EUI-64 groups, e.g. "0e42:a1ff:fe65:8a2e").
std::string devinfo(const std::string& dev, const std::string& eui, bool verbose,
                    const std::string& speed = "25.0 Gbps (32)") {
    std::string s = "hca_id:\t" + dev +
                    "\n\ttransport:\t\t\tInfiniBand (0)\n\tfw_ver:\t\t\t\t22.32.2004\n"
                    "\tnode_guid:\t\t\t0c42:a103:0065:8a2e\n\t\tport:\t1\n"
                    "\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n\t\t\tmax_mtu:\t\t4096 (5)\n"
                    "\t\t\tactive_mtu:\t\t4096 (5)\n\t\t\tlink_layer:\t\tEthernet\n";
    if (verbose)
        s += "\t\t\tactive_width:\t\t4X (2)\n\t\t\tactive_speed:\t\t" + speed +
             "\n\t\t\tphys_state:\t\tLINK_UP (5)\n\t\t\tGID[  0]:\t\tfe80:0000:0000:0000:" + eui +
             ", RoCE v1\n\t\t\tGID[  1]:\t\tfe80::" + eui + ", RoCE v2\n";
    return s + "\n";
}

std::string ip_link_entry(int idx, const std::string& name, const std::string& mac,
                          const std::string& parentdev, const std::string& altname = {},
                          unsigned mtu = 9000) {
    std::string s = std::to_string(idx) + ": " + name + ": <BROADCAST,MULTICAST,UP,LOWER_UP> mtu " +
                    std::to_string(mtu) +
                    " qdisc mq state UP mode DEFAULT group default qlen 1000\n    link/ether " +
                    mac + " brd ff:ff:ff:ff:ff:ff promiscuity 0 minmtu 68 maxmtu 9978";
    if (!parentdev.empty()) s += " parentbus pci parentdev " + parentdev;
    s += "\n";
    if (!altname.empty()) s += "    altname " + altname + "\n";
    return s;
}

const std::string kLo =
    "1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN mode DEFAULT\n"
    "    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00 promiscuity 0\n";

/// One `lspci -vv` block. `type` the Express port type, `bus` "primary=..., secondary=..."
/// for bridges, "" for functions.
std::string lspci_block(const std::string& bdf, const std::string& cls, const std::string& desc,
                        const std::string& type, const std::string& cap, const std::string& sta,
                        const std::string& bus = {}) {
    std::string s = bdf + " " + cls + ": " + desc + "\n\tControl: I/O- Mem+ BusMaster+\n";
    if (!bus.empty()) s += "\tBus: " + bus + ", sec-latency=0\n";
    s += "\tCapabilities: [60] Express (v2) " + type + ", MSI 00\n\t\tLnkCap:\tPort #0, " + cap +
         ", ASPM not supported\n\t\tLnkSta:\t" + sta + "\n\n";
    return s;
}

const std::string kCx7 = "Mellanox Technologies MT2910 Family [ConnectX-7]";

rh::RuleOutput run_rules(const rh::BundleCapture& c) {
    const rh::RuleInput in{c.snapshot, std::nullopt, {}};
    return rh::run_host_checks(rh::test::shipped_rules(), in);
}

const rh::Finding* pcie_finding(const rh::RuleOutput& out, const std::string& dev) {
    for (const auto& f : out.findings)
        if (f.rule_id == "pcie_downtrained" && f.device == dev) return &f;
    return nullptr;
}

bool has(const std::string& s, const std::string& what) {
    return s.find(what) != std::string::npos;
}

}  // namespace

// --- class 4: port <-> netdev <-> PCI function by content ----------------------------------

BOOST_AUTO_TEST_CASE(management_nic_beside_the_roce_nic_gid_mac_decides) {
    // eno1 (management) and the RoCE netdev; nothing but the GID's MAC ties mlx5_0 to its
    // netdev (no parentdev on it), and the ethtool -S file name names no interface.
    const auto c = import({
        {"devinfo.txt", devinfo("mlx5_0", "0e42:a1ff:fe65:8a2e", true)},
        {"ip.txt",
         kLo + ip_link_entry(2, "eno1", "ac:1f:6b:4a:10:02", "0000:18:00.0", "enp24s0f0", 1500) +
             ip_link_entry(6, "ens4f0np0", "0c:42:a1:65:8a:2e", "")},
        {"stats.txt", "NIC statistics:\n     rx_pause_ctrl_phy: 12\n     tx_pause_ctrl_phy: 3\n"},
    });
    const auto& p = port1(c, "mlx5_0");
    BOOST_TEST(p.netdev_name == "ens4f0np0", all_notes(c));
    BOOST_TEST_REQUIRE(p.netdev.has_value());
    BOOST_TEST(p.netdev->mtu_bytes == 9000u);  // the MTU checks see the RoCE netdev
    const auto* c12 = ethtool_stat(p, "rx_pause_ctrl_phy");
    BOOST_TEST_REQUIRE(c12, all_notes(c));  // not dropped: the only port's netdev is decided
    BOOST_TEST(c12->value == 12u);
    BOOST_TEST(c12->source == "t0/stats.txt:2");
    BOOST_TEST(has(all_notes(c),
                   "stats.txt: ethtool -S: interface not named; attached to the "
                   "only RDMA port, mlx5_0 port 1 (its netdev ens4f0np0"));
}

BOOST_AUTO_TEST_CASE(ethtool_s_of_two_ports_without_names_is_a_note_with_candidates) {
    const auto c = import({
        {"devinfo.txt", devinfo("mlx5_0", "0e42:a1ff:fe65:8a2e", true) +
                            devinfo("mlx5_1", "0e42:a1ff:fe65:8a2f", true)},
        {"ip.txt", kLo + ip_link_entry(6, "ens4f0np0", "0c:42:a1:65:8a:2e", "0000:b3:00.0") +
                       ip_link_entry(7, "ens4f1np1", "0c:42:a1:65:8a:2f", "0000:b3:00.1")},
        {"stats.txt", "NIC statistics:\n     rx_pause_ctrl_phy: 12\n"},
    });
    BOOST_TEST(port1(c, "mlx5_1").netdev_name == "ens4f1np1");
    BOOST_TEST(has(all_notes(c),
                   "stats.txt: ethtool -S: cannot tell which interface this is "
                   "(candidates: ens4f0np0, ens4f1np1"),
               all_notes(c));
}

BOOST_AUTO_TEST_CASE(udev_pci_names_pair_devices_with_functions_not_name_order) {
    using rh::bundle::bdf_from_pci_name;
    BOOST_TEST(bdf_from_pci_name("roceP2p1s0f1") == "0002:01:00.1");
    BOOST_TEST(bdf_from_pci_name("rocep59s0f1") == "0000:3b:00.1");
    BOOST_TEST(bdf_from_pci_name("ibp0s12f4") == "0000:00:0c.4");
    BOOST_TEST(bdf_from_pci_name("enp59s0f1np1") == "0000:3b:00.1");
    BOOST_TEST(bdf_from_pci_name("enP2p1s0f0np0") == "0002:01:00.0");
    BOOST_TEST(bdf_from_pci_name("rocep59s0") == "0000:3b:00.0");
    BOOST_TEST(bdf_from_pci_name("eno1").empty());
    BOOST_TEST(bdf_from_pci_name("ens4f0np0").empty());  // a slot name, no bus
    BOOST_TEST(bdf_from_pci_name("mlx5_0").empty());
    BOOST_TEST(bdf_from_pci_name("rocep59s0f0v3").empty());  // a VF: another function

    // Plain ibv_devinfo (no GIDs): devices roceP2p1s0f0/f1; the netdevs are listed in the
    // other order and a third Mellanox function sorts first. Only the udev names tie them.
    const std::string lspci =
        lspci_block("0001:01:00.0", "Ethernet controller", kCx7, "Endpoint",
                    "Speed 32GT/s, Width x16", "Speed 32GT/s, Width x16") +
        lspci_block("0002:01:00.0", "Ethernet controller", kCx7, "Endpoint",
                    "Speed 32GT/s, Width x16", "Speed 32GT/s, Width x16") +
        lspci_block("0002:01:00.1", "Ethernet controller", kCx7, "Endpoint",
                    "Speed 32GT/s, Width x16", "Speed 16GT/s (downgraded), Width x16");
    const auto c = import({
        {"devinfo.txt", devinfo("roceP2p1s0f1", "", false) + devinfo("roceP2p1s0f0", "", false)},
        {"ip.txt", kLo + ip_link_entry(4, "ethB", "0c:42:a1:00:00:01", "0002:01:00.1") +
                       ip_link_entry(5, "ethA", "0c:42:a1:00:00:00", "0002:01:00.0")},
        {"lspci.txt", lspci},
    });
    BOOST_TEST(port1(c, "roceP2p1s0f1").netdev_name == "ethB", all_notes(c));
    BOOST_TEST(port1(c, "roceP2p1s0f0").netdev_name == "ethA");
    const auto* d = device(c, "roceP2p1s0f1");
    BOOST_TEST_REQUIRE(!d->pcie.empty());
    BOOST_TEST(d->pcie[0].bdf == "0002:01:00.1");
    BOOST_TEST(!has(all_notes(c), "by order"));
}

BOOST_AUTO_TEST_CASE(systemd_netdev_names_give_the_function_when_parentdev_is_missing) {
    // `ip link` without -d: no parentdev; the altname enp179s0f1np1 encodes 0000:b3:00.1.
    const auto c = import({
        {"devinfo.txt", devinfo("rocep179s0f1", "", false)},
        {"ip.txt", kLo + ip_link_entry(2, "eno1", "ac:1f:6b:4a:10:02", "", "enp24s0f0", 1500) +
                       ip_link_entry(7, "ens4f1np1", "0c:42:a1:65:8a:2f", "", "enp179s0f1np1")},
    });
    BOOST_TEST(port1(c, "rocep179s0f1").netdev_name == "ens4f1np1", all_notes(c));
}

// --- class 6: PCIe chains from lspci -vv ----------------------------------------------------

namespace {

/// Root port 00:01.0 -> switch upstream port 01:00.0 -> downstream port 02:00.0 -> NIC 03:00.0
/// (ConnectX-7, 400 Gb/s port). `rp_cap`/`usp_sta` shape the uplink.
Files switch_bundle(const std::string& rp_cap, const std::string& uplink_sta) {
    const std::string lspci =
        lspci_block("00:01.0", "PCI bridge", "Intel Corporation Device 09a9", "Root Port (Slot+)",
                    rp_cap, uplink_sta, "primary=00, secondary=01, subordinate=03") +
        lspci_block("01:00.0", "PCI bridge", "Broadcom / LSI PEX890xx PCIe Gen 5 Switch",
                    "Upstream Port", "Speed 32GT/s, Width x16", uplink_sta,
                    "primary=01, secondary=02, subordinate=03") +
        lspci_block("02:00.0", "PCI bridge", "Broadcom / LSI PEX890xx PCIe Gen 5 Switch",
                    "Downstream Port", "Speed 32GT/s, Width x16", "Speed 32GT/s, Width x16",
                    "primary=02, secondary=03, subordinate=03") +
        lspci_block("03:00.0", "Infiniband controller", kCx7, "Endpoint", "Speed 32GT/s, Width x16",
                    "Speed 32GT/s, Width x16");
    return {{"devinfo.txt", devinfo("mlx5_0", "0e42:a1ff:fe65:8a2e", true, "100.0 Gbps (64)")},
            {"ip.txt", kLo + ip_link_entry(2, "ens1np0", "0c:42:a1:65:8a:2e", "0000:03:00.0")},
            {"lspci.txt", lspci}};
}

}  // namespace

BOOST_AUTO_TEST_CASE(switch_uplink_trained_at_gen3_is_found_and_named) {
    const auto c =
        import(switch_bundle("Speed 32GT/s, Width x16", "Speed 8GT/s (downgraded), Width x16"));
    const auto* d = device(c, "mlx5_0");
    BOOST_TEST_REQUIRE(d);
    BOOST_TEST_REQUIRE(d->pcie.size() == 4u, all_notes(c));
    BOOST_TEST(d->pcie[0].bdf == "0000:03:00.0");
    BOOST_TEST(d->pcie[1].bdf == "0000:02:00.0");
    BOOST_TEST(d->pcie[1].port_type == "Downstream Port");
    BOOST_TEST(d->pcie[2].bdf == "0000:01:00.0");
    BOOST_TEST(d->pcie[3].bdf == "0000:00:01.0");
    BOOST_TEST(d->pcie[3].port_type == "Root Port");
    BOOST_TEST(d->pcie[2].source == "t0/lspci.txt:13");  // its LnkSta line

    const auto out = run_rules(c);
    const auto* f = pcie_finding(out, "mlx5_0");
    BOOST_TEST_REQUIRE(f);
    BOOST_TEST(f->severity == rh::Severity::error);  // ~126 Gb/s for a 400 Gb/s port
    BOOST_TEST(has(f->summary, "0000:01:00.0"), f->summary);
    BOOST_TEST(has(f->summary, "switch"), f->summary);
    BOOST_TEST(has(f->summary, "uplink"), f->summary);
    for (const auto& e : f->evidence) BOOST_TEST(e.source.rfind("t0/", 0) == 0u, e.source);
}

BOOST_AUTO_TEST_CASE(switch_in_a_gen3_slot_is_the_slots_fault) {
    const auto c = import(switch_bundle("Speed 8GT/s, Width x16", "Speed 8GT/s, Width x16"));
    const auto out = run_rules(c);
    const auto* f = pcie_finding(out, "mlx5_0");
    BOOST_TEST_REQUIRE(f);
    BOOST_TEST(
        has(f->summary, "root port 0000:00:01.0 (the slot) is itself capable of only 8 GT/s x16"),
        f->summary);
}

BOOST_AUTO_TEST_CASE(healthy_switch_path_has_no_finding) {
    const auto c = import(switch_bundle("Speed 32GT/s, Width x16", "Speed 32GT/s, Width x16"));
    const auto out = run_rules(c);
    BOOST_TEST(!pcie_finding(out, "mlx5_0"));
}

namespace {

Files slot_bundle(const std::string& rp_cap) {
    const std::string lspci =
        lspci_block("b2:00.0", "PCI bridge", "Intel Corporation Sky Lake-E PCI Express Root Port A",
                    "Root Port (Slot+)", rp_cap, "Speed 8GT/s, Width x8",
                    "primary=b2, secondary=b3, subordinate=b3") +
        lspci_block("b3:00.0", "Ethernet controller",
                    "Mellanox Technologies MT2892 Family [ConnectX-6 Dx]", "Endpoint",
                    "Speed 16GT/s, Width x16", "Speed 8GT/s (downgraded), Width x8 (downgraded)");
    return {{"devinfo.txt", devinfo("mlx5_0", "0e42:a1ff:fe65:8a2e", true)},
            {"ip.txt", kLo + ip_link_entry(6, "ens4f0np0", "0c:42:a1:65:8a:2e", "0000:b3:00.0")},
            {"lspci.txt", lspci}};
}

}  // namespace

BOOST_AUTO_TEST_CASE(gen3_x8_slot_names_the_slot_not_a_reseat) {
    const auto c = import(slot_bundle("Speed 8GT/s, Width x8"));
    const auto out = run_rules(c);
    const auto* f = pcie_finding(out, "mlx5_0");
    BOOST_TEST_REQUIRE(f);
    BOOST_TEST(f->severity == rh::Severity::error);  // 63 Gb/s for a 100 Gb/s port
    BOOST_TEST(
        has(f->summary, "root port 0000:b2:00.0 (the slot) is itself capable of only 8 GT/s x8"),
        f->summary);
    BOOST_TEST(has(f->summary, "move the card to a slot wired for 16 GT/s x16"), f->summary);
    BOOST_TEST(!has(f->summary, "eseat the card"), f->summary);
}

BOOST_AUTO_TEST_CASE(card_trained_below_card_and_slot_is_a_reseat) {
    const auto c = import(slot_bundle("Speed 16GT/s, Width x16"));
    const auto out = run_rules(c);
    const auto* f = pcie_finding(out, "mlx5_0");
    BOOST_TEST_REQUIRE(f);
    BOOST_TEST(has(f->summary, "below the 16 GT/s x16 both ends support"), f->summary);
    BOOST_TEST(has(f->summary, "Reseat the card"), f->summary);
}

BOOST_AUTO_TEST_CASE(lspci_only_ticket_is_diagnosable) {
    for (const std::string& desc :
         {kCx7,
          std::string("Broadcom Inc. and subsidiaries BCM57508 NetXtreme-E "
                      "10Gb/25Gb/40Gb/50Gb/100Gb/200Gb Ethernet (rev 11)"),
          std::string("Intel Corporation Ethernet Controller E810-C for QSFP (rev 02)")}) {
        const auto c =
            import({{"lspci-vv.txt", lspci_block("5e:00.0", "Ethernet controller", desc, "Endpoint",
                                                 "Speed 16GT/s, Width x16",
                                                 "Speed 8GT/s (downgraded), Width x16")}});
        const auto* d = device(c, "0000:5e:00.0");
        BOOST_TEST_REQUIRE(d, all_notes(c));
        BOOST_TEST(d->ports.empty());
        const auto out = run_rules(c);
        BOOST_TEST(pcie_finding(out, "0000:5e:00.0"), desc);
    }
    // A NIC without RDMA (Intel I350) is not made a device.
    const auto c =
        import({{"lspci-vv.txt",
                 lspci_block("18:00.0", "Ethernet controller",
                             "Intel Corporation I350 Gigabit Network Connection", "Endpoint",
                             "Speed 5GT/s, Width x4", "Speed 2.5GT/s (downgraded), Width x4")}});
    BOOST_TEST(c.snapshot.devices.empty());
}

BOOST_AUTO_TEST_CASE(lspci_tree_places_bridges_without_bus_lines) {
    // lspci -vv blocks without "Bus:" lines (a filtered paste) and the tree in another file.
    std::string lspci =
        lspci_block("00:01.0", "PCI bridge", "Intel Corporation Device 09a9", "Root Port (Slot+)",
                    "Speed 16GT/s, Width x16", "Speed 8GT/s, Width x16") +
        lspci_block("01:00.0", "Ethernet controller", kCx7, "Endpoint", "Speed 16GT/s, Width x16",
                    "Speed 8GT/s (downgraded), Width x16");
    const std::string tree =
        "-[0000:00]-+-00.0  Intel Corporation Device 09a2\n"
        "           +-01.0-[01]--+-00.0  Mellanox Technologies MT2910 Family [ConnectX-7]\n"
        "           |            \\-00.1  Mellanox Technologies MT2910 Family [ConnectX-7]\n"
        "           \\-1c.0-[02]----00.0  Intel Corporation I210 Gigabit Network Connection\n";
    const auto c = import(
        {{"devinfo.txt", devinfo("mlx5_0", "0e42:a1ff:fe65:8a2e", true)},
         {"ip.txt", kLo + ip_link_entry(2, "ens1f0np0", "0c:42:a1:65:8a:2e", "0000:01:00.0")},
         {"lspci-vv.txt", lspci},
         {"tree.txt", tree}});
    const auto* d = device(c, "mlx5_0");
    BOOST_TEST_REQUIRE(d);
    BOOST_TEST_REQUIRE(d->pcie.size() == 2u, all_notes(c));
    BOOST_TEST(d->pcie[1].bdf == "0000:00:01.0");
    BOOST_TEST(std::count(c.recognized.begin(), c.recognized.end(), "tree.txt: lspci -t") == 1);
}

BOOST_AUTO_TEST_CASE(dmesg_pcie_bandwidth_line_is_evidence) {
    const auto c = import({
        {"devinfo.txt", devinfo("mlx5_0", "0e42:a1ff:fe65:8a2e", true)},
        {"ip.txt", kLo + ip_link_entry(6, "ens4f0np0", "0c:42:a1:65:8a:2e", "0000:b3:00.0")},
        {"dmesg.txt",
         "[    1.0] pci 0000:00:00.0: something else\n"
         "[    6.918734] mlx5_core 0000:b3:00.0: 63.008 Gb/s available PCIe bandwidth, limited "
         "by 8.0 GT/s PCIe x8 link at 0000:b2:00.0 (capable of 252.048 Gb/s with 16.0 GT/s PCIe "
         "x16 link)\n"},
    });
    BOOST_TEST(std::count(c.recognized.begin(), c.recognized.end(),
                          "dmesg.txt: dmesg (PCIe link status)") == 1);
    const auto* d = device(c, "mlx5_0");
    BOOST_TEST_REQUIRE(d);
    BOOST_TEST_REQUIRE(d->pcie.size() == 2u, all_notes(c));
    BOOST_TEST(d->pcie[0].max_speed_gts == 16.0);
    BOOST_TEST(d->pcie[0].max_width == 16u);
    BOOST_TEST(d->pcie[1].bdf == "0000:b2:00.0");
    BOOST_TEST(d->pcie[1].current_speed_gts == 8.0);
    BOOST_TEST(d->pcie[1].current_width == 8u);
    BOOST_TEST(d->pcie[1].source == "t0/dmesg.txt:2");
    const auto out = run_rules(c);
    const auto* f = pcie_finding(out, "mlx5_0");
    BOOST_TEST_REQUIRE(f);
    BOOST_TEST(has(f->summary, "0000:b2:00.0"), f->summary);
}

// --- class 8: the shapes people paste ---------------------------------------------------------

BOOST_AUTO_TEST_CASE(ethtool_s_grep_without_header) {
    const auto devs = devinfo("mlx5_0", "0e42:a1ff:fe65:8a2e", true);
    const auto ip = kLo + ip_link_entry(6, "ens4f0np0", "0c:42:a1:65:8a:2e", "0000:b3:00.0");
    // ethtool's indentation, no header
    auto c = import({{"d", devs},
                     {"i", ip},
                     {"pause.txt", "     rx_pause_ctrl_phy: 12\n     tx_pause_ctrl_phy: 0\n"}});
    BOOST_TEST(std::count(c.recognized.begin(), c.recognized.end(),
                          "pause.txt: ethtool -S (no header)") == 1);
    BOOST_TEST_REQUIRE(ethtool_stat(port1(c, "mlx5_0"), "rx_pause_ctrl_phy"));
    BOOST_TEST(ethtool_stat(port1(c, "mlx5_0"), "rx_pause_ctrl_phy")->value == 12u);
    // indentation lost, but "name: value" with netdev-only names
    c = import({{"d", devs}, {"i", ip}, {"p.txt", "rx_prio3_pause: 5\ntx_prio3_pause: 7\n"}});
    BOOST_TEST(
        std::count(c.recognized.begin(), c.recognized.end(), "p.txt: ethtool -S (no header)") == 1);
    // a hw_counters `grep . *` listing ("name:value") stays one
    c = import({{"d", devs}, {"i", ip}, {"h.txt", "rnr_nak_retry_err:3\nout_of_sequence:5\n"}});
    BOOST_TEST(std::count(c.recognized.begin(), c.recognized.end(), "h.txt: hw_counters listing") ==
               1);
    BOOST_TEST(port1(c, "mlx5_0").hw_counters.size() == 2u);
}

BOOST_AUTO_TEST_CASE(crlf_pastes_read_like_lf) {
    auto crlf = [](std::string s) {
        std::string out;
        for (char ch : s) {
            if (ch == '\n') out += '\r';
            out += ch;
        }
        return out;
    };
    const Files lf = {
        {"devinfo.txt", devinfo("mlx5_0", "0e42:a1ff:fe65:8a2e", true)},
        {"ip.txt", kLo + ip_link_entry(6, "ens4f0np0", "0c:42:a1:65:8a:2e", "0000:b3:00.0")},
        {"eth.txt", "NIC statistics:\n     rx_pause_ctrl_phy: 12\n"},
        {"grep.txt", "     tx_pause_ctrl_phy: 4\n"},
        {"rdma.txt", "link mlx5_0/1 rx_write_requests 0 out_of_sequence 2\n"},
        {"lspci.txt", slot_bundle("Speed 8GT/s, Width x8")[2].second}};
    Files dos;
    for (const auto& [n, t] : lf) dos.emplace_back(n, "\xEF\xBB\xBF" + crlf(t));  // BOM too
    const auto a = import(lf), b = import(dos);
    BOOST_TEST(a.recognized == b.recognized);
    BOOST_TEST(b.unrecognized.empty(), all_notes(b));
    const auto& p = port1(b, "mlx5_0");
    BOOST_TEST(p.netdev_name == "ens4f0np0");
    BOOST_TEST(p.gids.size() == port1(a, "mlx5_0").gids.size());
    BOOST_TEST(p.verbs.active_mtu_bytes == 4096u);
    BOOST_TEST(device(b, "mlx5_0")->pcie.size() == 2u);
    BOOST_TEST(p.nl_hw_counters.size() == 2u);
}

BOOST_AUTO_TEST_CASE(prompt_lines_are_stripped_and_their_command_is_evidence) {
    const auto c = import({
        {"devinfo.txt", "[root@gpu01 ~]# ibv_devinfo -v\n" +
                            devinfo("mlx5_0", "0e42:a1ff:fe65:8a2e", true) +
                            devinfo("mlx5_1", "0e42:a1ff:fe65:8a2f", true) + "[root@gpu01 ~]#\n"},
        {"ip.txt", "user@gpu01:~$ ip -d link\n" + kLo +
                       ip_link_entry(6, "ens4f0np0", "0c:42:a1:65:8a:2e", "0000:b3:00.0") +
                       ip_link_entry(7, "ens4f1np1", "0c:42:a1:65:8a:2f", "0000:b3:00.1")},
        // the file name names no interface; the prompt's command does
        {"paste1.txt",
         "[root@gpu01 ~]# ethtool -S ens4f1np1 | grep pause\n"
         "     rx_pause_ctrl_phy: 77\n"},
        // two commands in one paste; the second's path names the port
        {"paste2.txt",
         "$ ethtool -S ens4f0np0\nNIC statistics:\n     rx_pause_ctrl_phy: 5\n"
         "$ cd /sys/class/infiniband/mlx5_1/ports/1/hw_counters; grep . *\n"
         "rnr_nak_retry_err:9\nout_of_sequence:1\n"},
    });
    BOOST_TEST(c.unrecognized.empty(), all_notes(c));
    BOOST_TEST(port1(c, "mlx5_0").gids.size() == 2u);
    const auto* s1 = ethtool_stat(port1(c, "mlx5_1"), "rx_pause_ctrl_phy");
    BOOST_TEST_REQUIRE(s1, all_notes(c));
    BOOST_TEST(s1->value == 77u);
    BOOST_TEST(s1->source == "t0/paste1.txt:2");
    const auto* s0 = ethtool_stat(port1(c, "mlx5_0"), "rx_pause_ctrl_phy");
    BOOST_TEST_REQUIRE(s0);
    BOOST_TEST(s0->value == 5u);
    const auto& hw = port1(c, "mlx5_1").hw_counters;
    BOOST_TEST_REQUIRE(hw.size() == 2u, all_notes(c));
    BOOST_TEST(hw[1].source == "t0/paste2.txt:5");  // rnr_nak_retry_err, sorted by name
    BOOST_TEST(port1(c, "mlx5_0").hw_counters.empty());
}

BOOST_AUTO_TEST_CASE(ibv_devinfo_without_v_leaves_the_gid_table_unknown) {
    const auto plain = import({{"devinfo.txt", devinfo("mlx5_0", "", false)}});
    const auto& p = port1(plain, "mlx5_0");
    BOOST_TEST(p.gids.empty());
    BOOST_TEST(p.gids_unavailable == "no GID table in the capture (ibv_devinfo without -v)");
    BOOST_TEST(p.sources.at("state") == "t0/devinfo.txt:6");
    const auto verbose = import({{"devinfo.txt", devinfo("mlx5_0", "0e42:a1ff:fe65:8a2e", true)}});
    BOOST_TEST(port1(verbose, "mlx5_0").gids_unavailable.empty());
    BOOST_TEST(port1(verbose, "mlx5_0").sources.at("rate") == "t0/devinfo.txt:11");
}

BOOST_AUTO_TEST_CASE(rdma_statistic_show_single_line) {
    const auto c = import({{"rdma.txt",
                            "link mlx5_0/1 rx_write_requests 0 rx_read_requests 5 "
                            "out_of_sequence 2 rnr_nak_retry_err 1\n"
                            "link mlx5_1/1 rx_write_requests 3 out_of_sequence 0\n"}});
    const auto& p = port1(c, "mlx5_0");
    BOOST_TEST_REQUIRE(p.nl_hw_counters.size() == 4u);
    BOOST_TEST(port1(c, "mlx5_1").nl_hw_counters.size() == 2u);
    for (const auto& x : p.nl_hw_counters) BOOST_TEST(x.source == "t0/rdma.txt:1");
}

// --- class 11: sources are capture file and line, never a path of this machine ---------------

BOOST_AUTO_TEST_CASE(sources_name_capture_file_and_line) {
    const auto c = import(slot_bundle("Speed 8GT/s, Width x8"), "/abs/path/case/t1/");
    const auto& p = port1(c, "mlx5_0");
    BOOST_TEST(p.netdev->source == "t1/ip.txt:3");
    BOOST_TEST(device(c, "mlx5_0")->pcie[0].source == "t1/lspci.txt:12");
    const auto out = run_rules(c);
    const auto* f = pcie_finding(out, "mlx5_0");
    BOOST_TEST_REQUIRE(f);
    for (const auto& e : f->evidence) {
        BOOST_TEST(e.source.find("/abs") == std::string::npos, e.source);
        BOOST_TEST(e.source.find("/sys") == std::string::npos, e.source);
        BOOST_TEST(e.source.rfind("t1/", 0) == 0u, e.source);
    }
}

BOOST_AUTO_TEST_SUITE_END()  // test_bundle_shapes

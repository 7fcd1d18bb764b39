#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "collectors/bundle/bundle.h"
#include "collectors/bundle/sections.h"
#include "tests/support/bundle_support.h"

BOOST_AUTO_TEST_SUITE(test_bundle_sections)

// Issue 26 class 2: a collection script's concatenated output, cut at its section markers,
// with unrelated output between the sections; tabs where spaces were; `watch` screens.
// Uses the pure entry point import_bundle_files (no file system).

namespace {

using rh::test::all_notes;
using rh::test::ethtool_stat;
using rh::test::Files;
using rh::test::import;
using rh::test::port1;

bool has(const std::string& s, const std::string& what) {
    return s.find(what) != std::string::npos;
}

/// Two RDMA ports on two netdevs, so an unnamed ethtool -S cannot be placed by elimination:
/// only the section's command (or the file name its marker names) places it.
const std::string kDevinfo =
    "hca_id:\tmlx5_0\n\tfw_ver:\t\t22.32.2004\n\t\tport:\t1\n\t\t\tstate:\t\tPORT_ACTIVE (4)\n"
    "\t\t\tlink_layer:\t\tEthernet\n\n"
    "hca_id:\tmlx5_1\n\tfw_ver:\t\t22.32.2004\n\t\tport:\t1\n\t\t\tstate:\t\tPORT_ACTIVE (4)\n"
    "\t\t\tlink_layer:\t\tEthernet\n";
const std::string kIpLink =
    "6: eth2: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP mode DEFAULT\n"
    "    link/ether 0c:42:a1:65:8a:2e brd ff:ff:ff:ff:ff:ff\n"
    "7: eth3: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP mode DEFAULT\n"
    "    link/ether 0c:42:a1:65:8a:2f brd ff:ff:ff:ff:ff:ff\n";
const std::string kRdmaLink =
    "link mlx5_0/1 state ACTIVE physical_state LINK_UP netdev eth2\n"
    "link mlx5_1/1 state ACTIVE physical_state LINK_UP netdev eth3\n";
/// `ethtool -S eth3 | grep pause`: no header, generic names.
const std::string kPause = "     rx_pause_ctrl_phy: 77\n     tx_pause_ctrl_phy: 3\n";

/// One collect.txt: every command's output after a marker made by `marker(command)`.
std::string collect(std::string (*marker)(const std::string&)) {
    return marker("ibv_devinfo") + "\n" + kDevinfo + marker("ip link") + "\n" + kIpLink +
           marker("rdma link show") + "\n" + kRdmaLink + marker("ethtool -S eth3 | grep pause") +
           "\n" + kPause;
}

void expect_read(const rh::BundleCapture& c, const std::string& style) {
    BOOST_TEST_CONTEXT(style) {
        BOOST_TEST(c.unrecognized.empty(), all_notes(c));
        const auto* s = ethtool_stat(port1(c, "mlx5_1"), "rx_pause_ctrl_phy");
        BOOST_TEST_REQUIRE(s, all_notes(c));
        BOOST_TEST(s->value == 77u);
        BOOST_TEST(!ethtool_stat(port1(c, "mlx5_0"), "rx_pause_ctrl_phy"));
        BOOST_TEST(port1(c, "mlx5_0").netdev_name == "eth2");
    }
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_marker_style_cuts_sections_and_names_their_command) {
    using Marker = std::string (*)(const std::string&);
    const std::pair<const char*, Marker> styles[] = {
        {"###", [](const std::string& c) { return "### " + c; }},
        {"##", [](const std::string& c) { return "## " + c; }},
        {"----", [](const std::string& c) { return "---- " + c + " ----"; }},
        {"===", [](const std::string& c) { return "=== " + c + " ==="; }},
        {">>>", [](const std::string& c) { return ">>> " + c; }},
        {"set -x", [](const std::string& c) { return "+ " + c; }},
        {"prompt", [](const std::string& c) { return "[root@localhost ~]# " + c; }},
    };
    for (const auto& [style, marker] : styles)
        expect_read(import({{"collect.txt", collect(marker)}}), style);
}

// journalctl's separators are its output, not a collection script's banners: a "-- Boot <id>
// --" line cut out as a marker would lose the boot id (reboot evidence).
BOOST_AUTO_TEST_CASE(journal_separators_are_not_banners) {
    for (const char* line :
         {"-- Boot 6d3f1a9e2c474b8e9d0a3f5e7c1b2a90 --",
          "-- Logs begin at Mon 2026-02-09 08:00:01 UTC, end at Tue 2026-02-10 --",
          "-- Journal begins at Mon 2026-02-09 08:00:01 UTC. --", "-- Reboot --",
          "-- No entries --"})
        BOOST_TEST(!rh::bundle::section_marker(line).has_value(), line);
    BOOST_TEST(rh::bundle::section_marker("-- ethtool -S eth2 --").has_value());
}

BOOST_AUTO_TEST_CASE(tail_headers_name_files_and_the_file_name_places_the_section) {
    // `tail -n +1 *` of a capture directory: the header's file name names the interface.
    const auto c =
        import({{"collect.txt", "==> devinfo.txt <==\n" + kDevinfo + "\n==> ip.txt <==\n" +
                                    kIpLink + "\n==> rdma.txt <==\n" + kRdmaLink +
                                    "\n==> ethtool-S-eth3.txt <==\n" + kPause}});
    expect_read(c, "==> FILE <==");
}

BOOST_AUTO_TEST_CASE(tail_of_hw_counters_is_a_counter_listing_between_other_sections) {
    // `tail -n +1 .../hw_counters/*` prints "==> path <==" then ONE value: a counter listing,
    // placed by the path, even between other sections.
    const std::string hw = "/sys/class/infiniband/mlx5_1/ports/1/hw_counters/";
    const auto c =
        import({{"collect.txt", "### ibv_devinfo\n" + kDevinfo + "### tail -n +1 " + hw +
                                    "*\n==> " + hw + "out_of_sequence <==\n12\n\n==> " + hw +
                                    "rnr_nak_retry_err <==\n4\n### free -m\n"
                                    "              total        used        free\n"
                                    "Mem:         515581       23410      487019\n"}});
    const auto& hwc = port1(c, "mlx5_1").hw_counters;
    BOOST_TEST_REQUIRE(hwc.size() == 2u, all_notes(c));
    BOOST_TEST(hwc[0].name == "out_of_sequence");
    BOOST_TEST(hwc[0].value == 12u);
    BOOST_TEST(hwc[0].source == "t0/collect.txt:15");
    BOOST_TEST(port1(c, "mlx5_0").hw_counters.empty());
}

BOOST_AUTO_TEST_CASE(noise_between_sections_is_skipped_with_file_and_lines) {
    const std::string noise =
        "### free -m\n"
        "               total        used        free      shared  buff/cache   available\n"
        "Mem:          515581       23410      487019          21        5152      488970\n"
        "Swap:           8191           0        8191\n"
        "---- dstat ----\n"
        "----total-cpu-usage---- -dsk/total- -net/total-\n"
        "usr sys idl wai stl| read  writ| recv  send\n"
        "  2   1  97   0   0|  12k  345k|  22M   21M\n"
        "+ lsmod\n"
        "Module                  Size  Used by\n"
        "mlx5_ib               454656  0\n"
        "mlx5_core            2027520  1 mlx5_ib\n"
        "mlxfw                  36864  1 mlx5_core\n"
        "=== sar -n DEV 1 1 ===\n"
        "Linux 5.15.0-91-generic (node) \t03/13/2025 \t_x86_64_\t(64 CPU)\n\n"
        "09:41:01        IFACE   rxpck/s   txpck/s    rxkB/s    txkB/s\n"
        "09:41:02           lo      0.00      0.00      0.00      0.00\n"
        ">>> df -h\n"
        "Filesystem      Size  Used Avail Use% Mounted on\n"
        "/dev/nvme0n1p2  440G   41G  377G  10% /\n"
        "### top -bn1 | head\n"
        "Tasks: 812 total,   1 running, 811 sleeping,   0 stopped,   0 zombie\n"
        "    PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND\n"
        "  48211 mluser    20   0   92.1g   4.2g 310244 S 101.0   0.8 112:41.07 python3\n"
        "## uname -a\n"
        "Linux node 5.15.0-91-generic #101-Ubuntu SMP Tue Nov 14 13:30:08 UTC 2023 x86_64 "
        "GNU/Linux\n";
    const auto c =
        import({{"collect.txt", "### ibv_devinfo\n" + kDevinfo + noise + "### ip link\n" + kIpLink +
                                    "### rdma link\n" + kRdmaLink + noise +
                                    "### ethtool -S eth3 | grep pause\n" + kPause}});
    expect_read(c, "noise");
    const std::string notes = all_notes(c);
    BOOST_TEST(has(notes,
                   "collect.txt:14-16: output of `free -m` is not a format rocehealth "
                   "reads; ignored"),
               notes);
    BOOST_TEST(has(notes, "output of `lsmod` is not a format rocehealth reads"), notes);
    BOOST_TEST(has(notes, "output of `sar -n DEV 1 1` is not a format"), notes);
    BOOST_TEST(has(notes, "output of `uname -a` is not a format"), notes);
    BOOST_TEST(has(notes, "output of `top -bn1 | head` is not a format"), notes);
    BOOST_TEST(has(notes, "output of `df -h` is not a format"), notes);
    BOOST_TEST(has(notes, "output of `dstat` is not a format"), notes);
    // lsmod's "name size count" rows are not counters
    BOOST_TEST(port1(c, "mlx5_0").hw_counters.empty());
    BOOST_TEST(port1(c, "mlx5_1").hw_counters.empty());
}

BOOST_AUTO_TEST_CASE(watch_screen_header_names_the_command_and_highlighting_is_stripped) {
    // `watch -d` kept by a terminal log: screen clear, reverse video around changed values
    // ("ESC [7m" ... "ESC (B ESC [m"), and the header naming the command and the time.
    const std::string screen =
        "\x1b[?1049h\x1b[H\x1b[2JEvery 2.0s: ethtool -S eth3 | grep pause"
        "                  gpu01: Wed Jan 14 16:20:05 2026\n\n"
        "     rx_pause_ctrl_phy: \x1b[7m77\x1b(B\x1b[m\n     tx_pause_ctrl_phy: 3\n";
    const auto c = import({{"d", kDevinfo}, {"i", kIpLink}, {"r", kRdmaLink}, {"w", screen}});
    expect_read(c, "watch -d");
    BOOST_TEST(
        rh::bundle::watch_command("Every 5.0s: ibv_devinfo -v   h1: Wed Jan 14 16:20:05 2026")
            .value_or("") == "ibv_devinfo -v");
}

BOOST_AUTO_TEST_CASE(date_line_above_indented_counters_does_not_stop_recognition) {
    // `date; ethtool -S eth3 | grep pause` in one prompt: a `date` line, then two counters.
    const auto c = import({{"d", kDevinfo},
                           {"i", kIpLink},
                           {"r", kRdmaLink},
                           {"p",
                            "$ date; ethtool -S eth3 | grep pause\n"
                            "Thu Mar 13 09:41:02 UTC 2025\n" +
                                kPause}});
    const auto* s = ethtool_stat(port1(c, "mlx5_1"), "rx_pause_ctrl_phy");
    BOOST_TEST_REQUIRE(s, all_notes(c));
    BOOST_TEST(s->value == 77u);
}

BOOST_AUTO_TEST_CASE(tabs_are_read_where_spaces_are) {
    const std::string ip_tabs =
        "6:\teth2:\t<BROADCAST,MULTICAST,UP,LOWER_UP>\tmtu\t9000\tqdisc\tmq\tstate\tUP\n"
        "\tlink/ether\t0c:42:a1:65:8a:2e\tbrd\tff:ff:ff:ff:ff:ff\n"
        "7:\teth3:\t<BROADCAST,MULTICAST,UP,LOWER_UP>\tmtu\t9000\tqdisc\tmq\tstate\tUP\n"
        "\tlink/ether\t0c:42:a1:65:8a:2f\tbrd\tff:ff:ff:ff:ff:ff\n";
    const auto c = import({
        {"d", kDevinfo},
        {"i", ip_tabs},
        {"r", kRdmaLink},
        {"ethtool-S-eth3", "NIC statistics:\n\trx_pause_ctrl_phy:\t77\n\ttx_pause_ctrl_phy:\t3\n"},
        {"ethtool-i-eth2", "\tdriver:\tmlx5_core\n\tbus-info:\t0000:3b:00.0\n"},
        // one counter a line (iproute2 >= 6.8), and a wrapped long line, indentation lost
        {"rdma-stat",
         "link mlx5_0/1\nrx_write_requests 5\nout_of_sequence\t2 duplicate_request 1\n"},
        {"hwc",
         "$ cd /sys/class/infiniband/mlx5_1/ports/1/hw_counters; for f in *; do echo "
         "-e \"$f\\t$(cat $f)\"; done\nout_of_sequence\t9\nrnr_nak_retry_err\t1\n"},
    });
    BOOST_TEST(c.unrecognized.empty(), all_notes(c));
    BOOST_TEST(port1(c, "mlx5_0").netdev_name == "eth2");
    BOOST_TEST_REQUIRE(port1(c, "mlx5_0").netdev.has_value());
    BOOST_TEST(port1(c, "mlx5_0").netdev->mtu_bytes == 9000u);
    const auto* s = ethtool_stat(port1(c, "mlx5_1"), "rx_pause_ctrl_phy");
    BOOST_TEST_REQUIRE(s, all_notes(c));
    BOOST_TEST(s->value == 77u);
    BOOST_TEST(port1(c, "mlx5_0").nl_hw_counters.size() == 3u, all_notes(c));
    BOOST_TEST(port1(c, "mlx5_1").hw_counters.size() == 2u, all_notes(c));
    BOOST_TEST(std::count(c.recognized.begin(), c.recognized.end(), "ethtool-i-eth2: ethtool -i") ==
               1);
}

BOOST_AUTO_TEST_CASE(bnxt_node_guid_names_the_mac_of_its_netdev) {
    // Plain ibv_devinfo (no GID table), a management NIC beside the RoCE one, no rdma link:
    // bnxt_re makes the node GUID from the netdev's MAC (EUI-64), which ties the port.
    const auto c = import({
        {"ibv_devinfo.txt",
         "hca_id:\tbnxt_re0\n\tnode_guid:\t\t\t020a:f7ff:fe9e:41a2\n"
         "\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n"
         "\t\t\tlink_layer:\t\tEthernet\n"},
        {"ip-d-link.txt",
         "2: eno1: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP\n"
         "    link/ether ac:1f:6b:20:33:b4 brd ff:ff:ff:ff:ff:ff parentbus pci parentdev "
         "0000:65:00.0\n"
         "4: ens1f0np0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP\n"
         "    link/ether 00:0a:f7:9e:41:a2 brd ff:ff:ff:ff:ff:ff parentbus pci parentdev "
         "0000:18:00.0\n"},
        {"ethtool-S-ens1f0np0.txt", "NIC statistics:\n     rx_pause_frames: 4436011\n"},
    });
    BOOST_TEST(port1(c, "bnxt_re0").netdev_name == "ens1f0np0", all_notes(c));
    BOOST_TEST(ethtool_stat(port1(c, "bnxt_re0"), "rx_pause_frames"), all_notes(c));
}

BOOST_AUTO_TEST_CASE(markers_need_text_and_column_zero) {
    using rh::bundle::section_marker;
    BOOST_TEST(!section_marker("----"));
    BOOST_TEST(!section_marker("----total-cpu-usage---- -dsk/total-"));
    BOOST_TEST(!section_marker("###"));
    BOOST_TEST(!section_marker("  ### indented"));
    BOOST_TEST(!section_marker("-+-[0000:00]-+-00.0"));
    BOOST_TEST(!section_marker("+-01.0-[01-02]--"));
    BOOST_TEST(section_marker("---- ethtool -S eth2 ----").value().text == "ethtool -S eth2");
    BOOST_TEST(section_marker("==> /sys/x/hw_counters/out_of_sequence <==").value().text ==
               "/sys/x/hw_counters/out_of_sequence");
    BOOST_TEST(section_marker("++ ethtool -i eth2").value().text == "ethtool -i eth2");
}

// A collection script's `### hostname` section names the host (two machines' captures are not
// merged on counter names alone), and only a one-name answer counts.
BOOST_AUTO_TEST_CASE(hostname_section_names_the_host) {
    const auto c = import({{"collect.txt", "### hostname\ngpu02\n### ibv_devinfo\n" + kDevinfo}});
    BOOST_TEST(c.snapshot.host == "gpu02", all_notes(c));
    BOOST_TEST(c.identity.hostname == "gpu02");
    const auto u = import({{"collect.txt", "+ uname -n\ngpu03\n+ ibv_devinfo\n" + kDevinfo}});
    BOOST_TEST(u.snapshot.host == "gpu03", all_notes(u));
    const auto two =
        import({{"collect.txt", "### hostname\ngpu02 gpu03\n### ibv_devinfo\n" + kDevinfo}});
    BOOST_TEST(two.snapshot.host != "gpu02");
}

// Counters that no RDMA port could be tied to (no `ip link` beside two ports) are listed as
// unused, so the diagnosis cannot call the host healthy; the same file beside `ip link` and
// `rdma link` output is read.
BOOST_AUTO_TEST_CASE(counters_tied_to_no_port_are_listed_as_unused) {
    const auto lost = import({{"devinfo.txt", kDevinfo}, {"ethtool-S-eth3.txt", kPause}});
    BOOST_TEST_REQUIRE(lost.unused_counters.size() == 1u, all_notes(lost));
    BOOST_TEST(has(lost.unused_counters[0], "ethtool-S-eth3.txt"), lost.unused_counters[0]);
    const auto tied = import({{"devinfo.txt", kDevinfo},
                              {"ip-link.txt", kIpLink},
                              {"rdma-link.txt", kRdmaLink},
                              {"ethtool-S-eth3.txt", kPause}});
    BOOST_TEST(tied.unused_counters.empty(), all_notes(tied));
}

BOOST_AUTO_TEST_SUITE_END()

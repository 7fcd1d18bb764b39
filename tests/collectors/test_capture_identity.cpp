#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "agent/replay/inputs.h"
#include "collectors/bundle/bundle.h"
#include "collectors/bundle/capture_identity.h"
#include "rules/engine/engine.h"
#include "tests/support/capture_dirs.h"

BOOST_AUTO_TEST_SUITE(test_capture_identity)

// Which captures are one host (collectors/bundle/capture_identity.h, agent/replay/inputs.cpp): tiny
// capture directories written by the test, loaded with load_bundles as `diagnose --bundle`
// does, then the shipped rules run on the store.

namespace {

namespace fs = std::filesystem;

/// A capture directory under a private root (removed when the test's Root goes).
struct Root : rh::test::CaptureRoot {
    Root() : CaptureRoot("rh_identity_") {}
};

constexpr auto& write = rh::test::write_capture_file;

std::string devinfo(const std::string& dev, const std::string& guid, unsigned active_mtu = 4096) {
    const unsigned code = active_mtu == 4096 ? 5 : active_mtu == 2048 ? 4 : 3;
    return "hca_id:\t" + dev +
           "\n\ttransport:\t\t\tInfiniBand (0)\n\tfw_ver:\t\t\t\t22.36.1010\n"
           "\tnode_guid:\t\t\t" +
           guid + "\n\tsys_image_guid:\t\t\t" + guid +
           "\n\tphys_port_cnt:\t\t\t1\n\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n"
           "\t\t\tmax_mtu:\t\t4096 (5)\n\t\t\tactive_mtu:\t\t" +
           std::to_string(active_mtu) + " (" + std::to_string(code) +
           ")\n\t\t\tlink_layer:\t\tEthernet\n";
}

std::string ip_link(const std::string& ifname, const std::string& mac, unsigned mtu) {
    return "2: " + ifname + ": <BROADCAST,MULTICAST,UP,LOWER_UP> mtu " + std::to_string(mtu) +
           " qdisc mq state UP mode DEFAULT group default qlen 1000\n    link/ether " + mac +
           " brd ff:ff:ff:ff:ff:ff\n";
}

/// mlx5 hw_counters as `grep . /sys/class/infiniband/.../hw_counters/*` prints them.
std::string hw_counters(const std::string& dev, std::uint64_t rnr_nak_retry_err,
                        bool with_extra = true) {
    const std::string p = "/sys/class/infiniband/" + dev + "/ports/1/hw_counters/";
    std::string s = p + "out_of_buffer:0\n" + p + "out_of_sequence:0\n" + p +
                    "rnr_nak_retry_err:" + std::to_string(rnr_nak_retry_err) + "\n" + p +
                    "local_ack_timeout_err:0\n" + p + "packet_seq_err:0\n";
    if (with_extra) s += p + "np_cnp_sent:0\n" + p + "rp_cnp_handled:0\n";
    return s;
}

/// A capture of one host: ibv_devinfo, ip link, `rdma link` and hw_counters.
void full_capture(const std::string& dir, const std::string& guid, const std::string& mac,
                  std::uint64_t rnr, unsigned mtu = 9000, unsigned active_mtu = 4096) {
    write(dir, "ibv_devinfo.txt", devinfo("mlx5_0", guid, active_mtu));
    write(dir, "ip-link.txt", ip_link("ens1f0np0", mac, mtu));
    write(dir, "rdma-link.txt",
          "link mlx5_0/1 state ACTIVE physical_state LINK_UP netdev ens1f0np0\n");
    write(dir, "hw_counters.txt", hw_counters("mlx5_0", rnr));
}

rh::RuleSet shipped_rules() {
    auto r = rh::load_rules_file(RH_SOURCE_DIR "/rules/rocehealth-rules.json");
    BOOST_TEST_REQUIRE(r.ok(), (r.ok() ? "" : r.error().message()));
    return *r;
}

struct Loaded {
    rh::SeriesStore store{rh::StoreLimits{1e12, 1u << 30}};
    std::vector<rh::InputReport> reports;
    rh::EngineResult result;
};

Loaded load(const std::vector<std::string>& dirs, std::optional<double> interval_s) {
    Loaded l;
    auto r = rh::load_bundles(l.store, dirs, interval_s);
    BOOST_TEST_REQUIRE(r.ok(), (r.ok() ? "" : r.error().message()));
    l.reports = *r;
    l.result = rh::run_rules(l.store, shipped_rules());
    return l;
}

bool has_finding(const Loaded& l, const std::string& rule, const std::string& host) {
    return std::any_of(l.result.findings.begin(), l.result.findings.end(),
                       [&](const rh::Finding& f) { return f.rule_id == rule && f.host == host; });
}

bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_CASE(mac_inside_a_link_local_gid) {
    BOOST_TEST(rh::mac_of_link_local_gid("fe80:0000:0000:0000:0e42:a1ff:fe65:4e9a") ==
               "0c:42:a1:65:4e:9a");
    // Not EUI-64 (no ff:fe in the middle), not link-local, not a GID.
    BOOST_TEST(rh::mac_of_link_local_gid("fe80:0000:0000:0000:0e42:a1aa:bb65:4e9a").empty());
    BOOST_TEST(rh::mac_of_link_local_gid("0000:0000:0000:0000:0000:ffff:c0a8:010a").empty());
    BOOST_TEST(rh::mac_of_link_local_gid("fe80::1").empty());
}

BOOST_AUTO_TEST_CASE(two_captures_without_hostname_are_one_host_with_rates) {
    Root root;
    const std::string a = root.dir("capture-1000"), b = root.dir("capture-1010");
    full_capture(a, "0c42:a103:0065:4e9a", "0c:42:a1:65:4e:9a", 0);
    full_capture(b, "0c42:a103:0065:4e9a", "0c:42:a1:65:4e:9a", 1543);
    const Loaded l = load({a, b}, 10.0);
    BOOST_TEST(l.store.hosts() == std::vector<std::string>{"capture-1000"});
    BOOST_TEST_REQUIRE(l.reports.size() == 2u);
    const std::string why = l.reports[1].notes.front();
    BOOST_TEST(contains(why, b + ": same host as " + a), why);
    BOOST_TEST(contains(why, "node_guid 0c42:a103:0065:4e9a"), why);
    BOOST_TEST(contains(why, "MAC 0c:42:a1:65:4e:9a"), why);
    BOOST_TEST(l.result.t_last - l.result.t_first == 10.0);
    BOOST_TEST(has_finding(l, "rnr", "capture-1000"));
}

BOOST_AUTO_TEST_CASE(different_node_guids_are_two_hosts_and_say_why) {
    Root root;
    const std::string a = root.dir("capture-1000"), b = root.dir("capture-1010");
    full_capture(a, "0c42:a103:0065:4e9a", "0c:42:a1:65:4e:9a", 0);
    full_capture(b, "0c42:a103:0077:1234", "0c:42:a1:77:12:34", 1543);
    const Loaded l = load({a, b}, 10.0);
    BOOST_TEST(l.store.hosts().size() == 2u);
    const std::string why = l.reports[1].notes.front();
    BOOST_TEST(contains(why, "not " + a +
                                 "'s host (node_guid of mlx5_0: 0c42:a103:0065:4e9a vs "
                                 "0c42:a103:0077:1234"),
               why);
    // One capture per host: no rate rule can fire.
    BOOST_TEST(!has_finding(l, "rnr", "capture-1010"));
}

BOOST_AUTO_TEST_CASE(hardware_identity_outranks_a_conflicting_hostname_file) {
    Root root;
    // Same NIC (GUID and MAC) but the hostname files disagree: one host (a hostname file copied
    // from another machine or a rename), named by the first, and the disagreement is said.
    const std::string a = root.dir("t0"), b = root.dir("t1");
    full_capture(a, "0c42:a103:0065:4e9a", "0c:42:a1:65:4e:9a", 0);
    full_capture(b, "0c42:a103:0065:4e9a", "0c:42:a1:65:4e:9a", 1543);
    write(a, "hostname", "node01\n");
    write(b, "hostname", "node02\n");
    const Loaded l = load({a, b}, 10.0);
    BOOST_TEST(l.store.hosts() == std::vector<std::string>{"node01"});
    const std::string why = l.reports[1].notes.front();
    BOOST_TEST(contains(why, "hostname files node01 vs node02"), why);
    BOOST_TEST(has_finding(l, "rnr", "node01"));

    // The same hostname file on two different NICs: two hosts, named apart.
    const std::string c = root.dir("other/t1");
    full_capture(c, "0c42:a103:0077:1234", "0c:42:a1:77:12:34", 5);
    write(c, "hostname", "node01\n");
    const Loaded two = load({a, c}, 10.0);
    BOOST_TEST(two.store.hosts().size() == 2u);
    const std::string why2 = two.reports[1].notes.front();
    BOOST_TEST(contains(why2, "not " + a + "'s host (node_guid of mlx5_0"), why2);
    BOOST_TEST(contains(why2, "although hostname file node01"), why2);
    BOOST_TEST(contains(why2, "named node01/t1"), why2);
}

BOOST_AUTO_TEST_CASE(only_counter_listings_same_names_are_one_host_weakly) {
    Root root;
    const std::string a = root.dir("t0"), b = root.dir("t1");
    write(a, "hwc.txt", hw_counters("mlx5_0", 0));
    write(b, "hwc.txt", hw_counters("mlx5_0", 1543));
    const Loaded l = load({a, b}, 10.0);
    BOOST_TEST(l.store.hosts().size() == 1u);
    BOOST_TEST(contains(l.reports[1].notes.front(), "only weak evidence: mlx5_0 port 1"),
               l.reports[1].notes.front());
    BOOST_TEST(has_finding(l, "rnr", "t0"));

    // Another device name: another host.
    const std::string c = root.dir("t2");
    write(c, "hwc.txt", hw_counters("mlx5_3", 1543));
    const Loaded two = load({a, c}, 10.0);
    BOOST_TEST(two.store.hosts().size() == 2u);
    BOOST_TEST(contains(two.reports[1].notes.front(), "no device or netdev in common"),
               two.reports[1].notes.front());
}

BOOST_AUTO_TEST_CASE(a_grepped_subset_of_counters_is_still_the_same_host) {
    Root root;
    const std::string a = root.dir("t0"), b = root.dir("t1");
    write(a, "hwc.txt", hw_counters("mlx5_0", 0, true));
    write(b, "hwc.txt", hw_counters("mlx5_0", 1543, false));
    BOOST_TEST(load({a, b}, 10.0).store.hosts().size() == 1u);
}

BOOST_AUTO_TEST_CASE(no_identity_in_common_joins_the_only_host_and_says_so) {
    Root root;
    const std::string a = root.dir("t0"), b = root.dir("t1");
    write(a, "ip-link.txt", ip_link("ens1f0np0", "0c:42:a1:65:4e:9a", 9000));
    write(b, "hwc.txt", hw_counters("mlx5_0", 5));
    const Loaded l = load({a, b}, 10.0);
    BOOST_TEST(l.store.hosts().size() == 1u);
    BOOST_TEST(contains(l.reports[1].notes.front(), "hold no identity evidence in common"),
               l.reports[1].notes.front());
}

BOOST_AUTO_TEST_CASE(timestamps_of_some_captures_only) {
    Root root;
    const std::string a = root.dir("t0"), b = root.dir("t1");
    full_capture(a, "0c42:a103:0065:4e9a", "0c:42:a1:65:4e:9a", 0);
    full_capture(b, "0c42:a103:0065:4e9a", "0c:42:a1:65:4e:9a", 1543);
    write(a, "timestamp", "1764400000\n");
    rh::SeriesStore store(rh::StoreLimits{1e12, 1u << 30});
    // Without --interval: judged in the given order without spacing (no rates), and said so.
    const auto unspaced = rh::load_bundles(store, {a, b}, std::nullopt);
    BOOST_TEST_REQUIRE(unspaced.ok());
    BOOST_TEST((*unspaced)[0].spacing_unknown);
    BOOST_TEST(contains((*unspaced)[0].notes[1], "no clock in " + b), (*unspaced)[0].notes[1]);
    const Loaded l = load({a, b}, 10.0);
    BOOST_TEST(contains(l.reports[0].notes[1], "only 1 of 2 captures have a `timestamp` file"),
               l.reports[0].notes[1]);
    BOOST_TEST(has_finding(l, "rnr", "t0"));

    // Both timestamped: their own spacing, no --interval needed.
    write(b, "timestamp", "1764400030\n");
    const Loaded stamped = load({a, b}, std::nullopt);
    BOOST_TEST(stamped.result.t_last - stamped.result.t_first == 30.0);
    BOOST_TEST(stamped.result.wall_clock);
    // --interval beside them is not used, and said so.
    const Loaded both = load({a, b}, 10.0);
    BOOST_TEST(both.result.t_last - both.result.t_first == 30.0);
    bool said = false;
    for (const auto& n : both.reports[0].notes)
        said =
            said || contains(n, "--interval 10 s not used: every capture has a `timestamp` file");
    BOOST_TEST(said);
}

BOOST_AUTO_TEST_CASE(three_captures_two_hosts_interleaved) {
    Root root;
    const std::string a0 = root.dir("a0"), b0 = root.dir("b0"), a1 = root.dir("a1");
    full_capture(a0, "0c42:a103:0065:4e9a", "0c:42:a1:65:4e:9a", 0);
    full_capture(b0, "0c42:a103:0077:1234", "0c:42:a1:77:12:34", 0);
    full_capture(a1, "0c42:a103:0065:4e9a", "0c:42:a1:65:4e:9a", 1543);
    const Loaded l = load({a0, b0, a1}, 10.0);
    BOOST_TEST(l.store.hosts().size() == 2u);
    BOOST_TEST(l.reports[2].hosts == std::vector<std::string>{"a0"});
    BOOST_TEST(has_finding(l, "rnr", "a0"));
}

BOOST_AUTO_TEST_CASE(peer_mtu_mismatch_split_across_two_hosts_captures) {
    Root root;
    const std::string a = root.dir("hostA"), b = root.dir("hostB");
    full_capture(a, "0c42:a103:0065:4e9a", "0c:42:a1:65:4e:9a", 0, 9000, 4096);
    full_capture(b, "0c42:a103:0077:1234", "0c:42:a1:77:12:34", 0, 1500, 1024);
    const Loaded l = load({a, b}, std::nullopt);
    BOOST_TEST(l.store.hosts().size() == 2u);
    std::vector<std::string> summaries;
    for (const auto& f : l.result.findings)
        if (f.rule_id == "fabric_consistency") summaries.push_back(f.summary);
    BOOST_TEST_REQUIRE(summaries.size() == 2u);  // netdev MTU and active_mtu
    BOOST_TEST(contains(summaries[0] + summaries[1],
                        "netdev MTU differs between hosts: hostB has "
                        "1500 bytes"),
               summaries[0]);
    BOOST_TEST(contains(summaries[0] + summaries[1], "hostA has 9000 bytes"), summaries[0]);
    BOOST_TEST(contains(summaries[0] + summaries[1],
                        "RoCE active_mtu differs between hosts: "
                        "hostB has 1024 bytes"),
               summaries[1]);
}

BOOST_AUTO_TEST_CASE(identical_servers_with_only_counters_are_told_apart_by_time_and_values) {
    Root root;
    // Two hosts' captures, each only an hw_counters listing of mlx5_0 (same names): A at 1000
    // and 1010, B at 1000 and 1010. B's first capture is not later than A's last: another host.
    const std::string a0 = root.dir("A/t0"), a1 = root.dir("A/t1"), b0 = root.dir("B/t0"),
                      b1 = root.dir("B/t1");
    write(a0, "hwc.txt", hw_counters("mlx5_0", 0));
    write(a1, "hwc.txt", hw_counters("mlx5_0", 1543));
    write(b0, "hwc.txt", hw_counters("mlx5_0", 2000));
    write(b1, "hwc.txt", hw_counters("mlx5_0", 2000));
    for (const auto& [d, t] : {std::pair{a0, "1000"}, {a1, "1010"}, {b0, "1000"}, {b1, "1010"}})
        write(d, "timestamp", std::string(t) + "\n");
    const Loaded l = load({a0, a1, b0, b1}, std::nullopt);
    BOOST_TEST(l.store.hosts().size() == 2u);
    BOOST_TEST(contains(l.reports[2].notes.front(), "its timestamp is not later than " + a1),
               l.reports[2].notes.front());
    BOOST_TEST(l.reports[3].hosts == std::vector<std::string>{"B/t0"});  // basename t0 is taken
    BOOST_TEST(has_finding(l, "rnr", "t0"));
    BOOST_TEST(!has_finding(l, "rnr", "B/t0"));

    // Without timestamps: a 32-bit Q counter going down (1543 -> 7) has wrapped (issue 26: a wrap
    // can happen from any value): no evidence of another host.
    for (const auto& d : {a0, a1, b0, b1}) fs::remove(fs::path(d) / "timestamp");
    const std::string c = root.dir("C/t0");
    write(c, "hwc.txt", hw_counters("mlx5_0", 7));
    const Loaded wrapped = load({a0, a1, c}, 10.0);
    BOOST_TEST(wrapped.store.hosts().size() == 1u);
    // A 64-bit counter going down (np_cnp_sent 90000 -> 7), with only names in common and no
    // reboot shown, is another host (or a reset: names cannot tell).
    std::string a1_text = hw_counters("mlx5_0", 1543), c_text = hw_counters("mlx5_0", 7);
    a1_text.replace(a1_text.find("np_cnp_sent:0"), 13, "np_cnp_sent:90000");
    c_text.replace(c_text.find("np_cnp_sent:0"), 13, "np_cnp_sent:7");
    write(a1, "hwc.txt", a1_text);
    write(c, "hwc.txt", c_text);
    const Loaded two = load({a0, a1, c}, 10.0);
    BOOST_TEST(two.store.hosts().size() == 2u);
    BOOST_TEST(contains(two.reports[2].notes.front(), "np_cnp_sent went down (90000 -> 7)"),
               two.reports[2].notes.front());
}

BOOST_AUTO_TEST_CASE(compare_identity_kind_by_kind) {
    using V = rh::IdentityMatch::Verdict;
    rh::CaptureIdentity a, b;
    BOOST_TEST((rh::compare_identity(a, b).verdict == V::unknown));
    // Hostname files only: they decide.
    a.hostname = "node01";
    b.hostname = "node02";
    auto m = rh::compare_identity(a, b);
    BOOST_TEST((m.verdict == V::different));
    BOOST_TEST(m.evidence == "hostname files node01 vs node02");
    BOOST_TEST(!m.weak);
    // The MAC inside a link-local GID of one capture is the `ip link` MAC of the other: the MAC
    // outranks the hostname files, which are reported as disagreeing.
    a.mac["mlx5_0 port 1 GID 0"].insert(
        rh::mac_of_link_local_gid("fe80:0000:0000:0000:0e42:a1ff:fe65:4e9a"));
    b.mac["ens1f0np0"].insert("0c:42:a1:65:4e:9a");
    m = rh::compare_identity(a, b);
    BOOST_TEST((m.verdict == V::same));
    BOOST_TEST(m.evidence == "MAC 0c:42:a1:65:4e:9a");
    BOOST_TEST(m.disagreeing == "hostname files node01 vs node02");
    // PCI slots: port 0 and port 1 of one card share domain:bus:device; weak evidence.
    rh::CaptureIdentity c, d;
    c.pci_slots.insert("0000:3b:00");
    d.pci_slots.insert("0000:3b:00");
    m = rh::compare_identity(c, d);
    BOOST_TEST((m.verdict == V::same));
    BOOST_TEST(m.weak);
    d.pci_slots = {"0000:5e:00"};
    BOOST_TEST((rh::compare_identity(c, d).verdict == V::different));
}

BOOST_AUTO_TEST_CASE(interleaved_hosts_with_only_counters_split_by_impossible_traffic) {
    // From a new-user trial: two healthy hosts' captures given A0 B0 A1 B1, 1 s apart at the
    // start, only counter listings (same names). B's byte counters are far above A's: joining
    // B0 to A would mean terabytes in a second. That cannot be one port: two hosts, no finding.
    Root root;
    auto ethtool = [](std::uint64_t rx_bytes) {
        return "NIC statistics:\n     rx_bytes: " + std::to_string(rx_bytes) +
               "\n     tx_bytes: " + std::to_string(rx_bytes) +
               "\n     rx_packets: " + std::to_string(rx_bytes / 4096) + "\n";
    };
    const std::string a0 = root.dir("A0"), b0 = root.dir("B0"), a1 = root.dir("A1"),
                      b1 = root.dir("B1");
    const std::uint64_t a = 2'000'000'000'000, b = 6'500'000'000'000,
                        per_min = 60ull * 10'000'000'000;
    for (const auto& [d, rx, t] : {std::tuple{a0, a, "1000"},
                                   {b0, b, "1001"},
                                   {a1, a + per_min, "1060"},
                                   {b1, b + per_min, "1061"}}) {
        write(d, "ethtool-S-ens1f0np0.txt", ethtool(rx));
        write(d, "hwc.txt", hw_counters("mlx5_0", 0));
        write(d, "timestamp", std::string(t) + "\n");
    }
    const Loaded l = load({a0, b0, a1, b1}, std::nullopt);
    BOOST_TEST(l.store.hosts().size() == 2u);
    BOOST_TEST(contains(l.reports[1].notes.front(), "above any port's 400 Gb/s"),
               l.reports[1].notes.front());
    BOOST_TEST(contains(l.reports[2].notes.front(), "same host as " + a0),
               l.reports[2].notes.front());
    BOOST_TEST(contains(l.reports[3].notes.front(), "same host as " + b0),
               l.reports[3].notes.front());
}

BOOST_AUTO_TEST_SUITE_END()  // test_capture_identity

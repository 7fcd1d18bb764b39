#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "collectors/collect.h"
#include "collectors/sources/netdev.h"
#include "collectors/sources/pcie.h"
#include "collectors/sources/rdma_sysfs.h"

BOOST_AUTO_TEST_SUITE(test_collectors_collect)

namespace {

rh::Snapshot collect(const std::string& tree, const std::string& only = {}) {
    rh::CollectOptions o{rh::SysfsRoot(std::string(RH_FIXTURES_DIR) + "/" + tree + "/sys"), only};
    return rh::collect_snapshot(o);
}

const rh::Device& device(const rh::Snapshot& s, const std::string& name) {
    auto it = std::find_if(s.devices.begin(), s.devices.end(),
                           [&](const rh::Device& d) { return d.name == name; });
    BOOST_TEST_REQUIRE((it != s.devices.end()), "device " << name << " collected");
    return *it;
}

const rh::Counter* counter(const std::vector<rh::Counter>& cs, const std::string& name) {
    auto it =
        std::find_if(cs.begin(), cs.end(), [&](const rh::Counter& c) { return c.name == name; });
    return it == cs.end() ? nullptr : &*it;
}

}  // namespace

BOOST_AUTO_TEST_CASE(mlx5_device_and_port_attributes) {
    const auto s = collect("mlx5_x8");
    BOOST_TEST_REQUIRE(s.devices.size() == 1u);
    const auto& d = device(s, "mlx5_0");
    BOOST_TEST(d.fw_ver == "22.36.1010");
    BOOST_TEST(d.node_type == "1: CA");
    BOOST_TEST(d.node_guid == "0c42:a103:0065:4e9a");
    BOOST_TEST(d.problems.empty());
    BOOST_TEST_REQUIRE(d.ports.size() == 1u);
    const auto& p = d.ports[0];
    BOOST_TEST(p.number == 1u);
    BOOST_TEST((p.state_code == 4u));
    BOOST_TEST(p.state == "ACTIVE");
    BOOST_TEST((p.phys_state_code == 5u));
    BOOST_TEST(p.phys_state == "LinkUp");
    BOOST_TEST(p.link_layer == "Ethernet");
    BOOST_TEST(p.rate == "100 Gb/sec (4X EDR)");
    BOOST_TEST(!s.host.empty());
    BOOST_TEST(s.collected_at.size() == 20u);
}

BOOST_AUTO_TEST_CASE(gid_table_skips_zero_entries_and_keeps_types) {
    const auto snap = collect("mlx5_x8");
    const auto& p = device(snap, "mlx5_0").ports.at(0);
    BOOST_TEST_REQUIRE(p.gids.size() == 4u);  // 8 entries, 4 all-zero
    BOOST_TEST(p.gids[0].index == 0u);
    BOOST_TEST(p.gids[0].type == "IB/RoCE v1");
    BOOST_TEST(p.gids[1].type == "RoCE v2");
    BOOST_TEST(p.gids[3].index == 3u);
    BOOST_TEST(p.gids[3].gid == "0000:0000:0000:0000:0000:ffff:0a00:0001");
    BOOST_TEST(p.gids[3].netdev == "ens1f0np0");
    BOOST_TEST(p.netdev_name == "ens1f0np0");
}

BOOST_AUTO_TEST_CASE(counters_are_read_under_kernel_names_and_na_is_missing_not_zero) {
    const auto snap = collect("mlx5_x8");
    const auto& p = device(snap, "mlx5_0").ports.at(0);
    const auto* xmit = counter(p.counters, "port_xmit_data");
    BOOST_TEST_REQUIRE(xmit != nullptr);
    BOOST_TEST((xmit->value == 52118830017ull));
    BOOST_TEST(xmit->source.find("ports/1/counters/port_xmit_data") != std::string::npos);
    const auto* wait = counter(p.counters, "port_xmit_wait");
    BOOST_TEST_REQUIRE(wait != nullptr);
    BOOST_TEST(!wait->value.has_value());
    BOOST_TEST(wait->error.find("N/A (no PMA)") != std::string::npos);
    BOOST_TEST_REQUIRE(counter(p.hw_counters, "local_ack_timeout_err") != nullptr);
    BOOST_TEST((counter(p.hw_counters, "local_ack_timeout_err")->value == 17u));
    BOOST_TEST((counter(p.hw_counters, "np_ecn_marked_roce_packets")->value == 1533u));
    BOOST_TEST(counter(p.hw_counters, "lifespan") == nullptr);  // a setting, not a counter
    BOOST_TEST(std::is_sorted(p.hw_counters.begin(), p.hw_counters.end(),
                              [](const auto& a, const auto& b) { return a.name < b.name; }));
}

BOOST_AUTO_TEST_CASE(x8_of_x16_function_and_root_port_upstream) {
    const auto snap = collect("mlx5_x8");
    const auto& d = device(snap, "mlx5_0");
    BOOST_TEST_REQUIRE(d.pcie.size() == 2u);
    const auto& f = d.pcie[0];
    BOOST_TEST(f.is_function);
    BOOST_TEST(f.bdf == "0000:3b:00.0");
    BOOST_TEST(f.sysfs_path == "devices/pci0000:00/0000:00:01.0/0000:3b:00.0");
    BOOST_TEST((f.current_width == 8u));
    BOOST_TEST((f.max_width == 16u));
    BOOST_TEST((f.current_speed_gts == 16.0));
    BOOST_TEST((f.max_speed_gts == 16.0));
    BOOST_TEST((f.numa_node == 0));
    const auto& root = d.pcie[1];
    BOOST_TEST(!root.is_function);
    BOOST_TEST(root.bdf == "0000:00:01.0");
    BOOST_TEST((root.current_width == 16u));
}

BOOST_AUTO_TEST_CASE(bridge_tree_yields_function_bridge_root_in_order) {
    const auto snap = collect("mlx5_bridge_downtrained");
    const auto& d = device(snap, "mlx5_0");
    BOOST_TEST_REQUIRE(d.pcie.size() == 3u);
    BOOST_TEST(d.pcie[0].bdf == "0000:02:00.0");
    BOOST_TEST(d.pcie[0].is_function);
    BOOST_TEST(d.pcie[1].bdf == "0000:01:00.0");
    BOOST_TEST((d.pcie[1].current_speed_gts == 8.0));
    BOOST_TEST((d.pcie[1].max_speed_gts == 16.0));
    BOOST_TEST(d.pcie[2].bdf == "0000:00:01.0");
    BOOST_TEST(!d.pcie[1].is_function);
    BOOST_TEST(!d.pcie[2].is_function);
}

BOOST_AUTO_TEST_CASE(healthy_tree_is_x16_of_x16_without_problems) {
    const auto snap = collect("mlx5_healthy");
    const auto& d = device(snap, "mlx5_0");
    BOOST_TEST((d.pcie.at(0).current_width == 16u));
    BOOST_TEST(d.problems.empty());
    const auto* wait = counter(d.ports.at(0).counters, "port_xmit_wait");
    BOOST_TEST_REQUIRE(wait != nullptr);
    BOOST_TEST((wait->value == 0u));  // a real zero stays a zero
}

BOOST_AUTO_TEST_CASE(fixture_netdev_is_read_from_class_net) {
    const auto snap = collect("mlx5_x8");
    const auto& p = device(snap, "mlx5_0").ports.at(0);
    BOOST_TEST_REQUIRE(p.netdev.has_value());
    BOOST_TEST(p.netdev->name == "ens1f0np0");
    BOOST_TEST((p.netdev->mtu_bytes == 9000u));
    BOOST_TEST(p.netdev->operstate == "up");
    BOOST_TEST((p.netdev->carrier_changes == 2u));
    BOOST_TEST((p.netdev->rx_dropped == 12u));
    BOOST_TEST(p.netdev->source.find("class/net/ens1f0np0") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(verbs_unavailable_with_reason_under_fixture_root) {
    const auto snap = collect("mlx5_x8");
    const auto& p = device(snap, "mlx5_0").ports.at(0);
    BOOST_TEST(!p.verbs.active_mtu_bytes.has_value());
    BOOST_TEST(!p.verbs.max_mtu_bytes.has_value());
    BOOST_TEST(p.verbs.unavailable.find("sysfs root is a fixture") != std::string::npos);
    BOOST_TEST(p.verbs.unavailable.find("mlx5_x8/sys") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(rxe_has_no_pcie_and_mtu_1500) {
    const auto s = collect("rxe_mtu1500");
    const auto& d = device(s, "rxe0");
    BOOST_TEST(d.pcie.empty());
    BOOST_TEST(d.problems.empty());
    BOOST_TEST(d.fw_ver.empty());
    const auto& p = d.ports.at(0);
    BOOST_TEST(p.counters.empty());  // rxe has no PMA counters/ directory
    BOOST_TEST((counter(p.hw_counters, "rcvd_pkts")->value == 40213u));
    BOOST_TEST(counter(p.hw_counters, "out_of_seq_request") != nullptr);
    BOOST_TEST_REQUIRE(p.netdev.has_value());
    BOOST_TEST(p.netdev->name == "eth0");
    BOOST_TEST((p.netdev->mtu_bytes == 1500u));
    BOOST_TEST_REQUIRE(p.gids.size() == 2u);  // rxe registers RoCE v2 GIDs only
    for (const auto& g : p.gids) BOOST_TEST(g.type == "RoCE v2");
    BOOST_TEST(p.rate == "2.5 Gb/sec (1X SDR)");
}

BOOST_AUTO_TEST_CASE(rxe_no_v2_has_only_v1_gids) {
    const auto snap = collect("rxe_no_v2");
    const auto& p = device(snap, "rxe0").ports.at(0);
    BOOST_TEST_REQUIRE(p.gids.size() == 2u);
    for (const auto& g : p.gids) BOOST_TEST(g.type == "IB/RoCE v1");
}

BOOST_AUTO_TEST_CASE(port_down_state_and_phys_state) {
    const auto snap = collect("port_down");
    const auto& p = device(snap, "mlx5_0").ports.at(0);
    BOOST_TEST((p.state_code == 1u));
    BOOST_TEST(p.state == "DOWN");
    BOOST_TEST((p.phys_state_code == 3u));
    BOOST_TEST(p.phys_state == "Disabled");
    BOOST_TEST(p.netdev->operstate == "down");
}

BOOST_AUTO_TEST_CASE(bad_device_does_not_stop_the_good_one) {
    const auto s = collect("two_devices_one_bad");
    BOOST_TEST_REQUIRE(s.devices.size() == 2u);
    const auto& bad = device(s, "irdma0");
    BOOST_TEST(!bad.problems.empty());
    const auto mentions = [&](const std::string& what) {
        return std::any_of(bad.problems.begin(), bad.problems.end(), [&](const rh::Note& n) {
            return n.text.find(what) != std::string::npos;
        });
    };
    BOOST_TEST(mentions("ports/1/state"));
    BOOST_TEST(mentions("fw_ver"));
    BOOST_TEST(mentions("class/net/ens2f0"));
    const auto& bp = bad.ports.at(0);
    BOOST_TEST(!bp.state_code.has_value());
    BOOST_TEST(bp.state.empty());
    BOOST_TEST(!bp.netdev.has_value());
    const auto* garbage = counter(bp.hw_counters, "cnpHandled");
    BOOST_TEST_REQUIRE(garbage != nullptr);
    BOOST_TEST(!garbage->value.has_value());
    BOOST_TEST(garbage->error.find("garbage") != std::string::npos);

    const auto& good = device(s, "mlx5_0");
    BOOST_TEST(good.problems.empty());
    BOOST_TEST(good.ports.at(0).state == "ACTIVE");
    BOOST_TEST(good.ports.at(0).netdev.has_value());
    BOOST_TEST(good.pcie.size() == 2u);
    BOOST_TEST(good.ports.at(0).hw_counters.size() == 29u);  // 30 files minus lifespan
}

BOOST_AUTO_TEST_CASE(counter_names_with_spaces_are_collected) {
    const auto snap = collect("two_devices_one_bad");
    const auto& p = device(snap, "irdma0").ports.at(0);
    const auto* rnr = counter(p.hw_counters, "RNR sent");
    BOOST_TEST_REQUIRE(rnr != nullptr);
    BOOST_TEST((rnr->value == 7u));
    BOOST_TEST_REQUIRE(counter(p.hw_counters, "ord limit count") != nullptr);
    BOOST_TEST((counter(p.hw_counters, "ord limit count")->value == 0u));
}

BOOST_AUTO_TEST_CASE(only_device_filters) {
    const auto s = collect("two_devices_one_bad", "mlx5_0");
    BOOST_TEST_REQUIRE(s.devices.size() == 1u);
    BOOST_TEST(s.devices[0].name == "mlx5_0");
    const auto none = collect("two_devices_one_bad", "mlx5_7");
    BOOST_TEST(none.devices.empty());
    BOOST_TEST_REQUIRE(none.notes.size() == 1u);
    BOOST_TEST(none.notes[0].text.find("mlx5_7") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(missing_class_infiniband_is_a_note_not_a_failure) {
    rh::CollectOptions o{rh::SysfsRoot(std::string(RH_FIXTURES_DIR)), {}};
    const auto s = rh::collect_snapshot(o);
    BOOST_TEST(s.devices.empty());
    BOOST_TEST_REQUIRE(s.notes.size() == 1u);
    BOOST_TEST(s.notes[0].text.find("class/infiniband") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(rtnetlink_reads_loopback) {
    // Live source on this host's loopback: every Linux network namespace has "lo".
    auto n = rh::make_rtnl_netdev_source()->read("lo");
    BOOST_TEST_REQUIRE(n.ok(), (n.ok() ? "" : n.error().message()));
    BOOST_TEST(n->source == "rtnetlink");
    BOOST_TEST(n->mtu_bytes.has_value());
    BOOST_TEST(n->rx_bytes.has_value());
    auto missing = rh::make_rtnl_netdev_source()->read("rh-no-such-if");
    BOOST_TEST(!missing.ok());
}

BOOST_AUTO_TEST_CASE(netdev_falls_back_to_device_net_without_gid_ndevs) {
    // A copy of mlx5_healthy whose GID table names no netdev: device/net/ must be used.
    namespace fs = std::filesystem;
    const fs::path tmp = fs::temp_directory_path() / ("rh_coll_" + std::to_string(::getpid()));
    fs::copy(std::string(RH_FIXTURES_DIR) + "/mlx5_healthy/sys", tmp,
             fs::copy_options::recursive | fs::copy_options::copy_symlinks);
    fs::remove_all(tmp / "class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs");
    rh::CollectOptions o{rh::SysfsRoot(tmp), {}};
    const auto s = rh::collect_snapshot(o);
    fs::remove_all(tmp);
    const auto& p = device(s, "mlx5_0").ports.at(0);
    BOOST_TEST(p.gids.at(0).netdev.empty());
    BOOST_TEST(p.netdev_name == "ens1f0np0");
    BOOST_TEST_REQUIRE(p.netdev.has_value());
    BOOST_TEST((p.netdev->mtu_bytes == 9000u));
}

// Discovery accounts its reads per source (rocehealth_collector_success / _duration_seconds):
// on a fixture the sysfs readers and the replayed counter sources, never rtnetlink or verbs;
// a device that cannot be read fails rdma_sysfs only.
BOOST_AUTO_TEST_CASE(discovery_times_each_source_it_reads) {
    const auto at = [](const rh::SourcePasses& p, rh::Source s) {
        return p[static_cast<std::size_t>(s)];
    };
    rh::SourcePasses ok;
    rh::collect_snapshot(
        {rh::SysfsRoot(std::string(RH_FIXTURES_DIR) + "/mlx5_pfc_upstream/sys"), {}}, &ok);
    for (const rh::Source s :
         {rh::Source::rdma_sysfs, rh::Source::pcie_sysfs, rh::Source::aer, rh::Source::netdev_sysfs,
          rh::Source::qos_sysfs, rh::Source::ethtool_stats}) {
        BOOST_TEST_CONTEXT(rh::to_string(s)) {
            BOOST_TEST(at(ok, s).read);
            BOOST_TEST(at(ok, s).success);
            BOOST_TEST(at(ok, s).duration_s >= 0.0);
        }
    }
    BOOST_TEST(!at(ok, rh::Source::netdev_rtnl).read);
    BOOST_TEST(!at(ok, rh::Source::verbs).read);
    BOOST_TEST(rh::to_string(rh::Source::pcie_sysfs) == "pcie_sysfs");

    rh::SourcePasses bad;
    rh::collect_snapshot(
        {rh::SysfsRoot(std::string(RH_FIXTURES_DIR) + "/two_devices_one_bad/sys"), {}}, &bad);
    BOOST_TEST(at(bad, rh::Source::rdma_sysfs).read);
    BOOST_TEST(!at(bad, rh::Source::rdma_sysfs).success);
}

BOOST_AUTO_TEST_SUITE_END()  // test_collectors_collect

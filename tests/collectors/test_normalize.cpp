#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>

#include "collectors/collect.h"
#include "collectors/normalize.h"
#include "tests/support/test_support.h"

BOOST_AUTO_TEST_SUITE(test_normalize)

// Each check names the raw counter and the file its expected value is read from, so a fixture
// change cannot silently make a wrong mapping pass.

namespace {

namespace fs = std::filesystem;
using Labels = std::map<std::string, std::string>;
const std::string kFixtures = RH_FIXTURES_DIR;

/// An `ethtool -S` recording of the fixture tree, value by name.
std::map<std::string, std::uint64_t> read_recording(const std::string& tree,
                                                    const std::string& ifname) {
    return rh::test::ethtool_text_values(kFixtures + "/" + tree + "/ethtool/" + ifname + ".txt");
}

std::uint64_t sysfs_value(const std::string& tree, const std::string& rel) {
    std::ifstream in(kFixtures + "/" + tree + "/sys/" + rel);
    std::uint64_t v = 0;
    in >> v;
    BOOST_TEST_REQUIRE(!in.fail(), "read " << tree << "/sys/" << rel);
    return v;
}

/// Port 1 of `dev` from a full collection pass over the fixture tree. If the ethtool source
/// gave nothing (recording reader not wired), the recording is parsed here and the port
/// normalized again, so these tests check the mapping either way.
rh::Port port_of(const std::string& tree, const std::string& dev) {
    rh::CollectOptions o{rh::SysfsRoot(kFixtures + "/" + tree + "/sys"), dev};
    auto s = rh::collect_snapshot(o);
    BOOST_TEST_REQUIRE(s.devices.size() == 1u);
    auto& d = s.devices[0];
    BOOST_TEST_REQUIRE(!d.ports.empty());
    for (auto& port : d.ports) {
        if (!port.netdev || !port.netdev->ethtool_stats.empty()) continue;
        const auto rec = read_recording(tree, port.netdev->name);
        for (const auto& [k, v] : rec)
            port.netdev->ethtool_stats.push_back({k, v, "recording", {}});
        if (!rec.empty()) rh::normalize_device(d, o.sysfs);
    }
    return d.ports[0];
}

const rh::NormalizedCounter* find(const rh::Port& p, const std::string& name,
                                  const Labels& labels = {}) {
    auto it = std::find_if(p.normalized.begin(), p.normalized.end(),
                           [&](const auto& c) { return c.name == name && c.labels == labels; });
    return it == p.normalized.end() ? nullptr : &*it;
}

/// The normalized counter exists, came from `raw`, has `value` and `unit`.
void expect(const rh::Port& p, const std::string& name, const Labels& labels,
            const std::string& raw, std::uint64_t value, const std::string& unit,
            unsigned width = 64) {
    BOOST_TEST_CONTEXT(name << " <- " << raw) {
        const auto* c = find(p, name, labels);
        BOOST_TEST_REQUIRE(c != nullptr);
        BOOST_TEST(c->raw_name == raw);
        BOOST_TEST((c->value == std::optional<std::uint64_t>(value)));
        BOOST_TEST(c->unit == unit);
        BOOST_TEST(c->width_bits == width);
        BOOST_TEST(!c->source.empty());
    }
}

void expect_absent(const rh::Port& p, const std::string& name, const Labels& labels = {}) {
    BOOST_TEST(find(p, name, labels) == nullptr, name << " must be absent (no equivalent)");
}

Labels prio(const std::string& p, const std::string& dir) {
    return {{"priority", p}, {"direction", dir}};
}

}  // namespace

BOOST_AUTO_TEST_CASE(mlx5_upstream_pfc_priority_3) {
    const std::string t = "mlx5_pfc_upstream";
    const auto p = port_of(t, "mlx5_0");
    const auto eth = read_recording(t, "ens1f0np0");  // ethtool/ens1f0np0.txt
    const std::string hw = "class/infiniband/mlx5_0/ports/1/hw_counters/";
    const std::string pma = "class/infiniband/mlx5_0/ports/1/counters/";
    // ethtool -S, mlx5e en_stats.c
    expect(p, "pfc_pause_frames", prio("3", "rx"), "rx_prio3_pause", eth.at("rx_prio3_pause"),
           "frames");
    expect(p, "pfc_pause_frames", prio("3", "tx"), "tx_prio3_pause", eth.at("tx_prio3_pause"),
           "frames");
    expect(p, "pfc_pause_duration_us", prio("3", "rx"), "rx_prio3_pause_duration",
           eth.at("rx_prio3_pause_duration"), "us");
    expect(p, "pfc_pause_duration_us", prio("3", "tx"), "tx_prio3_pause_duration",
           eth.at("tx_prio3_pause_duration"), "us");
    expect(p, "pfc_pause_transitions", prio("3", "rx"), "rx_prio3_pause_transition",
           eth.at("rx_prio3_pause_transition"), "events");
    expect(p, "pause_storm_events", {{"level", "warning"}}, "tx_pause_storm_warning_events",
           eth.at("tx_pause_storm_warning_events"), "events");
    expect(p, "pause_storm_events", {{"level", "error"}}, "tx_pause_storm_error_events",
           eth.at("tx_pause_storm_error_events"), "events");
    expect(p, "rx_discards_phy", {}, "rx_discards_phy", eth.at("rx_discards_phy"), "packets");
    expect(p, "oversize_frames", {}, "rx_oversize_pkts_phy", eth.at("rx_oversize_pkts_phy"),
           "frames");
    expect(p, "link_down_events", {}, "link_down_events_phy", eth.at("link_down_events_phy"),
           "events");
    expect(p, "symbol_errors", {}, "rx_symbol_err_phy", eth.at("rx_symbol_err_phy"), "errors");
    expect(p, "roce_rx_bytes", {}, "rx_vport_rdma_unicast_bytes",
           eth.at("rx_vport_rdma_unicast_bytes"), "bytes");
    expect(p, "roce_tx_bytes", {}, "tx_vport_rdma_unicast_bytes",
           eth.at("tx_vport_rdma_unicast_bytes"), "bytes");
    for (const char* pr : {"0", "3", "7"})
        expect(p, "priority_bytes", prio(pr, "rx"), std::string("rx_prio") + pr + "_bytes",
               eth.at(std::string("rx_prio") + pr + "_bytes"), "bytes");
    // No PFC on priority 0: mlx5e has no prio0 pause strings, so no ethtool-sourced entry.
    const auto* p0 = find(p, "pfc_pause_frames", prio("0", "rx"));
    BOOST_TEST((p0 == nullptr || p0->raw_name != "rx_prio0_pause"));
    // hw_counters, mlx5 counters.c: Q counters are 32-bit, congestion counters 64-bit.
    expect(p, "rx_out_of_buffer", {}, "out_of_buffer", sysfs_value(t, hw + "out_of_buffer"),
           "packets", 32);
    expect(p, "ack_timeouts", {}, "local_ack_timeout_err",
           sysfs_value(t, hw + "local_ack_timeout_err"), "events", 32);
    expect(p, "rnr_nak_received", {}, "rnr_nak_retry_err", sysfs_value(t, hw + "rnr_nak_retry_err"),
           "packets", 32);
    expect(p, "retry_exceeded", {}, "req_transport_retries_exceeded",
           sysfs_value(t, hw + "req_transport_retries_exceeded"), "events", 32);
    expect(p, "cnp_handled", {}, "rp_cnp_handled", sysfs_value(t, hw + "rp_cnp_handled"),
           "packets");
    expect(p, "cnp_sent", {}, "np_cnp_sent", sysfs_value(t, hw + "np_cnp_sent"), "packets");
    expect(p, "ecn_marked_packets", {}, "np_ecn_marked_roce_packets",
           sysfs_value(t, hw + "np_ecn_marked_roce_packets"), "packets");
    // PMA data counters are 4-byte words.
    expect(p, "port_xmit_data_bytes", {}, "port_xmit_data",
           4 * sysfs_value(t, pma + "port_xmit_data"), "bytes");
    expect(p, "port_rcv_data_bytes", {}, "port_rcv_data", 4 * sysfs_value(t, pma + "port_rcv_data"),
           "bytes");
    // mlx5 has no RNR-NAK-sent counter.
    expect_absent(p, "rnr_nak_sent");
}

BOOST_AUTO_TEST_CASE(mlx5_ofed_trailing_space_storm_name) {
    // Old MLNX_OFED kernels print "tx_pause_storm_warning_events " (trailing space).
    const auto p = port_of("mlx5_pfc_ofed", "mlx5_0");
    const auto eth = read_recording("mlx5_pfc_ofed", "ens1f0np0");
    expect(p, "pause_storm_events", {{"level", "warning"}}, "tx_pause_storm_warning_events",
           eth.at("tx_pause_storm_warning_events"), "events");
}

BOOST_AUTO_TEST_CASE(bnxt_re_and_bnxt_en) {
    const std::string t = "bnxt_pfc";
    const auto p = port_of(t, "bnxt_re0");
    const auto eth = read_recording(t, "enp65s0f0np0");
    const std::string hw = "class/infiniband/bnxt_re0/ports/1/hw_counters/";
    expect(p, "cnp_handled", {}, "rx_cnp_pkts", sysfs_value(t, hw + "rx_cnp_pkts"), "packets");
    expect(p, "cnp_sent", {}, "tx_cnp_pkts", sysfs_value(t, hw + "tx_cnp_pkts"), "packets");
    expect(p, "ecn_marked_packets", {}, "rx_ecn_marked_pkts",
           sysfs_value(t, hw + "rx_ecn_marked_pkts"), "packets");
    expect(p, "rx_out_of_buffer", {}, "rx_out_of_buffer", sysfs_value(t, hw + "rx_out_of_buffer"),
           "packets");
    expect(p, "out_of_sequence", {}, "oos_drop_count", sysfs_value(t, hw + "oos_drop_count"),
           "packets");
    expect(p, "roce_rx_bytes", {}, "rx_roce_only_bytes", sysfs_value(t, hw + "rx_roce_only_bytes"),
           "bytes");
    expect(p, "pfc_pause_frames", prio("3", "rx"), "rx_pfc_ena_frames_pri3",
           eth.at("rx_pfc_ena_frames_pri3"), "frames");
    expect(p, "pfc_pause_frames", prio("3", "tx"), "tx_pfc_ena_frames_pri3",
           eth.at("tx_pfc_ena_frames_pri3"), "frames");
    expect(p, "pfc_pause_duration_us", prio("3", "rx"), "pfc_pri3_rx_duration_us",
           eth.at("pfc_pri3_rx_duration_us"), "us");
    expect(p, "pfc_pause_duration_us", prio("3", "tx"), "pfc_pri3_tx_duration_us",
           eth.at("pfc_pri3_tx_duration_us"), "us");
    expect(p, "link_pause_frames", {{"direction", "rx"}}, "rx_pause_frames",
           eth.at("rx_pause_frames"), "frames");
    expect(p, "link_down_events", {}, "link_down_events", eth.at("link_down_events"), "events");
    expect(p, "oversize_frames", {}, "rx_ovrsz_frames", eth.at("rx_ovrsz_frames"), "frames");
    // no equivalents on Broadcom
    expect_absent(p, "cnp_ignored");
    expect_absent(p, "pause_storm_events", {{"level", "warning"}});
    expect_absent(p, "port_xmit_data_bytes");  // bnxt_re has no PMA counters/
}

BOOST_AUTO_TEST_CASE(irdma_and_ice) {
    const std::string t = "irdma_ice";
    const auto p = port_of(t, "irdma0");
    const auto eth = read_recording(t, "ens2f0");
    const std::string hw = "class/infiniband/irdma0/ports/1/hw_counters/";
    expect(p, "cnp_handled", {}, "cnpHandled", sysfs_value(t, hw + "cnpHandled"), "packets");
    expect(p, "cnp_ignored", {}, "cnpIgnored", sysfs_value(t, hw + "cnpIgnored"), "packets");
    expect(p, "cnp_sent", {}, "cnpSent", sysfs_value(t, hw + "cnpSent"), "packets");
    expect(p, "ecn_marked_packets", {}, "RxECNMrkd", sysfs_value(t, hw + "RxECNMrkd"), "packets");
    expect(p, "rnr_nak_sent", {}, "RNR sent", sysfs_value(t, hw + "RNR sent"), "packets");
    expect(p, "pfc_pause_frames", prio("3", "rx"), "rx_priority_3_xoff.nic",
           eth.at("rx_priority_3_xoff.nic"), "frames");
    expect(p, "pfc_pause_frames", prio("3", "tx"), "tx_priority_3_xoff.nic",
           eth.at("tx_priority_3_xoff.nic"), "frames");
    expect(p, "rx_discards_phy", {}, "rx_dropped.nic", eth.at("rx_dropped.nic"), "packets");
    expect(p, "link_pause_frames", {{"direction", "tx"}}, "link_xoff_tx.nic",
           eth.at("link_xoff_tx.nic"), "frames");
    // ice has no pause duration, irdma no ack-timeout counter
    expect_absent(p, "pfc_pause_duration_us", prio("3", "rx"));
    expect_absent(p, "ack_timeouts");
}

BOOST_AUTO_TEST_CASE(rxe_software_counters) {
    const std::string t = "rxe_mtu1500";
    const auto p = port_of(t, "rxe0");
    const std::string hw = "class/infiniband/rxe0/ports/1/hw_counters/";
    expect(p, "roce_rx_packets", {}, "rcvd_pkts", sysfs_value(t, hw + "rcvd_pkts"), "packets");
    expect(p, "roce_tx_packets", {}, "sent_pkts", sysfs_value(t, hw + "sent_pkts"), "packets");
    expect(p, "rnr_nak_sent", {}, "send_rnr_err", sysfs_value(t, hw + "send_rnr_err"), "packets");
    expect(p, "out_of_sequence", {}, "out_of_seq_request",
           sysfs_value(t, hw + "out_of_seq_request"), "packets");
    expect_absent(p, "cnp_handled");
    expect_absent(p, "ecn_marked_packets");
}

BOOST_AUTO_TEST_CASE(unreadable_raw_counter_is_not_zero) {
    // two_devices_one_bad: irdma0 hw_counters/cnpHandled = "garbage".
    const auto p = port_of("two_devices_one_bad", "irdma0");
    const auto* c = find(p, "cnp_handled");
    BOOST_TEST_REQUIRE(c != nullptr);
    BOOST_TEST(!c->value.has_value());
    BOOST_TEST(c->raw_name == "cnpHandled");
}

// ---- pure normalize_port on hand-built ports ---------------------------------------------------

namespace {

rh::Counter raw(const std::string& name, std::optional<std::uint64_t> v) {
    return rh::Counter{name, v, "test/" + name, {}};
}

}  // namespace

BOOST_AUTO_TEST_CASE(unknown_driver_gives_nothing_and_missing_gives_absent) {
    rh::Port p;
    p.hw_counters = {raw("rp_cnp_handled", 5), raw("out_of_buffer", 1)};
    BOOST_TEST(rh::normalize_port(p, nullptr, nullptr).empty());
    const auto n = rh::normalize_port(p, rh::driver_named("mlx5"), rh::driver_named("mlx5"));
    BOOST_TEST(n.size() == 2u);  // only what exists; no zero-filled entries
    p.normalized = n;
    expect_absent(p, "cnp_sent");
    expect_absent(p, "pfc_pause_frames", prio("3", "rx"));
}

BOOST_AUTO_TEST_CASE(bnxt_patch_names_and_upstream_preference) {
    rh::Port p;
    p.hw_counters = {raw("np_ecn_marked_roce_packets", 11), raw("rp_cnp_handled", 12),
                     raw("out_of_buffer", 13), raw("np_cnp_pkts", 14)};
    p.normalized = rh::normalize_port(p, rh::driver_named("bnxt"), rh::driver_named("bnxt"));
    expect(p, "ecn_marked_packets", {}, "np_ecn_marked_roce_packets", 11, "packets");
    expect(p, "cnp_handled", {}, "rp_cnp_handled", 12, "packets");
    expect(p, "rx_out_of_buffer", {}, "out_of_buffer", 13, "packets");
    expect(p, "cnp_sent", {}, "np_cnp_pkts", 14, "packets");
    // With both name sets present the upstream name wins.
    p.hw_counters.push_back(raw("rx_cnp_pkts", 99));
    p.normalized = rh::normalize_port(p, rh::driver_named("bnxt"), rh::driver_named("bnxt"));
    expect(p, "cnp_handled", {}, "rx_cnp_pkts", 99, "packets");
    // An unreadable upstream counter gives way to a readable alias.
    p.hw_counters.back().value.reset();
    p.normalized = rh::normalize_port(p, rh::driver_named("bnxt"), rh::driver_named("bnxt"));
    expect(p, "cnp_handled", {}, "rp_cnp_handled", 12, "packets");
}

BOOST_AUTO_TEST_CASE(fallbacks_dcb_link_pause_pma_netlink) {
    rh::Port p;
    p.counters = {raw("symbol_error", 65535), raw("link_downed", 3)};
    p.nl_hw_counters = {raw("rdma_rx_bytes", 4096)};
    p.netdev = rh::Netdev{};
    p.netdev->name = "ens1f0np0";
    rh::DcbConfig dcb;
    dcb.source = "rtnetlink DCB_CMD_IEEE_GET";
    dcb.pfc_indications[3] = 70;
    dcb.pfc_requests[3] = 80;
    p.netdev->dcb = dcb;
    p.netdev->link_pause.rx_frames = 5;
    p.netdev->link_pause.source = "ethtool netlink";
    p.netdev->ethtool_stats = {raw("tx_prio3_pause", 81)};
    p.normalized = rh::normalize_port(p, rh::driver_named("mlx5"), rh::driver_named("mlx5"));
    // ethtool wins over DCB where both exist; DCB fills the other direction.
    expect(p, "pfc_pause_frames", prio("3", "tx"), "tx_prio3_pause", 81, "frames");
    expect(p, "pfc_pause_frames", prio("3", "rx"), "ieee_pfc.indications[3]", 70, "frames");
    BOOST_TEST(find(p, "pfc_pause_frames", prio("3", "rx"))->source == dcb.source);
    expect_absent(p, "pfc_pause_frames", prio("2", "rx"));  // DCB value absent -> no entry
    expect(p, "link_pause_frames", {{"direction", "rx"}}, "ETHTOOL_A_PAUSE_STAT_RX_FRAMES", 5,
           "frames");
    expect_absent(p, "link_pause_frames", {{"direction", "tx"}});
    // PMA error counters: 16/8-bit, saturating; used only without the ethtool _phy counter.
    expect(p, "symbol_errors", {}, "symbol_error", 65535, "errors", 16);
    BOOST_TEST(find(p, "symbol_errors")->saturates);
    expect(p, "link_down_events", {}, "link_downed", 3, "events", 8);
    // Optional counter only RDMA netlink shows.
    expect(p, "roce_rx_bytes", {}, "rdma_rx_bytes", 4096, "bytes");
}

BOOST_AUTO_TEST_CASE(pma_scale_overflow_is_absent_value) {
    rh::Port p;
    p.counters = {raw("port_xmit_data", ~std::uint64_t{0} / 2)};
    p.normalized = rh::normalize_port(p, rh::driver_named("mlx5"), rh::driver_named("mlx5"));
    const auto* c = find(p, "port_xmit_data_bytes");
    BOOST_TEST_REQUIRE(c != nullptr);
    BOOST_TEST(!c->value.has_value());
}

BOOST_AUTO_TEST_CASE(rxe_over_mlx5_netdev_uses_both_tables) {
    rh::Port p;
    p.hw_counters = {raw("rcvd_pkts", 10)};
    p.netdev = rh::Netdev{};
    p.netdev->ethtool_stats = {raw("rx_vport_rdma_unicast_packets", 0), raw("rx_prio3_pause", 4)};
    p.normalized = rh::normalize_port(p, rh::driver_named("rxe"), rh::driver_named("mlx5"));
    expect(p, "roce_rx_packets", {}, "rcvd_pkts", 10, "packets");  // RDMA driver's view first
    expect(p, "pfc_pause_frames", prio("3", "rx"), "rx_prio3_pause", 4, "frames");
}

// ---- driver detection ---------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(detect_by_name_and_driver_link) {
    const rh::SysfsRoot healthy(kFixtures + "/mlx5_healthy/sys");
    BOOST_TEST(rh::to_string(rh::detect_rdma_driver(healthy, "mlx5_0")) == "mlx5");
    BOOST_TEST(rh::to_string(rh::detect_netdev_driver(healthy, "ens1f0np0")) == "mlx5");
    const rh::SysfsRoot bnxt(kFixtures + "/bnxt_pfc/sys");
    BOOST_TEST(rh::to_string(rh::detect_netdev_driver(bnxt, "enp65s0f0np0")) == "bnxt");
    const rh::SysfsRoot ice(kFixtures + "/irdma_ice/sys");
    BOOST_TEST(rh::to_string(rh::detect_netdev_driver(ice, "ens2f0")) == "irdma_ice");
    const rh::SysfsRoot rxe(kFixtures + "/rxe_mtu1500/sys");
    BOOST_TEST(rh::to_string(rh::detect_rdma_driver(rxe, "rxe0")) == "rxe");
    BOOST_TEST(rh::to_string(rh::detect_netdev_driver(rxe, "eth0")) == "unknown");
    BOOST_TEST(rh::to_string(rh::detect_rdma_driver(rxe, "hypothetical0")) == "unknown");

    // A udev-renamed mlx5 device (rocep59s0f0): detected by device/driver -> mlx5_core.
    const auto tmp = fs::temp_directory_path() / ("rh_norm_" + std::to_string(::getpid()));
    fs::remove_all(tmp);
    fs::create_directories(tmp / "devices/pci0000:00/0000:3b:00.0/infiniband/rocep59s0f0");
    fs::create_directories(tmp / "bus/pci/drivers/mlx5_core");
    fs::create_directories(tmp / "class/infiniband");
    fs::create_directory_symlink("../../../bus/pci/drivers/mlx5_core",
                                 tmp / "devices/pci0000:00/0000:3b:00.0/driver");
    fs::create_directory_symlink(
        "../../../0000:3b:00.0",
        tmp / "devices/pci0000:00/0000:3b:00.0/infiniband/rocep59s0f0/device");
    fs::create_directory_symlink("../../devices/pci0000:00/0000:3b:00.0/infiniband/rocep59s0f0",
                                 tmp / "class/infiniband/rocep59s0f0");
    BOOST_TEST(rh::to_string(rh::detect_rdma_driver(rh::SysfsRoot(tmp), "rocep59s0f0")) == "mlx5");
    fs::remove_all(tmp);
}

// ---- link-level pause and physical-layer errors (issue 12, classes 5 and 7) ---------------------

namespace {

/// A port whose netdev has `stats` as its ethtool -S counters, normalized by `family`.
rh::Port with_ethtool(std::vector<rh::Counter> stats, rh::DriverFamily family) {
    rh::Port p;
    p.netdev = rh::Netdev{};
    p.netdev->name = "eth0";
    p.netdev->ethtool_stats = std::move(stats);
    p.normalized = rh::normalize_port(p, family, family);
    return p;
}

}  // namespace

BOOST_AUTO_TEST_CASE(mlx5_global_pause_and_phy_errors) {
    // en_stats.c: pport_per_prio_pfc_stats_desc with %s = "global", 802.3 group, physical
    // statistical group and per-lane corrected bits.
    const auto p =
        with_ethtool({raw("rx_global_pause", 101), raw("rx_global_pause_duration", 102),
                      raw("tx_global_pause", 103), raw("tx_global_pause_duration", 104),
                      raw("rx_pause_ctrl_phy", 105), raw("tx_pause_ctrl_phy", 106),
                      raw("rx_crc_errors_phy", 107), raw("rx_symbol_err_phy", 108),
                      raw("rx_pcs_symbol_err_phy", 109), raw("rx_corrected_bits_phy", 110),
                      raw("rx_err_lane_0_phy", 111), raw("rx_err_lane_1_phy", 112),
                      raw("rx_err_lane_2_phy", 113), raw("rx_err_lane_3_phy", 114)},
                     rh::driver_named("mlx5"));
    expect(p, "link_pause_duration_us", {{"direction", "rx"}}, "rx_global_pause_duration", 102,
           "us");
    expect(p, "link_pause_duration_us", {{"direction", "tx"}}, "tx_global_pause_duration", 104,
           "us");
    // The 802.3 group counts the same frames and is there whether pause is on or not.
    expect(p, "link_pause_frames", {{"direction", "rx"}}, "rx_pause_ctrl_phy", 105, "frames");
    expect(p, "link_pause_frames", {{"direction", "tx"}}, "tx_pause_ctrl_phy", 106, "frames");
    expect(p, "fcs_errors", {}, "rx_crc_errors_phy", 107, "frames");
    expect(p, "symbol_errors", {}, "rx_symbol_err_phy", 108, "errors");
    expect(p, "pcs_symbol_errors", {}, "rx_pcs_symbol_err_phy", 109, "errors");
    expect(p, "fec_corrected_bit_errors", {}, "rx_corrected_bits_phy", 110, "bits");
    for (unsigned l = 0; l < 4; ++l)
        expect(p, "lane_corrected_bit_errors", {{"lane", std::to_string(l)}},
               "rx_err_lane_" + std::to_string(l) + "_phy", 111 + l, "bits");
    // mlx5e has no RS-FEC block counters in ethtool -S.
    expect_absent(p, "fec_uncorrectable_blocks");
    expect_absent(p, "fec_corrected_blocks");
}

BOOST_AUTO_TEST_CASE(mlx5_pma_error_counters) {
    rh::Port p;
    p.counters = {raw("port_rcv_errors", 7), raw("link_error_recovery", 255),
                  raw("local_link_integrity_errors", 2), raw("excessive_buffer_overrun_errors", 1)};
    p.normalized = rh::normalize_port(p, rh::driver_named("mlx5"), rh::driver_named("mlx5"));
    expect(p, "port_rcv_errors", {}, "port_rcv_errors", 7, "packets", 16);
    expect(p, "link_error_recovery", {}, "link_error_recovery", 255, "events", 8);
    expect(p, "local_link_integrity_errors", {}, "local_link_integrity_errors", 2, "events", 4);
    expect(p, "excessive_buffer_overrun_errors", {}, "excessive_buffer_overrun_errors", 1, "events",
           4);
    for (const char* n : {"port_rcv_errors", "link_error_recovery", "local_link_integrity_errors"})
        BOOST_TEST(find(p, n)->saturates, n);
}

BOOST_AUTO_TEST_CASE(bnxt_link_pause_and_phy_errors) {
    // bnxt_ethtool.c bnxt_port_stats_arr / bnxt_port_stats_ext_arr
    const auto p = with_ethtool(
        {raw("rx_pause_frames", 201), raw("tx_pause_frames", 202), raw("rx_fcs_err_frames", 203),
         raw("rx_pcs_symbol_err", 204), raw("rx_corrected_bits", 205),
         raw("rx_fec_corrected_blocks", 206), raw("rx_fec_uncorrectable_blocks", 207)},
        rh::driver_named("bnxt"));
    expect(p, "link_pause_frames", {{"direction", "rx"}}, "rx_pause_frames", 201, "frames");
    expect(p, "link_pause_frames", {{"direction", "tx"}}, "tx_pause_frames", 202, "frames");
    expect(p, "fcs_errors", {}, "rx_fcs_err_frames", 203, "frames");
    expect(p, "symbol_errors", {}, "rx_pcs_symbol_err", 204, "errors");
    expect(p, "fec_corrected_bit_errors", {}, "rx_corrected_bits", 205, "bits");
    expect(p, "fec_corrected_blocks", {}, "rx_fec_corrected_blocks", 206, "blocks");
    expect(p, "fec_uncorrectable_blocks", {}, "rx_fec_uncorrectable_blocks", 207, "blocks");
    // bnxt has no global pause duration, no per-lane counters; rx_pcs_symbol_err is mapped once
    expect_absent(p, "link_pause_duration_us", {{"direction", "rx"}});
    expect_absent(p, "lane_corrected_bit_errors", {{"lane", "0"}});
    expect_absent(p, "pcs_symbol_errors");
}

BOOST_AUTO_TEST_CASE(ice_link_pause_and_phy_errors) {
    // ice_ethtool.c ice_gstrings_pf_stats: XOFF frames are the pauses, XON ones resume
    const auto p = with_ethtool({raw("link_xon_rx.nic", 300), raw("link_xoff_rx.nic", 301),
                                 raw("link_xon_tx.nic", 302), raw("link_xoff_tx.nic", 303),
                                 raw("rx_crc_errors.nic", 304), raw("illegal_bytes.nic", 305)},
                                rh::driver_named("irdma_ice"));
    expect(p, "link_pause_frames", {{"direction", "rx"}}, "link_xoff_rx.nic", 301, "frames");
    expect(p, "link_pause_frames", {{"direction", "tx"}}, "link_xoff_tx.nic", 303, "frames");
    expect(p, "fcs_errors", {}, "rx_crc_errors.nic", 304, "frames");
    expect(p, "symbol_errors", {}, "illegal_bytes.nic", 305, "errors");
    expect_absent(p, "fec_corrected_bit_errors");
    expect_absent(p, "link_pause_duration_us", {{"direction", "tx"}});
}

BOOST_AUTO_TEST_CASE(link_pause_ethtool_netlink_fallback_for_every_family) {
    // A driver whose ethtool -S lacks the pause counters: ETHTOOL_A_PAUSE_STAT_{RX,TX}_FRAMES.
    for (const rh::Driver* f : rh::all_drivers()) {
        if (!f->own_netdev) continue;  // rxe: no netdev rows
        rh::Port p;
        p.netdev = rh::Netdev{};
        p.netdev->link_pause.rx_frames = 41;
        p.netdev->link_pause.tx_frames = 42;
        p.netdev->link_pause.source = "ethtool netlink PAUSE_GET";
        p.normalized = rh::normalize_port(p, f, f);
        BOOST_TEST_CONTEXT(rh::to_string(f)) {
            expect(p, "link_pause_frames", {{"direction", "rx"}}, "ETHTOOL_A_PAUSE_STAT_RX_FRAMES",
                   41, "frames");
            expect(p, "link_pause_frames", {{"direction", "tx"}}, "ETHTOOL_A_PAUSE_STAT_TX_FRAMES",
                   42, "frames");
        }
    }
}

BOOST_AUTO_TEST_CASE(kept_resolution_serves_the_same_names_and_no_other) {
    // PortNormalizer keeps resolutions by the raw names: a port with the same names gets what a
    // fresh resolution gives, a port with a renamed counter never gets the kept one.
    const rh::Port port = port_of("mlx5_pfc_upstream", "mlx5_0");
    auto same = [](const std::vector<rh::NormalizedCounter>& a,
                   const std::vector<rh::NormalizedCounter>& b) {
        if (a.size() != b.size()) return false;
        for (std::size_t i = 0; i < a.size(); ++i)
            if (a[i].name != b[i].name || a[i].labels != b[i].labels || a[i].value != b[i].value ||
                a[i].raw_name != b[i].raw_name || a[i].source != b[i].source ||
                a[i].unit != b[i].unit)
                return false;
        return true;
    };
    const rh::DriverFamily mlx5 = rh::driver_named("mlx5");
    const auto first = rh::normalize_port(port, mlx5, mlx5);
    BOOST_TEST_REQUIRE(!first.empty());
    BOOST_TEST(same(rh::normalize_port(port, mlx5, mlx5), first));  // served from the kept one
    BOOST_TEST(same(port.normalized, first));                       // what the discovery gave

    // Rename the hw counter behind a normalized one: it must no longer be used.
    const auto mapped = std::find_if(first.begin(), first.end(), [&](const auto& n) {
        return std::any_of(port.hw_counters.begin(), port.hw_counters.end(),
                           [&](const rh::Counter& c) { return c.source == n.source; });
    });
    BOOST_TEST_REQUIRE((mapped != first.end()));
    rh::Port renamed = port;
    for (auto& c : renamed.hw_counters)
        if (c.source == mapped->source) c.name = "renamed_by_test";
    const auto second = rh::normalize_port(renamed, mlx5, mlx5);
    for (const auto& n : second) BOOST_TEST(n.source != mapped->source);
    // Another netdev family is another key too.
    BOOST_TEST(rh::normalize_port(port, mlx5, nullptr).size() < first.size());
    BOOST_TEST(same(rh::normalize_port(port, mlx5, mlx5), first));  // and back
}

BOOST_AUTO_TEST_SUITE_END()  // test_normalize

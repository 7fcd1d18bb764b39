#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "collectors/collect.h"
#include "collectors/sources/counter_sources.h"

BOOST_AUTO_TEST_SUITE(test_counter_sources)

namespace fs = std::filesystem;

namespace {

const fs::path kFixtures = RH_FIXTURES_DIR;

// A private copy of a fixture tree (<tmp>/<name>/sys), removed at the end of the test.
struct TreeCopy {
    fs::path tree;
    explicit TreeCopy(const std::string& name) {
        tree = fs::temp_directory_path() / ("rh_counters_" + std::to_string(getpid())) / name;
        fs::remove_all(tree);
        fs::create_directories(tree);
        fs::copy(kFixtures / name / "sys", tree / "sys",
                 fs::copy_options::recursive | fs::copy_options::copy_symlinks);
    }
    ~TreeCopy() { fs::remove_all(tree.parent_path()); }
    void write(const fs::path& rel, const std::string& text) const {
        fs::create_directories((tree / rel).parent_path());
        std::ofstream(tree / rel) << text;
    }
    void copy_recording(const std::string& rec, const fs::path& rel) const {
        fs::create_directories((tree / rel).parent_path());
        fs::copy_file(kFixtures / "recordings" / rec, tree / rel);
    }
    rh::Snapshot collect() const { return rh::collect_snapshot({rh::SysfsRoot(tree / "sys"), {}}); }
};

std::size_t notes_starting(const rh::Netdev& n, const std::string& prefix) {
    return static_cast<std::size_t>(
        std::count_if(n.unavailable.begin(), n.unavailable.end(),
                      [&](const rh::Note& x) { return x.text.rfind(prefix, 0) == 0; }));
}

const rh::Counter* find(const std::vector<rh::Counter>& cs, const std::string& name) {
    auto it =
        std::find_if(cs.begin(), cs.end(), [&](const rh::Counter& c) { return c.name == name; });
    return it == cs.end() ? nullptr : &*it;
}

// A DCB source for a netdev without DCB support, counting the questions.
struct NoDcb final : rh::DcbSource {
    int* calls;
    explicit NoDcb(int* c) : calls(c) {}
    rh::Result<rh::nl::Bytes> ieee_get(const std::string& ifname) override {
        ++*calls;
        return rh::Error{"rtnetlink RTM_GETDCB(DCB_CMD_IEEE_GET)", ifname, EOPNOTSUPP, {}};
    }
    std::string describe(const std::string&) const override { return "fake"; }
};

}  // namespace

BOOST_AUTO_TEST_CASE(fixture_without_recordings_says_so_once_each) {
    TreeCopy t("rxe_mtu1500");
    const auto s = t.collect();
    BOOST_TEST_REQUIRE(s.devices.size() == 1u);
    const auto& d = s.devices[0];
    BOOST_TEST(d.problems.empty());  // no RDMA netlink recording: quietly empty
    const auto& p = d.ports.at(0);
    BOOST_TEST(p.nl_hw_counters.empty());
    BOOST_TEST_REQUIRE(p.netdev.has_value());
    const auto& n = *p.netdev;
    BOOST_TEST(n.ethtool_stats.empty());
    BOOST_TEST(!n.dcb.has_value());
    BOOST_TEST(
        notes_starting(
            n, "ethtool statistics unavailable: sysfs root is a fixture and has no recording") ==
        1u);
    BOOST_TEST(
        notes_starting(n, "PFC configuration unavailable on eth0: sysfs root is a fixture") == 1u);
    BOOST_TEST(notes_starting(n, "link pause statistics unavailable") == 1u);
    BOOST_TEST(n.qos.trust.empty());
    BOOST_TEST(n.qos.ecn_source.find("not exposed by this kernel (upstream)") == 0u);
}

BOOST_AUTO_TEST_CASE(fixture_with_recordings_replays_them) {
    TreeCopy t("rxe_mtu1500");
    t.write("ethtool/eth0.txt",
            "NIC statistics:\n     rx_queue_0_packets: 10\n     tx_queue_0_packets: 11\n");
    t.copy_recording("mlx5_pfc3_dscp.hex", "dcb/eth0.hex");
    t.copy_recording("rxe0_1_stat_get.hex", "rdma_netlink/rxe0_1.hex");
    const auto s = t.collect();
    const auto& d = s.devices.at(0);
    BOOST_TEST(d.problems.empty());
    const auto& p = d.ports.at(0);
    BOOST_TEST(p.nl_hw_counters.size() == 15u);
    BOOST_TEST_REQUIRE(find(p.nl_hw_counters, "rcvd_pkts") != nullptr);
    BOOST_TEST(*find(p.nl_hw_counters, "rcvd_pkts")->value == 80u);

    const auto& n = *p.netdev;
    BOOST_TEST_REQUIRE(n.ethtool_stats.size() == 2u);
    BOOST_TEST(*find(n.ethtool_stats, "tx_queue_0_packets")->value == 11u);
    BOOST_TEST_REQUIRE(n.dcb.has_value());
    BOOST_TEST(*n.dcb->pfc_enabled == 0x08);
    BOOST_TEST(n.qos.trust == "dscp");
    BOOST_TEST(n.qos.trust_source == "DCB APP table (selector 5 entries)");
    BOOST_TEST(notes_starting(n, "ethtool") == 0u);
    BOOST_TEST(notes_starting(n, "PFC") == 0u);
}

BOOST_AUTO_TEST_CASE(ofed_trust_file_wins_and_ecn_enable_is_read) {
    TreeCopy t("rxe_mtu1500");
    t.copy_recording("mlx5_pfc3_dscp.hex", "dcb/eth0.hex");
    t.write("sys/class/net/eth0/qos/trust", "pcp\n");
    t.write("sys/class/net/eth0/ecn/roce_np/enable/3", "1\n");
    t.write("sys/class/net/eth0/ecn/roce_np/enable/0", "0\n");
    t.write("sys/class/net/eth0/ecn/roce_rp/enable/3", "1\n");
    const auto s = t.collect();
    const auto& q = s.devices.at(0).ports.at(0).netdev->qos;
    BOOST_TEST(q.trust == "pcp");
    BOOST_TEST(q.trust_source.find("class/net/eth0/qos/trust") != std::string::npos);
    BOOST_TEST(q.ecn_source.find("class/net/eth0/ecn") != std::string::npos);
    BOOST_TEST((q.ecn_np_enabled[3] == std::optional<bool>(true)));
    BOOST_TEST((q.ecn_np_enabled[0] == std::optional<bool>(false)));
    BOOST_TEST(!q.ecn_np_enabled[1].has_value());
    BOOST_TEST((q.ecn_rp_enabled[3] == std::optional<bool>(true)));
}

BOOST_AUTO_TEST_CASE(aer_files_reach_every_link_end) {
    TreeCopy t("mlx5_x8");
    t.write("sys/devices/pci0000:00/0000:00:01.0/0000:3b:00.0/aer_dev_correctable",
            "Receiver Error 5\nBad TLP 1\nTOTAL_ERR_COR 6\n");
    t.write("sys/devices/pci0000:00/0000:00:01.0/aer_dev_fatal",
            "Surprise Down Error 1\nTOTAL_ERR_FATAL 1\n");
    const auto s = t.collect();
    const auto& pcie = s.devices.at(0).pcie;
    BOOST_TEST_REQUIRE(pcie.size() == 2u);
    BOOST_TEST_REQUIRE(find(pcie[0].aer, "aer_dev_correctable/Receiver Error") != nullptr);
    BOOST_TEST(*find(pcie[0].aer, "aer_dev_correctable/Receiver Error")->value == 5u);
    BOOST_TEST(*find(pcie[1].aer, "aer_dev_fatal/Surprise Down Error")->value == 1u);
}

BOOST_AUTO_TEST_CASE(dcb_not_supported_is_asked_and_noted_once_per_netdev) {
    int calls = 0;
    rh::CounterSources src;
    src.dcb = std::make_unique<NoDcb>(&calls);
    const rh::SysfsRoot sysfs(kFixtures / "rxe_mtu1500" / "sys");
    rh::CounterCollector counters(std::move(src), sysfs);
    rh::Device d1, d2;
    d1.name = "rxe0";
    d2.name = "rxe1";
    for (auto* d : {&d1, &d2})
        for (unsigned p : {1u, 2u}) {
            rh::Port port;
            port.number = p;
            port.netdev = rh::Netdev{};
            port.netdev->name = "eth0";
            d->ports.push_back(port);
        }
    counters.add_device(d1);
    counters.add_device(d2);
    BOOST_TEST(calls == 1);
    for (auto* d : {&d1, &d2})
        for (const auto& port : d->ports) {
            BOOST_TEST(notes_starting(*port.netdev, "PFC configuration unavailable on eth0: ") ==
                       1u);
            BOOST_TEST(port.netdev->unavailable.size() == 1u);
            BOOST_TEST(!port.netdev->dcb.has_value());
            BOOST_TEST(port.netdev->unavailable[0].text.find("Operation not supported") !=
                       std::string::npos);
        }
}

BOOST_AUTO_TEST_SUITE_END()  // test_counter_sources

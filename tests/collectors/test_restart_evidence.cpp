// Issue 26 readings of bundles: reboots and counter resets between two captures of one host
// (collectors/bundle/restart_evidence.h), told from the boot itself; the kernel's PCIe line
// applied to the whole card; LnkCtl2's Target Link Speed; the link layer from `rdma link` LIDs.
#include <boost/test/unit_test.hpp>

#include <string>
#include <utility>
#include <vector>

#include "collectors/bundle/bundle.h"
#include "collectors/bundle/restart_evidence.h"

BOOST_AUTO_TEST_SUITE(test_restart_evidence)

using namespace rh;

namespace {

BundleCapture capture(const std::string& dir,
                      const std::vector<std::pair<std::string, std::string>>& files) {
    auto r = import_bundle_files(dir, files);
    BOOST_TEST_REQUIRE(r.ok(), (r.ok() ? "" : r.error().message()));
    return std::move(*r);
}

/// An irdma hw_counters listing of one port with `bytes` received (a 64-bit counter) and an
/// mlx5-style ip -s -s link is not needed: the listing alone names the device.
std::string hw_counters(unsigned long long bytes) {
    return "/sys/class/infiniband/rocep175s0f0/ports/1/hw_counters/ip4InOctets:" +
           std::to_string(bytes) +
           "\n/sys/class/infiniband/rocep175s0f0/ports/1/hw_counters/ip4InPkts:" +
           std::to_string(bytes / 1000) + "\n";
}

bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_CASE(uptime_that_fell_is_a_reboot_with_sources) {
    const auto a = capture("t0", {{"uptime.txt",
                                   " 09:58:03 up 41 days,  3:12,  2 users,  load "
                                   "average: 9.81, 9.77, 9.90\n"},
                                  {"hw.txt", hw_counters(1000000000000)}});
    const auto b = capture("t1", {{"uptime.txt",
                                   " 10:04:12 up 4 min,  1 user,  load average: "
                                   "3.02, 1.10, 0.41\n"},
                                  {"hw.txt", hw_counters(7110223000)}});
    const Restart r = restart_between(a, b, 369);
    BOOST_TEST(static_cast<int>(r.kind) == static_cast<int>(Restart::Kind::reboot));
    BOOST_TEST(contains(r.evidence, "uptime fell"));
    BOOST_TEST(contains(r.evidence, "t0/uptime.txt:1"));
    BOOST_TEST(contains(r.evidence, "t1/uptime.txt:1"));
    // Minute resolution: 60 s on, `uptime` may still print the same minute: no reboot.
    const auto c = capture("t2", {{"uptime.txt",
                                   " 10:05:12 up 4 min,  1 user,  load average: "
                                   "3.02, 1.10, 0.41\n"},
                                  {"hw.txt", hw_counters(7210223000)}});
    BOOST_TEST(static_cast<int>(restart_between(b, c, 60).kind) ==
               static_cast<int>(Restart::Kind::none));
}

BOOST_AUTO_TEST_CASE(uptime_short_of_the_time_between_is_a_reboot) {
    // 2 h between the captures, the uptime grew by 10 min: the host rebooted in between.
    const auto a = capture("t0", {{"u", "35000.00 1000.00\n"}});
    const auto b = capture("t1", {{"u", "35600.00 1100.00\n"}});
    BOOST_TEST(static_cast<int>(restart_between(a, b, 7200).kind) ==
               static_cast<int>(Restart::Kind::reboot));
    BOOST_TEST(static_cast<int>(restart_between(a, b, 600).kind) ==
               static_cast<int>(Restart::Kind::none));
    BOOST_TEST(static_cast<int>(restart_between(a, b, std::nullopt).kind) ==
               static_cast<int>(Restart::Kind::none));
}

BOOST_AUTO_TEST_CASE(boot_id_decides) {
    const std::string id0 = "6d3f1a9e-2c47-4b8e-9d0a-3f5e7c1b2a90";
    const std::string id1 = "0b7c2a11-93de-4f21-8a4e-55c1d0e9f7a3";
    const auto a = capture("t0", {{"boot_id", id0 + "\n"}, {"hw", hw_counters(5000000)}});
    const auto b = capture("t1", {{"boot_id", id1 + "\n"}, {"hw", hw_counters(6000000)}});
    BOOST_TEST(a.boot_id == "6d3f1a9e2c474b8e9d0a3f5e7c1b2a90");
    BOOST_TEST(a.boot_id_source == "t0/boot_id:1");
    const Restart r = restart_between(a, b, 30);
    BOOST_TEST(static_cast<int>(r.kind) == static_cast<int>(Restart::Kind::reboot));
    BOOST_TEST(contains(r.evidence, "0b7c2a1193de4f218a4e55c1d0e9f7a3"));
    // The same boot: counters that fell are a reset (a driver reload), not a reboot.
    const auto c = capture("t2", {{"boot_id", id1 + "\n"}, {"hw", hw_counters(1000)}});
    const Restart reset = restart_between(b, c, 30);
    BOOST_TEST(static_cast<int>(reset.kind) == static_cast<int>(Restart::Kind::reset));
    BOOST_TEST(contains(reset.evidence, "ip4InOctets fell from 6000000 to 1000"));
}

// journalctl prints "-- Boot <id> --" before each boot's lines: the last is the capture's boot,
// the same id as the boot_id file's (without dashes).
BOOST_AUTO_TEST_CASE(journalctl_boot_separator_is_the_boot_id) {
    const std::string journal =
        "-- Boot 0b7c2a1193de4f218a4e55c1d0e9f7a3 --\n"
        "Feb 10 09:00:01 gpu01 kernel: Linux version 6.8.0-45-generic\n"
        "-- Boot 6D3F1A9E2C474B8E9D0A3F5E7C1B2A90 --\n"
        "Feb 10 10:00:03 gpu01 kernel: Linux version 6.8.0-48-generic\n";
    const auto a = capture("t0", {{"journal.txt", journal}});
    BOOST_TEST(a.boot_id == "6d3f1a9e2c474b8e9d0a3f5e7c1b2a90");
    BOOST_TEST(a.boot_id_source == "t0/journal.txt:3 (-- Boot line)");
    const auto b = capture("t1", {{"boot_id", "6d3f1a9e-2c47-4b8e-9d0a-3f5e7c1b2a90\n"}});
    BOOST_TEST(static_cast<int>(restart_between(a, b, 30).kind) ==
               static_cast<int>(Restart::Kind::none));
    const auto c = capture("t2", {{"boot_id", "0b7c2a11-93de-4f21-8a4e-55c1d0e9f7a3\n"}});
    BOOST_TEST(static_cast<int>(restart_between(b, c, 30).kind) ==
               static_cast<int>(Restart::Kind::reboot));
}

BOOST_AUTO_TEST_CASE(btime_from_proc_stat) {
    const auto a = capture("t0", {{"stat", "cpu  1 2 3 4\nbtime 1770000000\nprocesses 9\n"}});
    const auto b = capture("t1", {{"stat", "btime 1770717612\n"}});
    BOOST_TEST_REQUIRE(a.btime_s.has_value());
    BOOST_TEST(*a.btime_s == 1770000000.0);
    BOOST_TEST(static_cast<int>(restart_between(a, b, std::nullopt).kind) ==
               static_cast<int>(Restart::Kind::reboot));
    BOOST_TEST(static_cast<int>(restart_between(a, a, std::nullopt).kind) ==
               static_cast<int>(Restart::Kind::none));
}

// A 32-bit mlx5 Q counter past 2^32 wraps to a small value: no reset, the same host.
BOOST_AUTO_TEST_CASE(wrapped_32bit_counter_is_no_reset) {
    const auto listing = [](unsigned long long writes, unsigned long long cnps) {
        return "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/rx_write_requests:" +
               std::to_string(writes) +
               "\n/sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent:" +
               std::to_string(cnps) + "\n";
    };
    const auto a = capture("t0", {{"hw", listing(4292577000ull, 39110044301ull)}});
    const auto b = capture("t1", {{"hw", listing(2186704ull, 39110050000ull)}});
    BOOST_TEST(static_cast<int>(restart_between(a, b, 30).kind) ==
               static_cast<int>(Restart::Kind::none));
    BOOST_TEST(!implausible_successor(a.identity, b.identity, 30).has_value());
    // The 64-bit CNP counter falling is a reset.
    const auto c = capture("t2", {{"hw", listing(2200000ull, 12ull)}});
    BOOST_TEST(static_cast<int>(restart_between(b, c, 30).kind) ==
               static_cast<int>(Restart::Kind::reset));
}

// drivers/pci/pci.c prints the line once per card from any of its functions; lspci cut before
// LnkSta shows another function: the line still gives the card's link.
BOOST_AUTO_TEST_CASE(kernel_pcie_line_applies_to_every_function_of_the_card) {
    const std::string lspci =
        "b3:00.0 Ethernet controller: Mellanox Technologies MT2892 Family [ConnectX-6 Dx]\n"
        "\tSubsystem: Mellanox Technologies Device 0016\n"
        "\tKernel driver in use: mlx5_core\n";
    for (const std::string speed : {"8 GT/s x8", "8.0 GT/s PCIe x8"}) {
        BOOST_TEST_CONTEXT(speed) {
            const std::string cap = speed == "8 GT/s x8" ? "16 GT/s x16" : "16.0 GT/s PCIe x16";
            const std::string dmesg =
                "[    6.912] mlx5_core 0000:b3:00.1: 63.008 Gb/s available PCIe bandwidth, "
                "limited by " +
                speed + " link at 0000:b2:00.0 (capable of 252.048 Gb/s with " + cap + " link)\n";
            const auto c = capture("t0", {{"lspci", lspci}, {"dmesg", dmesg}});
            BOOST_TEST_REQUIRE(c.snapshot.devices.size() == 1u);
            const auto& chain = c.snapshot.devices[0].pcie;
            BOOST_TEST_REQUIRE(chain.size() == 2u);
            BOOST_TEST(chain[0].bdf == "0000:b3:00.0");
            BOOST_TEST(chain[0].max_width == 16u);  // "capable of": the card's own
            BOOST_TEST(chain[1].bdf == "0000:b2:00.0");
            BOOST_TEST(chain[1].current_width == 8u);
            BOOST_TEST(*chain[1].current_speed_gts == 8.0);
            BOOST_TEST(chain[1].source == "t0/dmesg:1");
        }
    }
}

BOOST_AUTO_TEST_CASE(lnkctl2_target_link_speed_is_read) {
    const std::string lspci =
        "00:01.0 PCI bridge: Intel Corporation Device 09a4 (rev 04)\n"
        "\tBus: primary=00, secondary=3b, subordinate=3b, sec-latency=0\n"
        "\tCapabilities: [40] Express (v2) Root Port (Slot+), MSI 00\n"
        "\t\tLnkCap:\tPort #0, Speed 16GT/s, Width x16, ASPM L1, Exit Latency L1 <16us\n"
        "\t\tLnkSta:\tSpeed 8GT/s, Width x16\n"
        "\t\tLnkCtl2: Target Link Speed: 8GT/s, EnterCompliance- SpeedDis-\n"
        "3b:00.0 Ethernet controller: Mellanox Technologies MT2892 Family [ConnectX-6 Dx]\n"
        "\tCapabilities: [60] Express (v2) Endpoint, MSI 00\n"
        "\t\tLnkCap:\tPort #0, Speed 16GT/s, Width x16, ASPM not supported\n"
        "\t\tLnkSta:\tSpeed 8GT/s (downgraded), Width x16\n"
        "\t\tLnkCtl2: Target Link Speed: 16GT/s, EnterCompliance- SpeedDis-\n";
    const auto c = capture("t0", {{"lspci", lspci}});
    BOOST_TEST_REQUIRE(c.snapshot.devices.size() == 1u);
    const auto& chain = c.snapshot.devices[0].pcie;
    BOOST_TEST_REQUIRE(chain.size() == 2u);
    BOOST_TEST(*chain[1].target_speed_gts == 8.0);
    BOOST_TEST(*chain[0].target_speed_gts == 16.0);
}

// `rdma link` prints no link layer: a non-zero LID or SM LID means InfiniBand, LID 0 nothing.
BOOST_AUTO_TEST_CASE(rdma_link_lid_tells_infiniband) {
    const auto c =
        capture("t0", {{"rdma",
                        "link mlx5_0/1 subnet_prefix fe80:0000:0000:0000 lid 12 sm_lid 1 lmc 0 "
                        "state ACTIVE physical_state LINK_UP\n"
                        "link mlx5_1/1 subnet_prefix fe80:0000:0000:0000 lid 0 sm_lid 0 lmc 0 "
                        "state INIT physical_state LINK_UP\n"}});
    BOOST_TEST_REQUIRE(c.snapshot.devices.size() == 2u);
    for (const Device& d : c.snapshot.devices) {
        BOOST_TEST_REQUIRE(d.ports.size() == 1u);
        BOOST_TEST(d.ports[0].link_layer == (d.name == "mlx5_0" ? "InfiniBand" : ""),
                   d.name << " " << d.ports[0].link_layer);
    }
}

BOOST_AUTO_TEST_SUITE_END()  // test_restart_evidence

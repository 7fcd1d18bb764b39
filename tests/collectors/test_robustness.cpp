// Collectors on corrupted copies of fixture trees: whatever cannot be read or made sense of is
// recorded (absent value + a Device::problems note naming the file), never dropped silently
// and never turned into a plausible value.
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "collectors/collect.h"

BOOST_AUTO_TEST_SUITE(test_collectors_robustness)

namespace fs = std::filesystem;

namespace {

const fs::path kFixtures = RH_FIXTURES_DIR;
const std::string kPort = "sys/class/infiniband/mlx5_0/ports/1/";
const std::string kFn = "sys/devices/pci0000:00/0000:00:01.0/0000:3b:00.0/";

// A private copy of a fixture tree (<tmp>/<name>/sys), removed at the end of the test.
struct TreeCopy {
    fs::path tree;
    explicit TreeCopy(const std::string& name = "mlx5_x8") {
        tree = fs::temp_directory_path() / ("rh_robust_" + std::to_string(getpid())) / name;
        fs::remove_all(tree);
        fs::create_directories(tree);
        fs::copy(kFixtures / name / "sys", tree / "sys",
                 fs::copy_options::recursive | fs::copy_options::copy_symlinks);
    }
    ~TreeCopy() { fs::remove_all(tree.parent_path()); }
    fs::path at(const std::string& rel) const { return tree / rel; }
    void write(const std::string& rel, const std::string& text) const {
        fs::remove_all(at(rel));
        std::ofstream(at(rel), std::ios::binary) << text;
    }
    void make_dir(const std::string& rel) const {
        fs::remove_all(at(rel));
        fs::create_directories(at(rel));
    }
    void symlink(const std::string& rel, const fs::path& target) const {
        fs::remove_all(at(rel));
        fs::create_symlink(target, at(rel));
    }
    rh::Snapshot collect() const { return rh::collect_snapshot({rh::SysfsRoot(tree / "sys"), {}}); }
};

// Number of problems of the only device whose text contains every one of `parts`.
std::size_t problems_with(const rh::Snapshot& s, std::initializer_list<std::string> parts) {
    BOOST_TEST_REQUIRE(s.devices.size() == 1u);
    const auto& ps = s.devices[0].problems;
    return static_cast<std::size_t>(std::count_if(ps.begin(), ps.end(), [&](const rh::Note& n) {
        return std::all_of(parts.begin(), parts.end(), [&](const std::string& p) {
            return n.text.find(p) != std::string::npos;
        });
    }));
}

std::string dump(const rh::Snapshot& s) {
    std::string out;
    for (const auto& d : s.devices)
        for (const auto& n : d.problems) out += n.subject + ": " + n.text + "\n";
    return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(junk_state_and_directory_phys_state_are_absent_with_notes) {
    TreeCopy t;
    t.write(kPort + "state", std::string("\x01\xff\xfe junk\n", 9));
    t.make_dir(kPort + "phys_state");
    const auto s = t.collect();
    const auto& p = s.devices.at(0).ports.at(0);
    BOOST_TEST(!p.state_code.has_value());
    BOOST_TEST(p.state.empty());
    BOOST_TEST(!p.phys_state_code.has_value());
    BOOST_TEST(p.phys_state.empty());
    BOOST_TEST(problems_with(s, {"ports/1/state: unparsable '"}) == 1u, dump(s));
    BOOST_TEST(problems_with(s, {"ports/1/phys_state: is a directory"}) == 1u, dump(s));
}

BOOST_AUTO_TEST_CASE(state_without_number_is_unparsable) {
    TreeCopy t;
    t.write(kPort + "state", "ACTIVE\n");
    t.write(kPort + "link_layer", std::string("Ether\x02net", 9));
    const auto s = t.collect();
    const auto& p = s.devices.at(0).ports.at(0);
    BOOST_TEST(!p.state_code.has_value());
    BOOST_TEST(p.state.empty());
    BOOST_TEST(p.link_layer.empty());
    BOOST_TEST(problems_with(s, {"ports/1/state: unparsable 'ACTIVE'"}) == 1u, dump(s));
    BOOST_TEST(problems_with(s, {"ports/1/link_layer: unparsable 'Ether?net'"}) == 1u, dump(s));
}

BOOST_AUTO_TEST_CASE(device_without_ports_or_with_non_numeric_ports_has_a_note) {
    {
        TreeCopy t;
        fs::remove_all(t.at("sys/class/infiniband/mlx5_0/ports"));
        const auto s = t.collect();
        BOOST_TEST(s.devices.at(0).ports.empty());
        BOOST_TEST(problems_with(s, {"no ports under ", "mlx5_0/ports"}) == 1u, dump(s));
    }
    {
        TreeCopy t;
        fs::remove_all(t.at("sys/class/infiniband/mlx5_0/ports/1"));
        t.make_dir("sys/class/infiniband/mlx5_0/ports/abc");
        const auto s = t.collect();
        BOOST_TEST(s.devices.at(0).ports.empty());
        BOOST_TEST(problems_with(s, {"no ports under "}) == 1u, dump(s));
        BOOST_TEST(problems_with(s, {"'abc': not a port number"}) == 1u, dump(s));
    }
}

BOOST_AUTO_TEST_CASE(dangling_or_file_class_entry_is_a_device_with_a_note) {
    {
        TreeCopy t;
        t.symlink("sys/class/infiniband/mlx5_0", "../../devices/nowhere/mlx5_0");
        const auto s = t.collect();
        BOOST_TEST(s.devices.at(0).name == "mlx5_0");
        BOOST_TEST(problems_with(s, {"class/infiniband/mlx5_0: dangling link"}) == 1u, dump(s));
    }
    {
        TreeCopy t;
        t.write("sys/class/infiniband/mlx5_0", "x\n");
        const auto s = t.collect();
        BOOST_TEST(problems_with(s, {"class/infiniband/mlx5_0: is not a directory"}) == 1u,
                   dump(s));
    }
}

BOOST_AUTO_TEST_CASE(unknown_pcie_speed_and_zero_width_are_absent_with_a_note) {
    TreeCopy t;
    t.write(kFn + "current_link_speed", "Unknown\n");
    t.write(kFn + "current_link_width", "0\n");
    t.write(kFn + "max_link_speed", "Unknown speed\n");
    const auto s = t.collect();
    const auto& f = s.devices.at(0).pcie.at(0);
    BOOST_TEST(f.bdf == "0000:3b:00.0");
    BOOST_TEST(!f.current_speed_gts.has_value());
    BOOST_TEST(!f.current_width.has_value());
    BOOST_TEST(!f.max_speed_gts.has_value());
    BOOST_TEST(problems_with(s, {"0000:3b:00.0: PCIe link speed/width unknown (link down or "
                                 "device powered off?)"}) == 1u,
               dump(s));
}

BOOST_AUTO_TEST_CASE(looping_or_escaping_device_link_is_a_note) {
    {
        TreeCopy t;
        t.symlink("sys/class/infiniband/mlx5_0/device", "device");
        const auto s = t.collect();
        BOOST_TEST(s.devices.at(0).pcie.empty());
        BOOST_TEST(problems_with(s, {"mlx5_0/device: too many levels of symbolic links"}) == 1u,
                   dump(s));
    }
    {
        TreeCopy t;
        t.symlink("sys/class/infiniband/mlx5_0/device", fs::temp_directory_path());
        const auto s = t.collect();
        BOOST_TEST(s.devices.at(0).pcie.empty());
        BOOST_TEST(problems_with(s, {"outside"}) == 1u, dump(s));
    }
}

// `cp -rL` turns the `device` symlink into a copy of the function's folder: its own link is read
// there and marked as having no upstream ports read (an empty chain would read as rxe's "no PCI
// function" and let the PCIe rule pass unjudged).
BOOST_AUTO_TEST_CASE(copied_device_folder_reads_the_function_and_says_upstream_unread) {
    TreeCopy t;
    const fs::path link = t.at("sys/class/infiniband/mlx5_0/device");
    const fs::path fn = fs::canonical(link);
    fs::remove(link);
    fs::create_directories(link);
    for (const char* f : {"current_link_speed", "current_link_width", "max_link_speed",
                          "max_link_width", "numa_node"})
        fs::copy_file(fn / f, link / f);
    const auto s = t.collect();
    const auto& chain = s.devices.at(0).pcie;
    BOOST_TEST_REQUIRE(chain.size() == 1u);
    BOOST_TEST(chain[0].is_function);
    BOOST_TEST(chain[0].current_width.value_or(0) == 8u);  // mlx5_x8: the function trained at x8
    BOOST_TEST(chain[0].upstream_unread.find("cp -L") != std::string::npos);
    BOOST_TEST(problems_with(s, {"is a folder, not the kernel's symlink"}) == 1u, dump(s));
}

BOOST_AUTO_TEST_CASE(rxe_without_device_link_has_no_pcie_note) {
    const auto s = rh::collect_snapshot({rh::SysfsRoot(kFixtures / "rxe_mtu1500" / "sys"), {}});
    BOOST_TEST(s.devices.at(0).pcie.empty());
    BOOST_TEST(s.devices.at(0).problems.empty(), dump(s));
}

BOOST_AUTO_TEST_CASE(implausible_netdev_mtu_is_absent_with_a_note) {
    for (const std::string bad : {"-1", "0", "4294967296", "67", "65537"}) {
        BOOST_TEST_CONTEXT("mtu " << bad) {
            TreeCopy t;
            t.write("sys/class/net/ens1f0np0/mtu", bad + "\n");
            const auto s = t.collect();
            const auto& n = s.devices.at(0).ports.at(0).netdev;
            BOOST_TEST_REQUIRE(n.has_value());
            BOOST_TEST(!n->mtu_bytes.has_value());
            BOOST_TEST(problems_with(s, {"class/net/ens1f0np0/mtu: ",
                                         "is not a valid MTU (68..65536)"}) == 1u,
                       dump(s));
        }
    }
    TreeCopy t;
    t.write("sys/class/net/ens1f0np0/mtu", "65536\n");
    const auto s = t.collect();
    BOOST_TEST((s.devices.at(0).ports.at(0).netdev->mtu_bytes == 65536u));
}

BOOST_AUTO_TEST_CASE(directory_counter_looping_netdev_and_huge_junk_are_reported) {
    TreeCopy t;
    t.make_dir(kPort + "hw_counters/out_of_buffer");
    t.write(kPort + "hw_counters/out_of_sequence", std::string(60000, 'Z'));
    t.write(kPort + "hw_counters/packet_seq_err", std::string(200000000 / 1000, 'Z'));
    t.symlink("sys/class/net/ens1f0np0", "ens1f0np0");
    const auto s = t.collect();
    const auto& p = s.devices.at(0).ports.at(0);
    auto find = [&](const std::string& name) {
        return std::find_if(p.hw_counters.begin(), p.hw_counters.end(),
                            [&](const rh::Counter& c) { return c.name == name; });
    };
    BOOST_TEST_REQUIRE((find("out_of_buffer") != p.hw_counters.end()));
    BOOST_TEST(!find("out_of_buffer")->value.has_value());
    BOOST_TEST(find("out_of_buffer")->error.find("is a directory") != std::string::npos,
               find("out_of_buffer")->error);
    BOOST_TEST_REQUIRE((find("out_of_sequence") != p.hw_counters.end()));
    const std::string& err = find("out_of_sequence")->error;
    BOOST_TEST(err.size() < 120u, err);
    BOOST_TEST(err.find(std::string(40, 'Z') + "...'") != std::string::npos, err);
    BOOST_TEST_REQUIRE((find("packet_seq_err") != p.hw_counters.end()));
    BOOST_TEST(!find("packet_seq_err")->value.has_value());
    BOOST_TEST(find("packet_seq_err")->error.size() < 300u);
    BOOST_TEST(!p.netdev.has_value());
    BOOST_TEST(problems_with(s, {"class/net/ens1f0np0", "too many levels of symbolic links"}) == 1u,
               dump(s));
}

BOOST_AUTO_TEST_CASE(fixture_root_gives_one_host_note) {
    const auto s =
        rh::collect_snapshot({rh::SysfsRoot(kFixtures / "two_devices_one_bad" / "sys"), {}});
    BOOST_TEST(s.devices.size() > 1u);
    const auto n = std::count_if(s.notes.begin(), s.notes.end(), [](const rh::Note& x) {
        return x.text.find("is not this host's /sys: netdev facts come from ") !=
                   std::string::npos &&
               x.text.find("class/net, verbs facts are unavailable") != std::string::npos;
    });
    BOOST_TEST(n == 1);
    BOOST_TEST(!s.host.empty());
}

BOOST_AUTO_TEST_SUITE_END()  // test_collectors_robustness

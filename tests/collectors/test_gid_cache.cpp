// The GID-table cache of discovery (collectors/sources/gid_cache.h) on a copy of a fixture tree:
// a table is served from the cache while unchanged, and a GID added, changed or removed is seen
// by the next discovery; likewise the PCIe chain's kept `device` path (a moved function) and
// the counter files' kept descriptors.
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "collectors/collect.h"
#include "collectors/sources/gid_cache.h"
#include "collectors/sources/kept_files.h"
#include "collectors/sources/rdma_sysfs.h"

BOOST_AUTO_TEST_SUITE(test_gid_cache)

namespace fs = std::filesystem;

namespace {

const fs::path kFixtures = RH_FIXTURES_DIR;
const std::string kPort = "class/infiniband/mlx5_0/ports/1";

struct Tree {
    fs::path dir = fs::temp_directory_path() / ("rh_gid_cache_" + std::to_string(getpid()));
    rh::SysfsRoot root{dir / "sys"};
    Tree() {
        fs::remove_all(dir);
        fs::create_directories(dir);
        fs::copy(kFixtures / "mlx5_healthy" / "sys", dir / "sys",
                 fs::copy_options::recursive | fs::copy_options::copy_symlinks);
    }
    ~Tree() { fs::remove_all(dir); }
    void write(const std::string& rel, const std::string& text) const {
        std::ofstream(dir / "sys" / rel) << text << "\n";
    }
    const rh::Port& port(const rh::Snapshot& s) const { return s.devices.at(0).ports.at(0); }
};

bool has_gid(const rh::Port& p, unsigned index, const std::string& gid) {
    return std::any_of(p.gids.begin(), p.gids.end(),
                       [&](const rh::Gid& g) { return g.index == index && g.gid == gid; });
}

}  // namespace

BOOST_AUTO_TEST_CASE(unchanged_table_is_read_once) {
    Tree t;
    rh::GidCache cache;
    const auto first = cache.gids(t.root, kPort);
    const auto again = cache.gids(t.root, kPort);
    BOOST_TEST(cache.reads() == 1u);
    BOOST_TEST(first.size() == again.size());
    BOOST_TEST(first.size() == rh::read_gids(t.root, kPort).size());
}

BOOST_AUTO_TEST_CASE(added_changed_and_removed_gids_are_seen_by_the_next_discovery) {
    Tree t;
    const rh::Snapshot before = rh::collect_snapshot({t.root, {}});
    const std::string v4 = "0000:0000:0000:0000:0000:ffff:0a00:0063";
    BOOST_TEST(!has_gid(t.port(before), 9, v4));

    // A new entry (as the kernel fills index 9 when an address is added).
    t.write(kPort + "/gids/9", v4);
    t.write(kPort + "/gid_attrs/types/9", "RoCE v2");
    t.write(kPort + "/gid_attrs/ndevs/9", "ens1f0np0");
    const rh::Snapshot added = rh::collect_snapshot({t.root, {}});
    BOOST_TEST(has_gid(t.port(added), 9, v4));

    // An entry rewritten in place, then cleared (all-zero: not in use).
    const std::string other = "0000:0000:0000:0000:0000:ffff:0a00:0064";
    t.write(kPort + "/gids/9", other);
    BOOST_TEST(has_gid(t.port(rh::collect_snapshot({t.root, {}})), 9, other));
    t.write(kPort + "/gids/9", "0000:0000:0000:0000:0000:0000:0000:0000");
    const rh::Snapshot cleared = rh::collect_snapshot({t.root, {}});
    BOOST_TEST(t.port(cleared).gids.size() == t.port(before).gids.size());

    // The type of an entry changed alone.
    t.write(kPort + "/gid_attrs/types/1", "IB/RoCE v1");
    const rh::Snapshot retyped = rh::collect_snapshot({t.root, {}});
    const auto& gids = t.port(retyped).gids;
    const auto g1 =
        std::find_if(gids.begin(), gids.end(), [](const rh::Gid& g) { return g.index == 1; });
    BOOST_REQUIRE(g1 != gids.end());
    BOOST_TEST(g1->type == "IB/RoCE v1");
}

BOOST_AUTO_TEST_CASE(a_tree_removed_and_copied_again_is_read_again) {
    rh::GidCache cache;
    std::size_t n = 0;
    {
        Tree t;
        n = cache.gids(t.root, kPort).size();
    }
    Tree t;  // the same path, another tree
    t.write(kPort + "/gids/9", "0000:0000:0000:0000:0000:ffff:0a00:0063");
    BOOST_TEST(cache.gids(t.root, kPort).size() == n + 1);
    BOOST_TEST(cache.reads() == 2u);
}

// The PCIe chain's kept `device` resolution (collectors/sources/pcie.h): a link re-pointed to
// another function, or the function moved under another bridge, is seen by the next discovery.
BOOST_AUTO_TEST_CASE(a_moved_pci_function_is_seen_by_the_next_discovery) {
    Tree t;
    const fs::path bridge = t.dir / "sys/devices/pci0000:00/0000:00:01.0";
    auto chain = [&] {
        std::vector<std::string> bdfs;
        const rh::Snapshot s = rh::collect_snapshot({t.root, {}});
        for (const auto& l : s.devices.at(0).pcie) bdfs.push_back(l.bdf);
        return bdfs;
    };
    const std::vector<std::string> first = {"0000:3b:00.0", "0000:00:01.0"};
    BOOST_TEST(chain() == first, boost::test_tools::per_element());
    BOOST_TEST(chain() == first, boost::test_tools::per_element());  // kept

    // The device link re-pointed to a second function beside the first.
    fs::create_directory(bridge / "0000:3b:00.1");
    for (const auto& f : fs::directory_iterator(bridge / "0000:3b:00.0"))
        if (f.is_regular_file())
            fs::copy_file(f.path(), bridge / "0000:3b:00.1" / f.path().filename());
    const fs::path device = bridge / "0000:3b:00.0/infiniband/mlx5_0/device";
    fs::remove(device);
    fs::create_symlink("../../../0000:3b:00.1", device);
    const std::vector<std::string> other = {"0000:3b:00.1", "0000:00:01.0"};
    BOOST_TEST(chain() == other, boost::test_tools::per_element());

    // Back, then the whole function moved under another bridge (the class link follows it).
    fs::remove(device);
    fs::create_symlink("../../../0000:3b:00.0", device);
    BOOST_TEST(chain() == first, boost::test_tools::per_element());
    fs::rename(bridge, t.dir / "sys/devices/pci0000:00/0000:00:02.0");
    const fs::path cls = t.dir / "sys/class/infiniband/mlx5_0";
    fs::remove(cls);
    fs::create_symlink("../../devices/pci0000:00/0000:00:02.0/0000:3b:00.0/infiniband/mlx5_0", cls);
    const std::vector<std::string> moved = {"0000:3b:00.0", "0000:00:02.0"};
    BOOST_TEST(chain() == moved, boost::test_tools::per_element());
}

// Counter files read through kept descriptors (collectors/sources/kept_files.h): a file
// rewritten in place, replaced by a rename, removed or added is seen by the next discovery.
BOOST_AUTO_TEST_CASE(counter_files_changed_in_any_way_are_seen_by_the_next_discovery) {
    Tree t;
    const std::string dir = kPort + "/hw_counters";
    // The value, -1 when the counter is absent, -2 when it has no value.
    auto value = [&](const std::string& name) -> long long {
        const rh::Snapshot s = rh::collect_snapshot({t.root, {}});
        for (const auto& c : t.port(s).hw_counters)
            if (c.name == name) return c.value ? static_cast<long long>(*c.value) : -2;
        return -1;
    };
    auto& files = rh::KeptFiles::shared();
    t.write(dir + "/out_of_buffer", "11");
    BOOST_TEST(value("out_of_buffer") == 11);
    const std::size_t kept = files.kept_reads();
    BOOST_TEST(value("out_of_buffer") == 11);
    BOOST_TEST(files.kept_reads() > kept);  // the second read went through kept descriptors

    t.write(dir + "/out_of_buffer", "12");  // in place
    BOOST_TEST(value("out_of_buffer") == 12);
    t.write(dir + "/replacement", "13");  // renamed over it
    fs::rename(t.dir / "sys" / dir / "replacement", t.dir / "sys" / dir / "out_of_buffer");
    BOOST_TEST(value("out_of_buffer") == 13);
    BOOST_TEST(value("out_of_buffer") == 13);
    fs::remove(t.dir / "sys" / dir / "out_of_buffer");  // removed
    BOOST_TEST(value("out_of_buffer") == -1);
    t.write(dir + "/out_of_buffer", "14");  // added again
    BOOST_TEST(value("out_of_buffer") == 14);
    BOOST_TEST(value("out_of_buffer") == 14);
}

// A discovery served from the caches (GID tables, parsed ethtool recordings, PCIe `device`
// paths, normalization resolutions) prints what the first one printed, on every fixture tree.
BOOST_AUTO_TEST_CASE(a_cached_discovery_equals_the_first_on_every_fixture) {
    for (const auto& e : fs::directory_iterator(kFixtures)) {
        if (!fs::is_directory(e.path() / "sys")) continue;
        BOOST_TEST_CONTEXT(e.path().filename().string()) {
            const rh::CollectOptions o{rh::SysfsRoot(e.path() / "sys"), {}};
            rh::Snapshot first = rh::collect_snapshot(o);
            rh::Snapshot again = rh::collect_snapshot(o);
            again.collected_at = first.collected_at;
            BOOST_TEST(rh::snapshot_json_text(again, 2) == rh::snapshot_json_text(first, 2));
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()

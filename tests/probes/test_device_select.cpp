#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "probes/verbs/device_select.h"

BOOST_AUTO_TEST_SUITE(test_device_select)

namespace fs = std::filesystem;
using namespace rh;

namespace {
// A sysfs tree with an IB device (skipped), a DOWN RoCE device and an ACTIVE one whose GID table
// holds a RoCE v1 link-local, a RoCE v2 link-local and a RoCE v2 IPv4-mapped entry.
struct Tree {
    fs::path dir = fs::temp_directory_path() / ("rh_devsel_" + std::to_string(::getpid()));
    void port(const std::string& dev, const char* state, const char* ll) {
        const auto p = dir / "class/infiniband" / dev / "ports/1";
        fs::create_directories(p / "gids");
        fs::create_directories(p / "gid_attrs/types");
        std::ofstream(p / "state") << state << "\n";
        std::ofstream(p / "link_layer") << ll << "\n";
    }
    void gid(const std::string& dev, int i, const char* g, const char* type) {
        const auto p = dir / "class/infiniband" / dev / "ports/1";
        std::ofstream(p / "gids" / std::to_string(i)) << g << "\n";
        if (type) std::ofstream(p / "gid_attrs/types" / std::to_string(i)) << type << "\n";
    }
    Tree() {
        port("ib0", "4: ACTIVE", "InfiniBand");
        gid("ib0", 0, "fe80:0000:0000:0000:0000:0000:0000:0001", "IB/RoCE v1");
        port("mlx5_0", "1: DOWN", "Ethernet");
        gid("mlx5_0", 0, "fe80:0000:0000:0000:0000:0000:0000:0002", "RoCE v2");
        port("rxe0", "4: ACTIVE", "Ethernet");
        gid("rxe0", 0, "fe80:0000:0000:0000:5054:00ff:fe12:3456", "IB/RoCE v1");
        gid("rxe0", 1, "fe80:0000:0000:0000:5054:00ff:fe12:3456", "RoCE v2");
        gid("rxe0", 2, "0000:0000:0000:0000:0000:ffff:0a63:000b", "IB/RoCE v1");
        gid("rxe0", 3, "0000:0000:0000:0000:0000:ffff:0a63:000b", "RoCE v2");
        gid("rxe0", 4, "0000:0000:0000:0000:0000:0000:0000:0000", nullptr);
    }
    ~Tree() { fs::remove_all(dir); }
};
}  // namespace

BOOST_AUTO_TEST_CASE(auto_picks_active_ethernet_and_ipv4_mapped_v2) {
    Tree t;
    auto c = choose_port(SysfsRoot(t.dir), "", std::nullopt);
    BOOST_REQUIRE_MESSAGE(c.ok(), (c.ok() ? std::string() : c.error().message()));
    BOOST_TEST(c->device == "rxe0");
    BOOST_TEST(c->port == 1u);
    BOOST_TEST(c->gid_index == 3u);
    BOOST_TEST(c->gid_text == "::ffff:10.99.0.11");
    BOOST_TEST(c->gid_type == "RoCE v2");
}

BOOST_AUTO_TEST_CASE(gid_index_override_and_errors) {
    Tree t;
    auto c = choose_port(SysfsRoot(t.dir), "rxe0", 1u);
    BOOST_REQUIRE(c.ok());
    BOOST_TEST(c->gid_index == 1u);
    BOOST_TEST(c->gid_text == "fe80::5054:ff:fe12:3456");
    BOOST_TEST(!choose_port(SysfsRoot(t.dir), "rxe0", 4u).ok());              // empty entry
    BOOST_TEST(!choose_port(SysfsRoot(t.dir), "mlx5_0", std::nullopt).ok());  // port DOWN
    BOOST_TEST(!choose_port(SysfsRoot(t.dir), "nosuch", std::nullopt).ok());
    BOOST_TEST(!choose_port(SysfsRoot(t.dir / "empty"), "", std::nullopt).ok());
}

BOOST_AUTO_TEST_CASE(parse_gid_text) {
    BOOST_TEST(parse_sysfs_gid("0000:0000:0000:0000:0000:ffff:0a63:000b").ok());
    BOOST_TEST(!parse_sysfs_gid("0000:0000").ok());
    BOOST_TEST(!parse_sysfs_gid("0000:0000:0000:0000:0000:ffff:0a63:00zb").ok());
}

BOOST_AUTO_TEST_SUITE_END()  // test_device_select

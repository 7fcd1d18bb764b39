#define BOOST_TEST_MODULE sysfs
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>

#include "core/sysfs.h"

namespace fs = std::filesystem;

namespace {
// A scratch tree that lays out a counter file, a non-number and a relative symlink.
struct Tree {
    fs::path dir = fs::temp_directory_path() / ("rh_sysfs_" + std::to_string(::getpid()));
    Tree() {
        fs::create_directories(dir / "devices/pci0000:00/0000:00:01.0/0000:3b:00.0");
        fs::create_directories(dir / "class/infiniband");
        std::ofstream(dir / "devices/pci0000:00/0000:00:01.0/0000:3b:00.0/numa_node") << "1\n";
        std::ofstream(dir / "na") << "N/A (no PMA)\n";
        std::ofstream(dir / "big") << "18446744073709551615\n";
        std::ofstream(dir / "over") << "18446744073709551616\n";
        fs::create_directory_symlink("../../devices/pci0000:00/0000:00:01.0/0000:3b:00.0",
                                     dir / "class/infiniband/dev");
    }
    ~Tree() { fs::remove_all(dir); }
};
}  // namespace

BOOST_AUTO_TEST_CASE(reads_u64_and_rejects_non_numbers_without_zero) {
    Tree t;
    rh::SysfsRoot root(t.dir);
    BOOST_TEST(*root.read_u64("class/infiniband/dev/numa_node") == 1u);
    BOOST_TEST(*root.read_u64("big") == 18446744073709551615ull);
    auto na = root.read_u64("na");
    BOOST_TEST(!na.ok());
    BOOST_TEST(na.error().message().find("N/A (no PMA)") != std::string::npos);
    BOOST_TEST(na.error().message().find("/na") != std::string::npos);  // names the file
    BOOST_TEST(!root.read_u64("over").ok());
    auto missing = root.read_u64("nope");
    BOOST_TEST(!missing.ok());
    BOOST_TEST(missing.error().err_no == ENOENT);
}

BOOST_AUTO_TEST_CASE(resolves_relative_links_inside_the_tree) {
    Tree t;
    rh::SysfsRoot root(t.dir);
    auto r = root.resolve("class/infiniband/dev");
    BOOST_TEST_REQUIRE(r.ok());
    BOOST_TEST(*r == "devices/pci0000:00/0000:00:01.0/0000:3b:00.0");
    BOOST_TEST(!root.is_live());
}

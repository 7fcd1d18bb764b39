#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>

#include "core/sysfs.h"

#include <sys/stat.h>
#include <unistd.h>

BOOST_AUTO_TEST_SUITE(test_sysfs)

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

BOOST_AUTO_TEST_CASE(damaged_files_are_errors_or_masked_never_hangs) {
    Tree t;
    rh::SysfsRoot root(t.dir);
    // A FIFO would block a plain open() forever; a device node would stream forever.
    BOOST_REQUIRE(::mkfifo((t.dir / "fifo").c_str(), 0600) == 0);
    auto fifo = root.read_text("fifo");
    BOOST_TEST(!fifo.ok());
    BOOST_TEST(fifo.error().message().find("not a regular file") != std::string::npos);
    fs::create_symlink("/dev/zero", t.dir / "zero");
    BOOST_TEST(!root.read_text("zero").ok());
    // A directory where a file should be.
    auto dir = root.read_text("class");
    BOOST_TEST(!dir.ok());
    BOOST_TEST(dir.error().err_no == EISDIR);
    // Larger than any sysfs attribute.
    std::ofstream(t.dir / "huge") << std::string(200 * 1024, '7');
    auto huge = root.read_u64("huge");
    BOOST_TEST(!huge.ok());
    BOOST_TEST(huge.error().message().size() < 200u);
    // Control bytes are masked, so they reach neither a terminal nor JSON.
    std::ofstream(t.dir / "junk") << std::string("4: ACT\0IVE\x01\n", 13);
    BOOST_TEST(*root.read_text("junk") == "4: ACT?IVE?");
    // A long bad value is quoted short in the error.
    std::ofstream(t.dir / "long") << std::string(1000, 'x');
    auto bad = root.read_u64("long");
    BOOST_TEST(!bad.ok());
    BOOST_TEST(bad.error().message().find("...'") != std::string::npos);
    BOOST_TEST(bad.error().message().size() < 200u);
}

BOOST_AUTO_TEST_CASE(quote_value_is_short_and_printable) {
    BOOST_TEST(rh::quote_value("N/A (no PMA)") == "'N/A (no PMA)'");
    BOOST_TEST(rh::quote_value(std::string("a\x01\xff", 3)) ==
               "'a?"
               "?'");
    BOOST_TEST(rh::quote_value(std::string(40, 'x')) == "'" + std::string(40, 'x') + "'");
    BOOST_TEST(rh::quote_value(std::string(1000, 'x')) == "'" + std::string(40, 'x') + "...'");
}

BOOST_AUTO_TEST_SUITE_END()  // test_sysfs

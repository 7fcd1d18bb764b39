#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "collectors/sources/rdma_netlink.h"

BOOST_AUTO_TEST_SUITE(test_rdma_netlink)

namespace {

const std::string kRecordings = std::string(RH_FIXTURES_DIR) + "/recordings";

rh::nl::Bytes recording(const std::string& name) {
    auto b = rh::nl::read_hex_file(kRecordings + "/" + name);
    BOOST_TEST_REQUIRE(b.ok(), "recording " << name << ": " << (b.ok() ? "" : b.error().message()));
    return *b;
}

void attr(rh::nl::Bytes& b, std::uint16_t type, const void* p, std::size_t n) {
    const auto len = static_cast<std::uint16_t>(4 + n);
    const std::size_t at = b.size();
    b.resize(at + ((len + 3u) & ~3u), 0);
    std::memcpy(b.data() + at, &len, 2);
    std::memcpy(b.data() + at + 2, &type, 2);
    if (n) std::memcpy(b.data() + at + 4, p, n);
}

}  // namespace

// Recorded from a lab guest's rxe0 (Linux 6.1, rdma_rxe) after 20 ib_write_lat iterations:
// the same names as sysfs hw_counters (except the `lifespan` attribute).
BOOST_AUTO_TEST_CASE(rxe0_recorded_stat_get_reply) {
    auto cs = rh::parse_rdma_stat_reply(recording("rxe0_1_stat_get.hex"), "rdma netlink STAT_GET");
    BOOST_TEST_REQUIRE(cs.ok(), (cs ? "" : cs.error().message()));
    const std::set<std::string> sysfs_names = {
        "ack_deferred",       "completer_retry_err", "duplicate_request",  "link_downed",
        "out_of_seq_request", "rcvd_pkts",           "rcvd_rnr_err",       "rcvd_seq_err",
        "rdma_recvs",         "rdma_sends",          "retry_exceeded_err", "retry_rnr_exceeded_err",
        "send_err",           "send_rnr_err",        "sent_pkts"};
    std::set<std::string> got;
    for (const auto& c : *cs) {
        got.insert(c.name);
        BOOST_TEST(c.value.has_value(), c.name);
        BOOST_TEST(c.source == "rdma netlink STAT_GET");
    }
    BOOST_TEST((got == sysfs_names));
    BOOST_TEST(
        std::is_sorted(cs->begin(), cs->end(),
                       [](const rh::Counter& a, const rh::Counter& b) { return a.name < b.name; }));
    auto sent = std::find_if(cs->begin(), cs->end(),
                             [](const rh::Counter& c) { return c.name == "sent_pkts"; });
    BOOST_TEST(*sent->value == 80u);
}

BOOST_AUTO_TEST_CASE(replay_source_by_dev_and_port) {
    // The replay source reads <dir>/<dev>_<port>.hex.
    const auto dir =
        std::filesystem::temp_directory_path() / ("rh_rdma_nl_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    std::filesystem::copy_file(kRecordings + "/rxe0_1_stat_get.hex", dir / "rxe0_1.hex");
    auto src = rh::make_rdma_replay_source(dir);
    auto cs = rh::read_rdma_port_counters(*src, "rxe0", 1);
    BOOST_TEST_REQUIRE(cs.ok());
    BOOST_TEST(cs->size() == 15u);
    BOOST_TEST(cs->front().source.find("recording") != std::string::npos);
    auto missing = rh::read_rdma_port_counters(*src, "rxe0", 2);
    BOOST_TEST_REQUIRE(!missing.ok());
    BOOST_TEST(missing.error().err_no == ENOENT);
    std::filesystem::remove_all(dir);
}

BOOST_AUTO_TEST_CASE(entries_without_name_or_with_bad_value) {
    rh::nl::Bytes entry1, entry2, entry3, table, msg;
    const char n1[] = "np_cnp_sent";
    const std::uint64_t v1 = 42;
    attr(entry1, 82, n1, sizeof n1);
    attr(entry1, 83, &v1, 8);
    const std::uint32_t short_value = 1;
    const char n2[] = "rp_cnp_handled";
    attr(entry2, 82, n2, sizeof n2);
    attr(entry2, 83, &short_value, 4);  // not a u64
    attr(entry3, 83, &v1, 8);           // no name: skipped
    attr(table, 81, entry1.data(), entry1.size());
    attr(table, 81, entry2.data(), entry2.size());
    attr(table, 81, entry3.data(), entry3.size());
    attr(msg, 80, table.data(), table.size());
    auto cs = rh::parse_rdma_stat_reply(msg, "s");
    BOOST_TEST_REQUIRE(cs.ok());
    BOOST_TEST_REQUIRE(cs->size() == 2u);
    BOOST_TEST((*cs)[0].name == "np_cnp_sent");
    BOOST_TEST(*(*cs)[0].value == 42u);
    BOOST_TEST((*cs)[1].name == "rp_cnp_handled");
    BOOST_TEST(!(*cs)[1].value.has_value());
    BOOST_TEST((*cs)[1].error == "VALUE is not a u64");
    BOOST_TEST(!rh::parse_rdma_stat_reply(rh::nl::Bytes{}, "s").ok());
}

BOOST_AUTO_TEST_CASE(device_index_from_get_dump) {
    rh::nl::Bytes a, b;
    const std::uint32_t i0 = 0, i3 = 3;
    attr(a, 1, &i0, 4);
    attr(a, 2, "mlx5_0", 7);
    attr(b, 1, &i3, 4);
    attr(b, 2, "rxe0", 5);
    BOOST_TEST(*rh::find_rdma_dev_index({a, b}, "rxe0") == 3u);
    BOOST_TEST(*rh::find_rdma_dev_index({a, b}, "mlx5_0") == 0u);
    BOOST_TEST(!rh::find_rdma_dev_index({a, b}, "rxe1").has_value());
    BOOST_TEST(rh::nldev_type(17) == 5137);
}

BOOST_AUTO_TEST_CASE(truncated_and_garbage_replies_never_crash) {
    const auto full = recording("rxe0_1_stat_get.hex");
    for (std::size_t n = 0; n < full.size(); ++n) {
        rh::nl::Bytes cut(full.begin(), full.begin() + static_cast<long>(n));
        auto cs = rh::parse_rdma_stat_reply(cut, "cut");
        if (cs) BOOST_TEST(cs->size() <= 15u);
        (void)rh::find_rdma_dev_index({cut}, "rxe0");
    }
    std::mt19937 rng(7);
    for (int i = 0; i < 3000; ++i) {
        auto b = full;
        for (int k = 0; k < 6; ++k) b[rng() % b.size()] = static_cast<std::uint8_t>(rng());
        (void)rh::parse_rdma_stat_reply(b, "fuzz");
        bool malformed = false;
        (void)rh::nl::attrs(b, &malformed);
    }
    bool malformed = false;
    BOOST_TEST(rh::nl::attrs(rh::nl::Bytes{8, 0, 1, 0, 1, 2}, &malformed).empty());
    BOOST_TEST(malformed);
}

BOOST_AUTO_TEST_SUITE_END()  // test_rdma_netlink

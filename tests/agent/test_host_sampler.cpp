// HostSampler::sources() (rocehealth_collector_success / _duration_seconds on /metrics): each
// source as the last pass that read it left it, the discovery sources included.
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "agent/sampling/host_sampler.h"
#include "collectors/collect.h"
#include "core/recording/sample_json.h"
#include "store/from_snapshot.h"

BOOST_AUTO_TEST_SUITE(test_host_sampler)

namespace {

rh::SourcePass at(const rh::SourcePasses& p, rh::Source s) {
    return p[static_cast<std::size_t>(s)];
}

rh::Snapshot fixture(const char* name) {
    return rh::collect_snapshot(
        {rh::SysfsRoot(std::string(RH_FIXTURES_DIR) + "/" + name + "/sys"), {}});
}

/// Each sample as its recording line: every field a reader sees.
std::vector<std::string> lines(const std::vector<rh::Sample>& v) {
    std::vector<std::string> out;
    for (const rh::Sample& s : v) out.push_back(rh::to_json_line(s).dump());
    return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(sources_show_discovery_and_then_the_poll) {
    rh::HostSampler sampler(
        {rh::SysfsRoot(std::string(RH_FIXTURES_DIR) + "/mlx5_pfc_upstream/sys"), {}}, "h");
    std::vector<std::string> why;
    sampler.pass(why);  // the discovery's pass
    for (const rh::Source s : {rh::Source::rdma_sysfs, rh::Source::pcie_sysfs,
                               rh::Source::qos_sysfs, rh::Source::netdev_sysfs})
        BOOST_TEST(at(sampler.sources(), s).read, rh::to_string(s));

    sampler.pass(why);  // a poll: its sources, and the discovery-only ones as discovery left them
    BOOST_TEST(why.empty());
    BOOST_TEST(at(sampler.sources(), rh::Source::rdma_sysfs).read);
    BOOST_TEST(at(sampler.sources(), rh::Source::rdma_sysfs).success);
    BOOST_TEST(at(sampler.sources(), rh::Source::pcie_sysfs).read);
    BOOST_TEST(at(sampler.sources(), rh::Source::qos_sysfs).read);
    BOOST_TEST(!at(sampler.sources(), rh::Source::verbs).read);  // a fixture: no verbs
}

// The agent's pass rewrites last pass's samples in place: whatever they were (another layout,
// more or fewer ports, other labels), the result is what a fresh fill gives.
BOOST_AUTO_TEST_CASE(samples_rewritten_in_place_equal_fresh_ones) {
    const rh::Snapshot big = fixture("mlx5_8port"), small = fixture("port_down"),
                       other = fixture("bnxt_pfc");
    const rh::SampleTime t1{10, 1'700'000'000'000}, t2{11, 1'700'000'001'000};
    std::vector<rh::Sample> reused;
    for (const auto& [snap, t] : {std::pair{&big, t1}, std::pair{&small, t2}, std::pair{&other, t1},
                                  std::pair{&big, t2}, std::pair{&big, t1}}) {
        rh::fill_samples_from_snapshot(*snap, t, reused);
        std::vector<rh::Sample> fresh;
        rh::fill_samples_from_snapshot(*snap, t, fresh);
        BOOST_REQUIRE(!fresh.empty());
        BOOST_TEST(lines(reused) == lines(fresh), boost::test_tools::per_element());
        // and what samples_from_snapshot gives, after its inventory sample
        const auto whole = rh::samples_from_snapshot(*snap, t, true);
        BOOST_REQUIRE_EQUAL(whole.size(), fresh.size() + 1);
        BOOST_TEST((whole.front().kind == rh::SampleKind::inventory));
        BOOST_TEST(lines({whole.begin() + 1, whole.end()}) == lines(fresh),
                   boost::test_tools::per_element());
    }
}

// A driver reload clears the counters: the next pass starts a new timeline segment, so the
// store never takes a restarted carrier count or byte counter for events (a false link flap).
// A counter that only grows stays in its segment.
BOOST_AUTO_TEST_CASE(counters_falling_start_a_new_segment) {
    namespace fs = std::filesystem;
    const fs::path dir =
        fs::temp_directory_path() / ("rh_sampler_reset_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::copy(std::string(RH_FIXTURES_DIR) + "/mlx5_healthy", dir,
             fs::copy_options::recursive | fs::copy_options::copy_symlinks);
    const fs::path data =
        fs::canonical(dir / "sys/class/infiniband/mlx5_0/ports/1/counters") / "port_rcv_data";
    const auto write = [&](const char* v) { std::ofstream(data, std::ios::trunc) << v << "\n"; };
    rh::HostSampler sampler({rh::SysfsRoot((dir / "sys").string()), {}}, "h");
    std::vector<std::string> why;
    sampler.pass(why);
    write("48213377999");  // grew
    for (const rh::Sample& s : sampler.pass(why)) BOOST_TEST(s.segment == 0u, s.series);
    BOOST_TEST(sampler.segment() == 0u);
    write("1200");  // the driver reloaded: 48 G words -> 1200
    const auto& after = sampler.pass(why);
    BOOST_TEST(sampler.segment() == 1u);
    for (const rh::Sample& s : after) BOOST_TEST(s.segment == 1u, s.series);
    write("5000");  // grows again within the new segment
    sampler.pass(why);
    BOOST_TEST(sampler.segment() == 1u);
    fs::remove_all(dir);
}

BOOST_AUTO_TEST_SUITE_END()

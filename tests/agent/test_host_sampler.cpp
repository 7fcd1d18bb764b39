// HostSampler::sources() (rocehealth_collector_success / _duration_seconds on /metrics): each
// source as the last pass that read it left it, the discovery sources included.
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "agent/sampling/host_sampler.h"

BOOST_AUTO_TEST_SUITE(test_host_sampler)

namespace {

rh::SourcePass at(const rh::SourcePasses& p, rh::Source s) {
    return p[static_cast<std::size_t>(s)];
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

BOOST_AUTO_TEST_SUITE_END()

// agent/fleet/mesh_peers_dns: the fleet from a DNS name — what getaddrinfo gives for "localhost",
// and the error for a name that cannot exist (.invalid, RFC 2606) naming it.
#include <boost/test/unit_test.hpp>

#include <algorithm>

#include "agent/fleet/mesh_peers_dns.h"

BOOST_AUTO_TEST_SUITE(test_mesh_peers_dns)

namespace {

bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_CASE(localhost_resolves_to_its_loopback_address_once_each) {
    auto r = rh::resolve_addresses("localhost");
    BOOST_REQUIRE_MESSAGE(static_cast<bool>(r), (r ? std::string() : r.error().message()));
    BOOST_TEST((std::find(r->begin(), r->end(), "127.0.0.1") != r->end()));
    BOOST_TEST(std::is_sorted(r->begin(), r->end()));
    BOOST_TEST((std::adjacent_find(r->begin(), r->end()) == r->end()));  // SOCK_STREAM: no repeats
}

BOOST_AUTO_TEST_CASE(an_unresolvable_name_is_an_error_naming_it) {
    auto r = rh::resolve_addresses("nonexistent.invalid");
    BOOST_REQUIRE(!r);
    const std::string m = r.error().message();
    BOOST_TEST(contains(m, "mesh.peers_dns nonexistent.invalid: "), m);
    // No such name, or (a host without a resolver) a temporary failure: either way the reason.
    BOOST_TEST(m.size() > std::string("mesh.peers_dns nonexistent.invalid: ").size(), m);
}

BOOST_AUTO_TEST_CASE(addresses_become_hosts_of_the_unknown_tor_on_the_responder_port) {
    const auto fleet = rh::fleet_from_addresses({"10.7.12.4", "fd00::7"}, 18600);
    BOOST_REQUIRE(fleet.size() == 2u);
    BOOST_TEST((fleet[0] == rh::FleetHost{"10.7.12.4", "10.7.12.4:18600", rh::kUnknownTor}));
    BOOST_TEST((fleet[1] == rh::FleetHost{"fd00::7", "[fd00::7]:18600", rh::kUnknownTor}));
    // One group: the plan probes at most intra_tor_cap a round and reaches all in a cycle.
    std::vector<std::string> names;
    for (int i = 0; i < 10; ++i) names.push_back("10.0.0." + std::to_string(i + 1));
    auto plan = rh::MeshPlan::make(rh::fleet_from_addresses(names, 18520), "10.0.0.1",
                                   rh::MeshPlanParams{4, 3});
    BOOST_REQUIRE(plan);
    BOOST_TEST(plan->tor_count() == 1u);
    BOOST_TEST(plan->peers(0).size() == 3u);
    BOOST_TEST(plan->cycle_union().size() == 9u);
}

BOOST_AUTO_TEST_SUITE_END()  // test_mesh_peers_dns

// probes/mesh/mesh_plan: the scalable mesh's peer planner — every ToR pair covered within
// ceil((T-1)/K) rounds, a bounded number of probes per round, own-ToR peers always probed,
// the same plan from the same inputs, and bad fleet lists refused by name.
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <map>
#include <set>
#include <string>

#include "probes/mesh/mesh_plan.h"

BOOST_AUTO_TEST_SUITE(test_mesh_plan)

using rh::FleetHost;
using rh::MeshPlan;
using rh::MeshPlanParams;

namespace {

/// `tors` ToRs "t00".. of `per_tor` hosts "t00-h0".., listed ToR by ToR in reverse so that the
/// planner cannot rely on the input's order.
std::vector<FleetHost> fleet(int tors, int per_tor) {
    std::vector<FleetHost> f;
    for (int t = tors - 1; t >= 0; --t)
        for (int h = per_tor - 1; h >= 0; --h) {
            const std::string tor = (t < 10 ? "t0" : "t") + std::to_string(t);
            const std::string host = tor + "-h" + std::to_string(h);
            f.push_back({host, host + ":18520", tor});
        }
    return f;
}

MeshPlan plan(const std::vector<FleetHost>& f, const std::string& self, unsigned k,
              unsigned cap = 64) {
    auto p = MeshPlan::make(f, self, MeshPlanParams{k, cap});
    BOOST_REQUIRE_MESSAGE(p, (p ? "" : p.error().message()));
    return std::move(*p);
}

std::string error_of(const std::vector<FleetHost>& f, const std::string& self,
                     MeshPlanParams params = {}) {
    auto p = MeshPlan::make(f, self, params);
    return p ? "" : p.error().message();
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_tor_pair_is_covered_within_the_bound) {
    // 20 ToRs x 8 hosts, K = 3: every ToR must have probed the 19 others within ceil(19/3) = 7
    // rounds, starting from any round (checked from 0 and from 11).
    const auto f = fleet(20, 8);
    for (std::uint64_t first : {0u, 11u}) {
        std::map<std::string, std::set<std::string>> reached;  // own ToR -> other ToRs
        std::uint64_t bound = 0;
        for (const auto& h : f) {
            const MeshPlan p = plan(f, h.host, 3);
            bound = p.cover_rounds();
            for (std::uint64_t r = first; r < first + bound; ++r)
                for (std::size_t i : p.peers(r))
                    if (p.fleet()[i].tor != h.tor) reached[h.tor].insert(p.fleet()[i].tor);
        }
        BOOST_TEST(bound == 7u);
        BOOST_TEST(reached.size() == 20u);
        for (const auto& [tor, others] : reached) BOOST_TEST(others.size() == 19u, tor);
    }
}

BOOST_AUTO_TEST_CASE(one_round_fewer_does_not_cover_every_pair) {
    // The bound is tight: ceil(19/3) - 1 = 6 rounds x 3 = 18 ToRs < 19.
    const auto f = fleet(20, 8);
    const MeshPlan p = plan(f, "t05-h2", 3);
    std::set<std::string> reached;
    for (std::uint64_t r = 0; r + 1 < p.cover_rounds(); ++r)
        for (std::size_t i : p.peers(r)) reached.insert(p.fleet()[i].tor);
    reached.erase("t05");
    BOOST_TEST(reached.size() == 18u);
}

BOOST_AUTO_TEST_CASE(probes_per_round_are_bounded_whatever_the_fleet_size) {
    // 300 ToRs x 100 hosts, cap 64, K 4: at most 68 a round, never self, never twice.
    const auto f = fleet(300, 100);
    const MeshPlan p = plan(f, "t123-h7", 4, 64);
    std::set<std::size_t> own_seen;
    for (std::uint64_t r = 0; r < 10; ++r) {
        const auto peers = p.peers(r);
        BOOST_TEST(peers.size() == 68u);
        std::set<std::size_t> once(peers.begin(), peers.end());
        BOOST_TEST(once.size() == peers.size());
        for (std::size_t i : peers) {
            BOOST_TEST(p.fleet()[i].host != "t123-h7");
            if (p.fleet()[i].tor == "t123") own_seen.insert(i);
        }
    }
    // The own-ToR window rotates: its 99 other hosts are all reached within ceil(99/64) = 2.
    BOOST_TEST(own_seen.size() == 99u);
}

BOOST_AUTO_TEST_CASE(own_tor_peers_are_probed_every_round) {
    const auto f = fleet(20, 8);
    const MeshPlan p = plan(f, "t07-h3", 2);
    BOOST_TEST(p.own_tor() == "t07");
    for (std::uint64_t r = 0; r < 30; ++r) {
        std::set<std::string> own;
        for (std::size_t i : p.peers(r))
            if (p.fleet()[i].tor == "t07") own.insert(p.fleet()[i].host);
        BOOST_TEST(own.size() == 7u);
        BOOST_TEST(!own.count("t07-h3"));
    }
}

BOOST_AUTO_TEST_CASE(hosts_of_a_tor_hit_different_targets) {
    // In one round the 8 hosts of t03 that probe ToR X pick 8 different hosts of X.
    const auto f = fleet(20, 8);
    std::map<std::string, std::set<std::string>> targets;  // target ToR -> hosts hit
    for (int h = 0; h < 8; ++h) {
        const MeshPlan p = plan(f, "t03-h" + std::to_string(h), 4);
        for (std::size_t i : p.peers(5))
            if (p.fleet()[i].tor != "t03") {
                targets[p.fleet()[i].tor].insert(p.fleet()[i].host);
            }
    }
    BOOST_TEST(targets.size() == 4u);
    for (const auto& [tor, hit] : targets) BOOST_TEST(hit.size() == 8u, tor);
}

BOOST_AUTO_TEST_CASE(the_same_inputs_give_the_same_plan) {
    auto f = fleet(20, 8);
    const MeshPlan a = plan(f, "t11-h0", 4);
    std::reverse(f.begin(), f.end());  // the list's order does not matter either
    const MeshPlan b = plan(f, "t11-h0", 4);
    for (std::uint64_t r = 0; r < 12; ++r) {
        std::vector<std::string> ha, hb;
        for (std::size_t i : a.peers(r)) ha.push_back(a.fleet()[i].host);
        for (std::size_t i : b.peers(r)) hb.push_back(b.fleet()[i].host);
        BOOST_TEST(ha == hb);
    }
    // ... and the inter-ToR targets change between rounds.
    BOOST_TEST(a.peers(0) != a.peers(1));
}

BOOST_AUTO_TEST_CASE(small_fleets) {
    // One ToR: own peers only, nothing to cover. A host alone: nothing to probe.
    const MeshPlan one_tor = plan(fleet(1, 5), "t00-h1", 4);
    BOOST_TEST(one_tor.peers(0).size() == 4u);
    BOOST_TEST(one_tor.cover_rounds() == 0u);
    BOOST_TEST(plan(fleet(1, 1), "t00-h0", 4).peers(3).empty());
    // K larger than the other ToRs: each other ToR once a round.
    const MeshPlan few = plan(fleet(3, 2), "t00-h0", 8);
    BOOST_TEST(few.peers(0).size() == 3u);  // 1 own + 2 other ToRs
    BOOST_TEST(few.cover_rounds() == 1u);
    BOOST_TEST(few.cycle_union().size() == 3u);
}

BOOST_AUTO_TEST_CASE(cycle_union_reaches_every_tor) {
    const MeshPlan p = plan(fleet(20, 8), "t00-h0", 4);
    std::set<std::string> tors;
    for (std::size_t i : p.cycle_union()) tors.insert(p.fleet()[i].tor);
    BOOST_TEST(tors.size() == 20u);
    // At most own ToR + 5 rounds x 4 (a ToR reached twice may give the same host).
    BOOST_TEST(p.cycle_union().size() <= 7u + 4u * 5u);
    BOOST_TEST(p.cycle_union().size() >= 7u + 19u);
}

BOOST_AUTO_TEST_CASE(bad_fleet_lists_are_refused_by_name) {
    const auto f = fleet(2, 2);
    BOOST_TEST(error_of(f, "gpu99") == "mesh plan host gpu99: not in the fleet list (4 hosts)");
    auto no_tor = f;
    no_tor[1].tor = "";
    BOOST_TEST(error_of(no_tor, "t00-h0") == "mesh plan host " + f[1].host + ": empty tor");
    auto twice = f;
    twice.push_back(f[2]);
    BOOST_TEST(error_of(twice, "t00-h0") == "mesh plan host " + f[2].host + ": listed twice");
    auto nameless = f;
    nameless[3].host = "";
    BOOST_TEST(error_of(nameless, "t00-h0") == "mesh plan fleet entry 3: empty host name");
    BOOST_TEST(error_of(f, "t00-h0", MeshPlanParams{0, 64}) ==
               "mesh plan inter_tor_peers: must be >= 1");
}

BOOST_AUTO_TEST_SUITE_END()  // test_mesh_plan

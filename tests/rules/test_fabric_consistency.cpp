#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "rules/fabric_consistency.h"

BOOST_AUTO_TEST_SUITE(test_fabric_consistency)

// fabric_consistency (rules/fabric_consistency.h) on inventories built in code: which hosts are
// named as differing, the most common value with its unit, unknown values left out.

namespace {

rh::Snapshot host(const std::string& name, std::optional<unsigned> mtu,
                  std::optional<unsigned> active_mtu, std::optional<std::uint8_t> pfc = 0x08,
                  const std::string& trust = "dscp") {
    rh::Snapshot s;
    s.host = name;
    rh::Device d;
    d.name = "mlx5_0";
    rh::Port p;
    p.number = 1;
    p.state_code = 4;
    p.state = "ACTIVE";
    p.link_layer = "Ethernet";
    p.verbs.active_mtu_bytes = active_mtu;
    rh::Netdev n;
    n.name = "ens1f0np0";
    n.source = "bundle:ip-link.txt";
    n.mtu_bytes = mtu;
    if (pfc) {
        n.dcb = rh::DcbConfig{};
        n.dcb->pfc_enabled = *pfc;
        n.dcb->source = "bundle:mlnx_qos.txt";
    }
    n.qos.trust = trust;
    p.netdev = n;
    d.ports.push_back(p);
    s.devices.push_back(d);
    return s;
}

std::vector<rh::Finding> run(const std::vector<rh::Snapshot>& hosts) {
    rh::RuleOutput out;
    rh::evaluate_fabric_consistency(hosts, out);
    return out.findings;
}

bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_CASE(groups_most_common_first_ties_keep_first) {
    const auto g = rh::group_fact_values({{"a", "9000"}, {"b", "1500"}, {"c", "9000"}});
    BOOST_TEST(g.groups.front().value == "9000");
    BOOST_TEST(g.differing == std::vector<std::string>{"b"});
    BOOST_TEST(!g.tie);
    const auto t = rh::group_fact_values({{"a", "9000"}, {"b", "1500"}});
    BOOST_TEST(t.groups.front().value == "9000");
    BOOST_TEST(t.differing == std::vector<std::string>{"b"});
    BOOST_TEST(t.tie);
    BOOST_TEST(rh::group_fact_values({{"a", "1"}, {"b", "1"}}).consistent);
}

BOOST_AUTO_TEST_CASE(one_host_with_a_smaller_mtu_is_named_with_the_majority_value) {
    const auto f = run({host("h1", 9000, 4096), host("h2", 1500, 1024), host("h3", 9000, 4096)});
    BOOST_TEST_REQUIRE(f.size() == 2u);
    BOOST_TEST(f[0].host == "h2");
    BOOST_TEST(f[0].outcome == "mtu_differs");  // graded error by the shipped rules file
    BOOST_TEST(contains(f[0].summary,
                        "netdev MTU differs between hosts: h2 has 1500 bytes, the "
                        "most common value is 9000 bytes"),
               f[0].summary);
    BOOST_TEST(contains(f[1].summary, "RoCE active_mtu differs between hosts: h2 has 1024 bytes"),
               f[1].summary);
    BOOST_TEST(f[0].evidence.size() == 3u);
    BOOST_TEST(f[0].evidence[1].unit == "bytes");
    BOOST_TEST(f[0].evidence[1].value == "1500");
    BOOST_TEST(f[0].evidence[1].source == "bundle:ip-link.txt");
}

BOOST_AUTO_TEST_CASE(pfc_and_trust_differences_are_warnings) {
    const auto f = run({host("h1", 9000, 4096, 0x08, "dscp"), host("h2", 9000, 4096, 0x00, "pcp")});
    BOOST_TEST_REQUIRE(f.size() == 2u);
    BOOST_TEST(f[0].outcome.empty());  // the rule's own severity
    BOOST_TEST(contains(f[0].summary, "PFC priority set differs between hosts"), f[0].summary);
    BOOST_TEST(contains(f[0].summary, "h2 has no priority"), f[0].summary);
    BOOST_TEST(contains(f[1].summary, "trust mode differs between hosts: h2 has pcp"),
               f[1].summary);
}

BOOST_AUTO_TEST_CASE(same_values_unknown_values_and_one_host_give_nothing) {
    BOOST_TEST(run({host("h1", 9000, 4096), host("h2", 9000, 4096)}).empty());
    // h2's MTU and PFC were not captured: unknown is not a difference.
    BOOST_TEST(run({host("h1", 9000, 4096), host("h2", std::nullopt, 4096, std::nullopt)}).empty());
    BOOST_TEST(run({host("h1", 9000, 4096)}).empty());
    // A port that is not ACTIVE (an uncabled second port) is not compared.
    auto down = host("h2", 1500, 1024);
    down.devices[0].ports[0].state_code = 1;
    BOOST_TEST(run({host("h1", 9000, 4096), down}).empty());
}

BOOST_AUTO_TEST_SUITE_END()  // test_fabric_consistency

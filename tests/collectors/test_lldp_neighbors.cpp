// collectors/lldp_neighbors: `lldpcli -f json show neighbors` in each shape lldpd's JSON writer
// makes (tests/fixtures/lldp/README.md), and mistyped fields named by their path.
#include <boost/test/unit_test.hpp>

#include <fstream>
#include <sstream>

#include "collectors/lldp_neighbors.h"

BOOST_AUTO_TEST_SUITE(test_lldp_neighbors)

namespace {

std::string fixture(const std::string& name) {
    std::ifstream in(std::string(RH_FIXTURES_DIR) + "/lldp/" + name);
    std::stringstream b;
    b << in.rdbuf();
    return b.str();
}

std::string error_of(const std::string& text) {
    auto r = rh::parse_lldp_neighbors(text);
    return r ? "" : r.error().message();
}

}  // namespace

BOOST_AUTO_TEST_CASE(one_interface_is_an_object_and_a_named_chassis_is_keyed_by_its_name) {
    auto r = rh::parse_lldp_neighbors(fixture("one_neighbor.json"));
    BOOST_REQUIRE_MESSAGE(static_cast<bool>(r), (r ? std::string() : r.error().message()));
    BOOST_REQUIRE(r->size() == 1u);
    const rh::LldpNeighbor& n = r->front();
    BOOST_TEST(n.interface == "ens1f0np0");
    BOOST_TEST(n.via == "LLDP");
    BOOST_TEST(n.chassis_name == "r07-tor1.fab.example");
    BOOST_TEST(n.chassis_id == "0c:42:a1:7e:00:07");
    BOOST_TEST(n.chassis_id_type == "mac");
    BOOST_TEST(n.port_id == "Ethernet12/1");
    BOOST_TEST(n.port_id_type == "ifname");
    BOOST_TEST(n.port_descr == "gpu0712 ens1f0np0");
}

BOOST_AUTO_TEST_CASE(several_interfaces_are_a_list_and_an_unnamed_chassis_has_its_id) {
    auto r = rh::parse_lldp_neighbors(fixture("several_interfaces.json"));
    BOOST_REQUIRE_MESSAGE(static_cast<bool>(r), (r ? std::string() : r.error().message()));
    BOOST_REQUIRE(r->size() == 3u);
    BOOST_TEST((*r)[0].interface == "eno1");
    BOOST_TEST((*r)[0].chassis_name == "");  // the switch sends no SysName
    BOOST_TEST((*r)[0].chassis_id == "b4:96:91:00:aa:01");
    BOOST_TEST((*r)[0].port_id == "gi1/0/14");
    BOOST_TEST((*r)[0].port_id_type == "local");
    BOOST_TEST((*r)[1].interface == "ens1f0np0");
    BOOST_TEST((*r)[1].chassis_name == "r07-tor1");
    BOOST_TEST((*r)[1].port_id == "Ethernet48");
    BOOST_TEST((*r)[1].port_descr == "gpu0712-rail0");
    BOOST_TEST((*r)[2].interface == "ens2f0np0");
    BOOST_TEST((*r)[2].chassis_name == "r07-rail1");
}

BOOST_AUTO_TEST_CASE(no_neighbour_is_an_empty_list) {
    auto r = rh::parse_lldp_neighbors(fixture("no_neighbors.json"));
    BOOST_REQUIRE_MESSAGE(static_cast<bool>(r), (r ? std::string() : r.error().message()));
    BOOST_TEST(r->empty());
}

BOOST_AUTO_TEST_CASE(what_is_not_lldpds_json_is_named_by_its_path) {
    BOOST_TEST(error_of("Interface: eth0") ==
               "lldpcli json output: not JSON (expected `lldpcli -f json` output)");
    BOOST_TEST(error_of(R"({"lldp": []})") ==
               "lldpcli json lldp: expected an object (lldpcli -f json show neighbors)");
    BOOST_TEST(
        error_of(
            R"({"lldp": {"interface": {"eth0": {"chassis": {"sw1": {"id": {"type": "mac", "value": 7}}}}}}})") ==
        "lldpcli json lldp.interface.eth0.chassis.sw1.id.value: expected a string, got number");
    BOOST_TEST(error_of(R"({"lldp": {"interface": [{"eth0": {"port": "x"}}]}})") ==
               "lldpcli json lldp.interface.eth0.port: expected an object, got string");
    BOOST_TEST(error_of(R"({"lldp": {"interface": [3]}})") ==
               "lldpcli json lldp.interface[0]: expected an object, got number");
}

BOOST_AUTO_TEST_SUITE_END()  // test_lldp_neighbors

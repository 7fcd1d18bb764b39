// The responder's "probe" control command (probes/responder/control_probe.h): a good request
// decodes into the probe's options, and each bad field is refused by name (the responder sends that
// text back).
#include <boost/test/unit_test.hpp>

#include "probes/responder/control_probe.h"

BOOST_AUTO_TEST_SUITE(test_control_probe)

using nlohmann::json;

namespace {

json good() {
    return json::parse(R"({"cmd": "probe", "peer": "10.0.0.2:18520", "ops": ["write", "read"],
        "sizes": [64, 4096], "iterations": 50, "warmup": 5, "timeout_ms": 5000,
        "host": "g1", "peer_name": "g2"})");
}

std::string error_of(const json& j) {
    auto r = rh::parse_probe_request(j);
    return r ? "" : r.error().message();
}

}  // namespace

BOOST_AUTO_TEST_CASE(good_request) {
    auto r = rh::parse_probe_request(good());
    BOOST_REQUIRE(r);
    BOOST_TEST(r->options.peer == "10.0.0.2:18520");
    BOOST_REQUIRE(r->options.ops.size() == 2u);
    BOOST_TEST((r->options.ops[1] == rh::ProbeOp::read));
    BOOST_TEST(r->options.sizes == (std::vector<std::uint64_t>{64, 4096}));
    BOOST_TEST(r->options.iterations == 50u);
    BOOST_TEST(r->options.timeout_ms == 5000);
    BOOST_TEST(r->host == "g1");
    BOOST_TEST(r->peer_name == "g2");
}

BOOST_AUTO_TEST_CASE(bad_fields_are_named) {
    json j = good();
    j["ops"] = {"write", "atomic"};
    BOOST_TEST(error_of(j).find("ops") != std::string::npos);
    BOOST_TEST(error_of(j).find("atomic") != std::string::npos);
    j = good();
    j["sizes"] = {64, 100};
    BOOST_TEST(error_of(j).find("sizes") != std::string::npos);
    j = good();
    j["iterations"] = 0;
    BOOST_TEST(error_of(j).find("iterations") != std::string::npos);
    j = good();
    j.erase("peer");
    BOOST_TEST(error_of(j).find("peer") != std::string::npos);
    j = good();
    j["peer"] = "";
    BOOST_TEST(error_of(j).find("peer") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()  // test_control_probe

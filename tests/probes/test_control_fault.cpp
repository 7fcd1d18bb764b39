// The responder's "fault" control command (probes/responder/control_fault.h): a good request
// decodes, and each bad field is refused by name before anything touches the link (the responder
// sends that text back to the acceptance runner, which shows it as the stage's reason).
#include <boost/test/unit_test.hpp>

#include "probes/responder/control_fault.h"

BOOST_AUTO_TEST_SUITE(test_control_fault)

using nlohmann::json;

namespace {

json good() {
    return json::parse(R"({"cmd": "fault", "peer": "10.0.0.1:18520", "down_ms": 3000,
        "recovery_timeout_ms": 60000})");
}

std::string error_of(const json& j) {
    auto r = rh::parse_fault_request(j);
    return r ? "" : r.error().message();
}

}  // namespace

BOOST_AUTO_TEST_CASE(good_request) {
    auto r = rh::parse_fault_request(good());
    BOOST_REQUIRE(r);
    BOOST_TEST(r->peer == "10.0.0.1:18520");
    BOOST_TEST(r->down_ms == 3000u);
    BOOST_TEST(r->recovery_timeout_ms == 60000u);
}

BOOST_AUTO_TEST_CASE(bad_fields_are_named) {
    const std::vector<std::pair<std::string, json>> cases{
        {"peer", nullptr},  // missing
        {"peer", ""},
        {"down_ms", 50},      // below 100 ms: not a link flap anyone can observe
        {"down_ms", 700000},  // above 10 min
        {"down_ms", 2.5},     // not a whole number
        {"down_ms", "3000"},  // a string
        {"recovery_timeout_ms", 999},
    };
    for (const auto& [field, value] : cases) {
        json j = good();
        if (value.is_null())
            j.erase(field);
        else
            j[field] = value;
        const std::string e = error_of(j);
        BOOST_TEST(e.find(field) != std::string::npos, field << "=" << value.dump() << ": " << e);
    }
}

BOOST_AUTO_TEST_SUITE_END()  // test_control_fault

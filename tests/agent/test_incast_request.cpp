// agent/daemon/incast_request: the POST /api/v1/incast body — defaults, and every kind of bad
// field named in the 400 answer.
#include <boost/test/unit_test.hpp>

#include "agent/daemon/incast_request.h"

BOOST_AUTO_TEST_SUITE(test_agent_incast_request)

using rh::agent::parse_incast_request;

namespace {

std::string error_of(const std::string& body, double max_duration_s = 30) {
    auto r = parse_incast_request(body, max_duration_s);
    return r ? "" : r.error().detail;
}

bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_CASE(senders_only_gives_the_documented_defaults) {
    auto r = parse_incast_request(R"({"senders": ["10.0.0.2", "gpu03:18521"]})", 30);
    BOOST_REQUIRE_MESSAGE(r, (r ? "" : r.error().message()));
    BOOST_TEST((r->senders == std::vector<std::string>{"10.0.0.2", "gpu03:18521"}));
    BOOST_TEST(r->size_bytes == 65536u);
    BOOST_TEST(r->duration_s == 5.0);
    BOOST_TEST(r->qps_per_sender == 1u);
    BOOST_TEST(r->queue_depth == 16u);
    BOOST_TEST(r->op == "write");
    BOOST_TEST(r->victim == false);
}

BOOST_AUTO_TEST_CASE(every_field_is_read) {
    auto r = parse_incast_request(R"({"senders": ["a"], "size_bytes": 4096, "duration_s": 2.5,
        "qps_per_sender": 4, "queue_depth": 8, "op": "send", "victim": true, "comment": "x"})",
                                  30);
    BOOST_REQUIRE_MESSAGE(r, (r ? "" : r.error().message()));
    BOOST_TEST(r->size_bytes == 4096u);
    BOOST_TEST(r->duration_s == 2.5);
    BOOST_TEST(r->qps_per_sender == 4u);
    BOOST_TEST(r->queue_depth == 8u);
    BOOST_TEST(r->op == "send");
    BOOST_TEST(r->victim);
}

BOOST_AUTO_TEST_CASE(bad_bodies_are_named) {
    BOOST_TEST(contains(error_of("{\"senders\": "), "body: not valid JSON"));
    BOOST_TEST(contains(error_of(""), "body: not valid JSON"));
    BOOST_TEST(contains(error_of(R"({"senders": ["a"], "duration_s": 1e400})"),
                        "body: not valid JSON at line 1, column 38 (duration_s): number overflow"));
    BOOST_TEST(contains(error_of(R"({"senders": ["a"], "op": "write", "op": "send"})"),
                        "body: duplicate key op"));
    BOOST_TEST(error_of("[]") == "body: expected a JSON object, got array");
    BOOST_TEST(contains(error_of("{}"), "senders: missing"));
}

BOOST_AUTO_TEST_CASE(bad_fields_are_named_with_what_is_wrong) {
    BOOST_TEST(contains(error_of(R"({"senders": []})"), "senders: 0 items: expected 1 to 64"));
    BOOST_TEST(contains(error_of(R"({"senders": ["a", "a"]})"), "senders[1]: \"a\" given twice"));
    BOOST_TEST(contains(error_of(R"({"senders": ["a", 3]})"),
                        "senders[1]: expected a string, got a number (3)"));
    BOOST_TEST(contains(error_of(R"({"senders": ["a:99999"]})"),
                        "senders[0]: expected HOST or HOST:PORT"));
    BOOST_TEST(contains(error_of(R"({"senders": ["a"], "duration_s": 31})"),
                        "duration_s: expected a number from 0.1 to 30 seconds, got 31"));
    BOOST_TEST(error_of(R"({"senders": ["a"], "duration_s": 31})", 60).empty());  // the bound
    BOOST_TEST(contains(error_of(R"({"senders": ["a"], "duration_s": "5s"})"),
                        "duration_s: expected a number, got a string (\"5s\")"));
    BOOST_TEST(contains(error_of(R"({"senders": ["a"], "size_bytes": 100})"),
                        "size_bytes: 100 is not a probe message size"));
    BOOST_TEST(contains(error_of(R"({"senders": ["a"], "qps_per_sender": 17})"),
                        "qps_per_sender: expected a whole number from 1 to 16, got 17"));
    BOOST_TEST(contains(error_of(R"({"senders": ["a"], "queue_depth": 0})"),
                        "queue_depth: expected a whole number from 1 to 64, got 0"));
    BOOST_TEST(contains(error_of(R"({"senders": ["a"], "op": "read"})"),
                        "op: expected \"write\" or \"send\", got \"read\""));
    BOOST_TEST(contains(error_of(R"({"senders": ["a"], "victim": 1})"),
                        "victim: expected true or false, got a number (1)"));
    BOOST_TEST(
        contains(error_of(R"({"senders": ["a"], "receiver": "b"})"), "receiver: unknown field"));
}

BOOST_AUTO_TEST_CASE(all_errors_are_reported_at_once) {
    const std::string e = error_of(R"({"senders": ["a"], "queue_depth": 0, "op": "x"})");
    BOOST_TEST(contains(e, "queue_depth: expected a whole number from 1 to 64, got 0"));
    BOOST_TEST(contains(e, "op: expected"));
}

BOOST_AUTO_TEST_SUITE_END()  // test_agent_incast_request

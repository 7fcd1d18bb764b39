// The acceptance spec (agent/accept_run/spec.h) and the consistency rows (consistency.h): the
// packaged example reads with every default stated, each kind of bad spec is refused with an
// error naming its field, and a host that differs from the others is the one named.
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "agent/accept_run/consistency.h"
#include "agent/accept_run/spec.h"

BOOST_AUTO_TEST_SUITE(test_accept_spec)

using nlohmann::json;
using namespace rh::accept;

namespace {

const json kTwoHosts =
    json::parse(R"({"hosts": [{"address": "10.0.0.1"}, {"address": "10.0.0.2:18600"}]})");

/// The errors of `j`, joined with newlines ("" when it parses).
std::string errors_of(const json& j) {
    std::string all;
    for (const auto& e : spec_from_json(j).errors) all += e + "\n";
    return all;
}

bool has(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_CASE(packaged_example_reads) {
    const auto p =
        spec_from_file(std::string(RH_SOURCE_DIR) + "/packaging/accept-spec.example.json");
    BOOST_REQUIRE_MESSAGE(p.spec, (p.errors.empty() ? "" : p.errors.front()));
    BOOST_TEST(p.spec->hosts.size() == 4u);
    BOOST_TEST(p.spec->hosts[3].name == "10.12.0.4");  // no name: the address
    BOOST_TEST(p.spec->criteria.p99_latency_us.at(1048576) == 300.0);
    BOOST_TEST(p.spec->incast.senders == 3u);
    BOOST_TEST(p.spec->runs(StageId::fault));  // bring-up: gpu-r12-03 consents (--allow-fault)
    BOOST_TEST(p.spec->fault_host() == "gpu-r12-03");
}

BOOST_AUTO_TEST_CASE(defaults_are_stated) {
    const auto p = spec_from_json(kTwoHosts);
    BOOST_REQUIRE(p.spec);
    const json j = spec_to_json(*p.spec);
    BOOST_TEST(j["criteria"]["min_bandwidth_fraction"].get<double>() == 0.9);
    BOOST_TEST(j["criteria"]["max_checksum_errors"].get<int>() == 0);
    BOOST_TEST(j["criteria"]["max_error_findings"].get<int>() == 0);
    BOOST_TEST(j["criteria"]["p99_latency_us"]["64"].get<double>() == 20.0);
    BOOST_TEST(j["hosts"][1]["name"].get<std::string>() == "10.0.0.2");  // port dropped
    BOOST_TEST(j["incast"]["receiver"].get<std::string>() == "10.0.0.1");
    BOOST_TEST(j["incast"]["senders"].get<int>() == 1);
    // fault (takes a link down) only when asked for
    BOOST_TEST(!p.spec->runs(StageId::fault));
    BOOST_TEST(p.spec->runs(StageId::rkey_revocation));
    // ... and then on the last host, with traffic to the first, down 5 s
    BOOST_TEST(j["fault"]["host"].get<std::string>() == "10.0.0.2");
    BOOST_TEST(j["fault"]["peer"].get<std::string>() == "10.0.0.1");
    BOOST_TEST(j["fault"]["down_s"].get<double>() == 5.0);
    BOOST_TEST(j["criteria"]["max_link_recovery_s"].get<double>() == 10.0);
    BOOST_TEST(j["criteria"]["max_traffic_recovery_s"].get<double>() == 15.0);
    // what spec_to_json writes reads back to the same spec
    const auto again = spec_from_json(j);
    BOOST_REQUIRE(again.spec);
    BOOST_TEST(spec_to_json(*again.spec) == j);
}

BOOST_AUTO_TEST_CASE(bad_specs_name_the_field) {
    BOOST_TEST(has(errors_of(json::object()), "hosts: "));
    BOOST_TEST(has(errors_of(json::parse(R"({"hosts": [{"address": "a"}]})")),
                   "hosts: expected at least 2 hosts"));
    json j = kTwoHosts;
    j["hosts"][1]["adress"] = "x";
    BOOST_TEST(has(errors_of(j), "hosts[1].adress: unknown field"));
    j = kTwoHosts;
    j["hosts"][1]["name"] = "10.0.0.1";
    BOOST_TEST(has(errors_of(j), "hosts[1].name: host \"10.0.0.1\" appears twice"));
    j = kTwoHosts;
    j["stages"] = {"inventory", "idle"};
    BOOST_TEST(has(errors_of(j), "stages: unknown stage \"idle\""));
    j = kTwoHosts;
    j["latency"] = {{"sizes", {64, 100}}};
    BOOST_TEST(has(errors_of(j), "latency.sizes[1]: expected a message size"));
    j = kTwoHosts;
    j["latency"] = {{"ops", {"write", "send"}}};
    BOOST_TEST(has(errors_of(j), "latency.ops: expected \"write\" and/or \"read\", got \"send\""));
    j = kTwoHosts;
    j["criteria"] = {{"p99_latency_us", {{"64", -1}}}};
    BOOST_TEST(has(errors_of(j), "criteria.p99_latency_us.64: expected a positive number"));
    j = kTwoHosts;
    j["criteria"] = {{"min_bandwidth_fraction", 9}};
    BOOST_TEST(
        has(errors_of(j), "criteria.min_bandwidth_fraction: expected a number from 0 to 1.5"));
    j = kTwoHosts;
    j["incast"] = json::parse(R"({"receiver": "nope", "senders": 2})");
    const std::string e = errors_of(j);
    BOOST_TEST(has(e, "incast.receiver: \"nope\" is not a host name"));
    BOOST_TEST(has(e, "incast.senders: 2 senders need 3 hosts, the spec has 2"));
    j = kTwoHosts;
    j["fault"] = json::parse(R"({"host": "10.0.0.9", "down_s": 0})");
    BOOST_TEST(has(errors_of(j), "fault.host: \"10.0.0.9\" is not a host name"));
    BOOST_TEST(has(errors_of(j), "fault.down_s: expected a number from 0.1 to 600"));
    j["fault"] = json::parse(R"({"host": "10.0.0.1", "peer": "10.0.0.1"})");
    BOOST_TEST(has(errors_of(j), "fault.peer: must differ from fault.host"));
    j["fault"] = json::parse(R"({"hots": "10.0.0.1"})");
    BOOST_TEST(has(errors_of(j), "fault.hots: unknown field"));
    j["fault"] = json::parse(R"({"down_s": 600.0001})");
    BOOST_TEST(has(errors_of(j), "fault.down_s: expected a number from 0.1 to 600, got 600.0001"));
    j["fault"] = json::parse(R"({"down_s": "5"})");  // one error: the type (no range check of 0)
    BOOST_TEST(errors_of(j) == "fault.down_s: expected a number, got a string (\"5\")\n");
    j = kTwoHosts;
    j["latency"] = json::parse(R"({"sizes": [64, 64], "ops": ["write", "write"]})");
    BOOST_TEST(has(errors_of(j), "latency.sizes[1]: 64 given twice"));
    BOOST_TEST(has(errors_of(j), "latency.ops: \"write\" given twice"));
    j = kTwoHosts;
    j["hosts"][1]["address"] = "[::1]:0";
    BOOST_TEST(has(errors_of(j), "hosts[1].address: expected HOST or HOST:PORT"));
    j = kTwoHosts;
    j["stages"] = json::array();
    BOOST_TEST(has(errors_of(j), "stages: empty: expected at least one stage"));
    j = kTwoHosts;
    j["criteria"] = {{"max_traffic_recovery_s", -1}};
    BOOST_TEST(has(errors_of(j), "criteria.max_traffic_recovery_s: expected a number from 0"));
    j = kTwoHosts;
    j["hosts"][1]["address"] = "10.0.0.1:18520";  // hosts[0] with the default port written out
    BOOST_TEST(has(errors_of(j),
                   "hosts[1].address: \"10.0.0.1:18520\" is the same responder "
                   "as host \"10.0.0.1\""));
    j = kTwoHosts;
    j["bandwith"] = json::object();
    BOOST_TEST(has(errors_of(j), "bandwith: unknown field"));
}

BOOST_AUTO_TEST_CASE(spec_file_errors_name_the_file) {
    const auto p = spec_from_file("/nonexistent/fabric.json");
    BOOST_REQUIRE(!p.errors.empty());
    BOOST_TEST(has(p.errors.front(), "/nonexistent/fabric.json: cannot open"));
    // Strict JSON: a key given twice (one would silently win) and a number no double holds are
    // errors naming the file and the place.
    const auto dir =
        std::filesystem::temp_directory_path() / ("rh-spec-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const auto file = [&](const char* name, const char* text) {
        std::ofstream(dir / name) << text;
        return (dir / name).string();
    };
    const auto dup = file("dup.json", R"({"hosts": [{"address": "a"}, {"address": "b"}],
        "fault": {"host": "a", "host": "b"}})");
    BOOST_TEST(has(spec_from_file(dup).errors.at(0), dup + ": duplicate key fault.host"));
    const auto big = file("big.json", R"({"hosts": [{"address": "a"}, {"address": "b"}],
        "fault": {"down_s": 1e400}})");
    BOOST_TEST(has(spec_from_file(big).errors.at(0),
                   big + ": not valid JSON at line 2, column 33 (fault.down_s)"));
    std::filesystem::remove_all(dir);
}

BOOST_AUTO_TEST_CASE(the_differing_host_is_named) {
    FactValues f{"netdev_mtu_bytes", true, {{"g1", "9000"}, {"g2", "9000"}, {"g3", "1500"}}};
    const auto row = consistency_row(f);
    BOOST_TEST(!row.consistent);
    BOOST_REQUIRE(row.differing_hosts.size() == 1u);
    BOOST_TEST(row.differing_hosts[0] == "g3");
    BOOST_TEST(row.values[0].value == "9000");
    BOOST_TEST(row.values[0].hosts.size() == 2u);
    FactValues same{"trust", true, {{"g1", "unknown"}, {"g2", "unknown"}}};
    BOOST_TEST(consistency_row(same).consistent);
    BOOST_TEST(consistency_row(same).differing_hosts.empty());
}

BOOST_AUTO_TEST_CASE(facts_come_from_the_first_nic) {
    InventoryHost a{"g1", "6.1", std::nullopt, true, {}}, b = a;
    InventoryNic n;
    n.netdev_mtu_bytes = 9000;
    n.active_mtu_bytes = 4096;
    a.nics.push_back(n);
    n.netdev_mtu_bytes = 1500;
    n.active_mtu_bytes = 1024;
    b.host = "g2";
    b.nics.push_back(n);
    const auto facts = inventory_facts({a, b});
    BOOST_TEST(facts[0].fact == "netdev_mtu_bytes");
    BOOST_TEST(facts[0].by_host[1].second == "1500");
    BOOST_TEST(facts[1].by_host[0].second == "4096");
    BOOST_TEST(facts[3].by_host[0].second == "unknown");  // roce_version not read
}

// Issue 16 §3: each stage has a time limit, by default from its own work plus a margin, stated in
// the spec report.json keeps; the spec may set it per stage, and a bad one is named.
BOOST_AUTO_TEST_CASE(stage_time_limits_default_from_the_stage_and_can_be_set) {
    json in = json::parse(R"({"hosts": [{"address": "a"}, {"address": "b"}, {"address": "c"}],
                              "bandwidth": {"duration_s": 2}, "incast": {"duration_s": 3},
                              "stage_time_limit_s": {"idle_latency": 900}})");
    const auto p = spec_from_json(in);
    BOOST_REQUIRE_MESSAGE(p.spec, (p.errors.empty() ? "" : p.errors.front()));
    const Spec& s = *p.spec;
    BOOST_TEST(s.stage_time_limit_s(StageId::bandwidth) == (2.0 + 30) * 3);  // 3 ring pairs
    BOOST_TEST(s.stage_time_limit_s(StageId::concurrency) == 2.0 + 60);
    BOOST_TEST(s.stage_time_limit_s(StageId::incast) == 3.0 + 60);
    BOOST_TEST(s.stage_time_limit_s(StageId::idle_latency) == 900.0);        // the spec's own
    BOOST_TEST(s.default_time_limit_s(StageId::idle_latency) == 180.0 * 6);  // 6 ordered pairs
    BOOST_TEST(s.stage_time_limit_s(StageId::fault) == 15 + 5 + 60 + 60.0);
    const json j = spec_to_json(s);
    BOOST_TEST(j["stage_time_limit_s"]["bandwidth"].get<double>() == 96.0);
    BOOST_TEST(j["stage_time_limit_s"]["idle_latency"].get<double>() == 900.0);
    BOOST_TEST(!j["stage_time_limit_s"].contains("fault"));  // not a stage this spec runs
    const auto again = spec_from_json(j);
    BOOST_REQUIRE(again.spec);
    BOOST_TEST(spec_to_json(*again.spec) == j);

    json bad = kTwoHosts;
    bad["stage_time_limit_s"] = {{"bandwith", 60}, {"incast", 0}, {"fault", "1h"}};
    const std::string e = errors_of(bad);
    BOOST_TEST(has(e, "stage_time_limit_s.bandwith: unknown stage (expected one of inventory,"), e);
    BOOST_TEST(has(e,
                   "stage_time_limit_s.incast: expected a number of seconds from 1 to 86400, "
                   "got 0"),
               e);
    BOOST_TEST(has(e,
                   "stage_time_limit_s.fault: expected a number of seconds from 1 to 86400, "
                   "got \"1h\""),
               e);
    bad["stage_time_limit_s"] = 60;
    BOOST_TEST(has(errors_of(bad), "stage_time_limit_s: expected an object"), errors_of(bad));
}

// Issue 30 §4: 16-byte messages passed the spec (and the responder's check), then failed mid-run
// in the probe session (a slot is at least 24 B: 8 payload bytes + its trailer). The spec now
// calls the one limit (probes/wire/probe_limits.h) and refuses them up front, by name.
BOOST_AUTO_TEST_CASE(sixteen_byte_messages_are_refused_up_front) {
    json j = kTwoHosts;
    j["latency"] = {{"sizes", {16u}}};  // unsigned, as JSON text parses
    BOOST_TEST(errors_of(j) ==
               "latency.sizes[0]: expected a message size: a multiple of 8 from 24 to 16777216 "
               "bytes, got 16\n");
    j = kTwoHosts;
    j["bandwidth"] = {{"size_bytes", 16u}};
    BOOST_TEST(has(errors_of(j),
                   "bandwidth.size_bytes: expected a whole number from 24 to "
                   "16777216, got 16"),
               errors_of(j));
    j = kTwoHosts;
    j["criteria"] = {{"p99_latency_us", {{"16", 5}}}};
    BOOST_TEST(has(errors_of(j),
                   "criteria.p99_latency_us.16: the key must be a message size: a "
                   "multiple of 8 from 24"),
               errors_of(j));
    j = kTwoHosts;
    j["latency"] = {{"sizes", {24u, 16777216u}}};
    BOOST_TEST(errors_of(j).empty(), errors_of(j));
}

BOOST_AUTO_TEST_SUITE_END()  // test_accept_spec

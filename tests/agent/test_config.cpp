// agent/daemon/config: the agent's JSON configuration — defaults, every kind of error naming the
// field, the token file's checks, and the shipped default config.
#define BOOST_TEST_MODULE agent_config
#include <sys/stat.h>

#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>

#include "agent/daemon/config.h"

using nlohmann::json;
using rh::agent::AgentConfig;
using rh::agent::load_agent_config;
using rh::agent::load_token_file;
using rh::agent::parse_agent_config;

namespace {

/// The error text of parsing `text`, or "" when it parsed.
std::string error_of(const std::string& text) {
    auto r = parse_agent_config(json::parse(text), "agent.json");
    return r ? "" : r.error().message();
}

bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

std::filesystem::path temp_file(const std::string& name, const std::string& content, mode_t mode) {
    const auto dir =
        std::filesystem::temp_directory_path() / ("rh_agent_config_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    const auto p = dir / name;
    std::ofstream(p) << content;
    chmod(p.c_str(), mode);
    return p;
}

}  // namespace

BOOST_AUTO_TEST_CASE(empty_object_gives_the_documented_defaults) {
    auto r = parse_agent_config(json::object(), "agent.json");
    BOOST_REQUIRE(r);
    BOOST_TEST(r->http.listen_host == "127.0.0.1");  // loopback only by default
    BOOST_TEST(r->http.listen_port == 9477);
    BOOST_TEST(r->http.protect_read == false);
    BOOST_TEST(r->http.max_threads == 4u);
    BOOST_TEST(r->sysfs_root == "/sys");
    BOOST_TEST(r->collect_interval_s == 1.0);
    BOOST_TEST(r->rules_interval_s == 5.0);
    BOOST_TEST(r->retention_s == 300.0);
    BOOST_TEST(r->responder.enabled == false);
    BOOST_TEST(r->responder.port == 18520);
    BOOST_TEST(r->max_points() == 316u);  // 300 s at 1 s plus headroom
    BOOST_TEST(!r->mesh.enabled());       // no peers: no mesh
    BOOST_TEST((r->mesh.ops == std::vector<std::string>{"write"}));
    BOOST_TEST((r->mesh.sizes_bytes == std::vector<std::uint64_t>{64}));
    BOOST_TEST(r->mesh.iterations == 20u);
    BOOST_TEST(r->mesh.interval_s == 1.0);
    BOOST_TEST(r->mesh.jitter == 0.1);
    BOOST_TEST(r->mesh.timeout_s == 2.0);
    BOOST_TEST(r->mesh.summary_window_s == 60.0);
    BOOST_TEST(r->incast.receiver_address == "");
    BOOST_TEST(r->incast.max_duration_s == 30.0);
}

BOOST_AUTO_TEST_CASE(mesh_and_incast_fields_are_read) {
    auto r = parse_agent_config(json::parse(R"({
        "mesh": {"peers": ["10.0.0.2", "gpu08:18600", "[fd00::3]:18520"], "ops": ["read", "write"],
                 "sizes_bytes": [64, 4096], "iterations": 50, "interval_s": 5, "jitter": 0.2,
                 "timeout_s": 0.5, "summary_window_s": 300},
        "incast": {"receiver_address": "10.0.0.1", "max_duration_s": 10}})"),
                                "agent.json");
    BOOST_REQUIRE_MESSAGE(r, (r ? "" : r.error().message()));
    BOOST_TEST(r->mesh.enabled());
    BOOST_TEST(
        (r->mesh.peers == std::vector<std::string>{"10.0.0.2", "gpu08:18600", "[fd00::3]:18520"}));
    BOOST_TEST((r->mesh.ops == std::vector<std::string>{"read", "write"}));
    BOOST_TEST((r->mesh.sizes_bytes == std::vector<std::uint64_t>{64, 4096}));
    BOOST_TEST(r->mesh.iterations == 50u);
    BOOST_TEST(r->mesh.interval_s == 5.0);
    BOOST_TEST(r->mesh.jitter == 0.2);
    BOOST_TEST(r->mesh.timeout_s == 0.5);
    BOOST_TEST(r->mesh.summary_window_s == 300.0);
    BOOST_TEST(r->incast.receiver_address == "10.0.0.1");
    BOOST_TEST(r->incast.max_duration_s == 10.0);
}

BOOST_AUTO_TEST_CASE(mesh_errors_name_the_field_and_item) {
    BOOST_TEST(contains(error_of(R"({"mesh": {"peers": "10.0.0.2"}})"),
                        "mesh.peers: expected an array, got string"));
    BOOST_TEST(contains(error_of(R"({"mesh": {"peers": ["10.0.0.2", 7]}})"),
                        "mesh.peers[1]: expected a string, got number"));
    BOOST_TEST(contains(error_of(R"({"mesh": {"peers": ["a", "a"]}})"),
                        "mesh.peers[1]: \"a\" given twice"));
    BOOST_TEST(contains(error_of(R"({"mesh": {"peers": ["h:0"]}})"),
                        "mesh.peers[0]: expected HOST or HOST:PORT (port 1..65535), got \"h:0\""));
    BOOST_TEST(
        contains(error_of(R"({"mesh": {"peers": ["a b"]}})"), "mesh.peers[0]: expected HOST"));
    BOOST_TEST(contains(error_of(R"({"mesh": {"ops": ["send"]}})"),
                        "mesh.ops[0]: expected \"write\" or \"read\", got \"send\""));
    BOOST_TEST(
        contains(error_of(R"({"mesh": {"ops": []}})"), "mesh.ops: 0 items: expected 1 to 2"));
    BOOST_TEST(contains(error_of(R"({"mesh": {"sizes_bytes": [64, 100]}})"),
                        "mesh.sizes_bytes[1]: 100 is not a probe message size"));
    BOOST_TEST(contains(error_of(R"({"mesh": {"sizes_bytes": [8]}})"),
                        "mesh.sizes_bytes[0]: 8 is out of range: expected 16 to 16777216"));
    BOOST_TEST(contains(error_of(R"({"mesh": {"interval_s": 0.05}})"),
                        "mesh.interval_s: 0.05 is out of range: expected 0.1 to 3600 seconds"));
    BOOST_TEST(contains(error_of(R"({"mesh": {"jitter": 0.6}})"),
                        "mesh.jitter: 0.6 is out of range: expected 0 to 0.5"));
    BOOST_TEST(
        contains(error_of(R"({"mesh": {"timeout_s": 0}})"), "mesh.timeout_s: 0 is out of range"));
    BOOST_TEST(contains(error_of(R"({"mesh": {"iterations": 0}})"),
                        "mesh.iterations: 0 is out of range: expected 1 to 100000"));
    BOOST_TEST(contains(error_of(R"({"mesh": {"peer": ["a"]}})"), "mesh.peer: unknown field"));
    BOOST_TEST(contains(error_of(R"({"incast": {"max_duration_s": 601}})"),
                        "incast.max_duration_s: 601 is out of range: expected 0.1 to 600 seconds"));
    BOOST_TEST(contains(error_of(R"({"incast": {"receiver_address": "h:x"}})"),
                        "incast.receiver_address: expected HOST or HOST:PORT"));
}

BOOST_AUTO_TEST_CASE(every_field_is_read) {
    auto r = parse_agent_config(json::parse(R"({
        "comment": "test", "host": "gpu07", "sysfs_root": "/srv/sys", "device": "mlx5_1",
        "collect_interval_s": 2.5, "rules_interval_s": 10, "retention_s": 600,
        "rules_file": "/etc/r.json",
        "http": {"listen": "[::1]:9500", "token_file": "/etc/t", "protect_read": true,
                 "max_threads": 2, "max_queued": 8, "max_request_bytes": 0,
                 "read_timeout_s": 1.5, "write_timeout_s": 2},
        "responder": {"enabled": true, "listen": "10.0.0.1", "port": 18600, "device": "mlx5_0",
                      "gid_index": 3, "max_sessions": 4}})"),
                                "agent.json");
    BOOST_REQUIRE_MESSAGE(r, (r ? "" : r.error().message()));
    BOOST_TEST(r->host == "gpu07");
    BOOST_TEST(r->sysfs_root == "/srv/sys");
    BOOST_TEST(r->device == "mlx5_1");
    BOOST_TEST(r->collect_interval_s == 2.5);
    BOOST_TEST(r->retention_s == 600.0);
    BOOST_TEST(r->http.listen_host == "::1");
    BOOST_TEST(r->http.listen_port == 9500);
    BOOST_TEST(r->http.protect_read);
    BOOST_TEST(r->http.max_request_bytes == 0u);
    BOOST_TEST(r->http.read_timeout_s == 1.5);
    BOOST_TEST(r->responder.listen == "10.0.0.1");
    BOOST_TEST(r->responder.port == 18600);
    BOOST_REQUIRE(r->responder.gid_index.has_value());
    BOOST_TEST(*r->responder.gid_index == 3u);
    BOOST_TEST(r->responder.max_sessions == 4u);
}

BOOST_AUTO_TEST_CASE(unknown_fields_are_errors_naming_them) {
    BOOST_TEST(error_of(R"({"colect_interval_s": 1})") ==
               "config agent.json: colect_interval_s: unknown field");
    BOOST_TEST(
        contains(error_of(R"({"http": {"listn": "127.0.0.1:1"}})"), "http.listn: unknown field"));
    BOOST_TEST(contains(error_of(R"({"responder": {"enable": true}})"),
                        "responder.enable: unknown field"));
}

BOOST_AUTO_TEST_CASE(wrong_types_are_errors_naming_field_and_type) {
    BOOST_TEST(contains(error_of(R"({"collect_interval_s": "1s"})"),
                        "collect_interval_s: expected a number (seconds), got string"));
    BOOST_TEST(contains(error_of(R"({"http": {"protect_read": "yes"}})"),
                        "http.protect_read: expected true or false, got string"));
    BOOST_TEST(contains(error_of(R"({"http": {"max_threads": 1.5}})"),
                        "http.max_threads: expected a whole number, got 1.5"));
    BOOST_TEST(contains(error_of(R"({"http": 9477})"), "http: expected an object, got number"));
    BOOST_TEST(contains(error_of(R"({"host": 7})"), "host: expected a string, got number"));
    BOOST_TEST(contains(error_of("[]"), "expected a JSON object at the top, got array"));
}

BOOST_AUTO_TEST_CASE(out_of_range_values_are_errors_with_the_range) {
    BOOST_TEST(contains(error_of(R"({"http": {"max_threads": 0}})"),
                        "http.max_threads: 0 is out of range: expected 1 to 64"));
    BOOST_TEST(contains(error_of(R"({"collect_interval_s": 0.01})"),
                        "collect_interval_s: 0.01 is out of range: expected 0.1 to 3600 seconds"));
    BOOST_TEST(contains(error_of(R"({"responder": {"port": 70000}})"),
                        "responder.port: 70000 is out of range: expected 1 to 65535"));
    BOOST_TEST(contains(error_of(R"({"responder": {"gid_index": 256}})"),
                        "responder.gid_index: 256 is out of range: expected 0 to 255"));
    BOOST_TEST(contains(error_of(R"({"http": {"max_request_bytes": -1}})"),
                        "http.max_request_bytes: -1 is out of range"));
    BOOST_TEST(contains(error_of(R"({"retention_s": 60, "collect_interval_s": 10})"),
                        "retention_s: 60 keeps fewer than 10 passes"));
    BOOST_TEST(error_of(R"({"responder": {"gid_index": null}})") == "");
}

BOOST_AUTO_TEST_CASE(listen_must_be_an_ip_and_port) {
    for (const char* bad : {"localhost:9477", "127.0.0.1", "127.0.0.1:", "127.0.0.1:65536",
                            "::1:9477", "127.0.0.1:12a"})
        BOOST_TEST(contains(error_of(std::string(R"({"http": {"listen": ")") + bad + "\"}}"),
                            std::string("http.listen: expected HOST:PORT")),
                   bad);
    BOOST_TEST(error_of(R"({"http": {"listen": "0.0.0.0:0"}})") == "");
    BOOST_TEST(contains(error_of(R"({"responder": {"listen": "any"}})"),
                        "responder.listen: expected an IP address, got \"any\""));
}

BOOST_AUTO_TEST_CASE(protected_reads_need_a_token_file) {
    BOOST_TEST(contains(error_of(R"({"http": {"protect_read": true}})"),
                        "http.protect_read: true needs http.token_file"));
}

BOOST_AUTO_TEST_CASE(all_errors_are_reported_at_once) {
    const std::string e = error_of(R"({"x": 1, "http": {"max_threads": 99, "y": 2}})");
    BOOST_TEST(contains(e, "x: unknown field"));
    BOOST_TEST(contains(e, "http.max_threads: 99 is out of range"));
    BOOST_TEST(contains(e, "http.y: unknown field"));
}

BOOST_AUTO_TEST_CASE(files_that_cannot_be_read_or_parsed_are_named) {
    auto missing = load_agent_config("/nonexistent/agent.json");
    BOOST_REQUIRE(!missing);
    BOOST_TEST(contains(missing.error().message(), "/nonexistent/agent.json"));
    const auto bad = temp_file("bad.json", "{\"host\": ", 0600);
    auto r = load_agent_config(bad.string());
    BOOST_REQUIRE(!r);
    BOOST_TEST(contains(r.error().message(), bad.string() + ": not valid JSON"));
}

BOOST_AUTO_TEST_CASE(token_file_checks) {
    const auto good = temp_file("token", "  0123456789abcdef0123\n", 0600);
    auto t = load_token_file(good.string());
    BOOST_REQUIRE(t);
    BOOST_TEST(*t == "0123456789abcdef0123");  // surrounding whitespace removed
    const auto world = temp_file("world", "0123456789abcdef0123\n", 0644);
    auto w = load_token_file(world.string());
    BOOST_REQUIRE(!w);
    BOOST_TEST(contains(w.error().message(), "readable by every user (mode 644)"));
    const auto shortt = temp_file("short", "abc\n", 0600);
    BOOST_TEST(contains(load_token_file(shortt.string()).error().message(),
                        "token has 3 characters; use at least 16"));
    const auto empty = temp_file("empty", "\n", 0600);
    BOOST_TEST(contains(load_token_file(empty.string()).error().message(), "empty"));
    BOOST_TEST(!load_token_file("/nonexistent/token"));
}

BOOST_AUTO_TEST_CASE(the_shipped_default_config_is_valid_and_loopback_only) {
    auto r = load_agent_config(RH_FIXTURES_DIR "/../../packaging/agent.json");
    BOOST_REQUIRE_MESSAGE(r, (r ? "" : r.error().message()));
    BOOST_TEST(r->http.listen_host == "127.0.0.1");
    BOOST_TEST(r->sysfs_root == "/sys");
}

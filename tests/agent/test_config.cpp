// agent/daemon/config: the agent's JSON configuration — defaults, every kind of error naming the
// field, the token file's checks, and the shipped default config.
#include <sys/stat.h>

#include <algorithm>
#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "agent/daemon/config.h"
#include "agent/daemon/config_host_check.h"

BOOST_AUTO_TEST_SUITE(test_agent_config)

using nlohmann::json;
using rh::agent::AgentConfig;
using rh::agent::load_agent_config;
using rh::agent::load_token_file;
using rh::agent::parse_agent_config;

namespace {

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

/// The message `agent --config FILE` prints for a file holding `text` (read as the agent reads
/// it: load_agent_config), or "" when it loads. Every error names the file first.
std::string error_of(const std::string& text) {
    const auto path = temp_file("agent.json", text, 0600);
    auto r = load_agent_config(path.string());
    if (r) return "";
    const std::string m = r.error().message();
    BOOST_TEST(m.rfind("config " + path.string() + ": ", 0) == 0u, m);
    return m;
}

/// A config file and what its error must say: the field's path and what is wrong with it.
struct BadConfig {
    const char* text;
    const char* field_and_what;
};

const BadConfig kBadConfigs[] = {
    // mesh and incast: the field, and the item of a list
    {R"({"mesh": {"peers": "10.0.0.2"}})",
     "mesh.peers: expected an array, got a string (\"10.0.0.2\")"},
    {R"({"mesh": {"peers": ["10.0.0.2", 7]}})",
     "mesh.peers[1]: expected a string, got a number (7)"},
    {R"({"mesh": {"peers": ["a", "a"]}})", "mesh.peers[1]: \"a\" given twice"},
    {R"({"mesh": {"peers": ["h:0"]}})",
     "mesh.peers[0]: expected HOST or HOST:PORT (port 1..65535), got \"h:0\""},
    {R"({"mesh": {"peers": ["a b"]}})", "mesh.peers[0]: expected HOST"},
    {R"({"mesh": {"ops": ["send"]}})", "mesh.ops[0]: expected \"write\" or \"read\", got \"send\""},
    {R"({"mesh": {"ops": []}})", "mesh.ops: 0 items: expected 1 to 2"},
    {R"({"mesh": {"sizes_bytes": [64, 100]}})",
     "mesh.sizes_bytes[1]: 100 is not a probe message size"},
    {R"({"mesh": {"sizes_bytes": [8]}})",
     "mesh.sizes_bytes[0]: expected a whole number from 24 to 16777216, got 8"},
    // 16 B holds no probe slot (8 payload bytes + the trailer): `probe --sizes 16` refuses it.
    {R"({"mesh": {"sizes_bytes": [16]}})",
     "mesh.sizes_bytes[0]: expected a whole number from 24 to 16777216, got 16"},
    {R"({"mesh": {"interval_s": 0.05}})",
     "mesh.interval_s: expected a number from 0.1 to 3600 seconds, got 0.05"},
    {R"({"mesh": {"jitter": 0.6}})",
     "mesh.jitter: expected a number from 0 to 0.5 (fraction of interval_s), got 0.6"},
    {R"({"mesh": {"timeout_s": 0}})",
     "mesh.timeout_s: expected a number from 0.01 to 60 seconds, got 0"},
    {R"({"mesh": {"iterations": 0}})",
     "mesh.iterations: expected a whole number from 1 to 100000, got 0"},
    {R"({"mesh": {"peer": ["a"]}})", "mesh.peer: unknown field"},
    {R"({"mesh": {"peers": ["a"], "peers_file": "/etc/rocehealth/fleet.jsonl"}})",
     "mesh: give exactly one of mesh.peers, mesh.peers_file, mesh.peers_dns and "
     "mesh.peers_prometheus (the fleet's source), got mesh.peers and mesh.peers_file"},
    {R"({"mesh": {"peers": ["a"], "peers_dns": "fleet.example"}})",
     "got mesh.peers and mesh.peers_dns"},
    {R"({"mesh": {"peers_file": "/f", "peers_dns": "a", "peers_prometheus": {"url": "http://p"}}})",
     "got mesh.peers_file, mesh.peers_dns and mesh.peers_prometheus"},
    {R"({"mesh": {"peers_dns": "gpus example"}})",
     "mesh.peers_dns: expected a DNS name (letters, digits, '.', '-', '_'), got \"gpus example\""},
    {R"({"mesh": {"peers_prometheus": {}}})",
     "mesh.peers_prometheus.url: missing: the Prometheus base URL"},
    {R"({"mesh": {"peers_prometheus": {"url": "prom:9090"}}})",
     "mesh.peers_prometheus.url: expected http://HOST[:PORT][/PREFIX] or https://..., got "
     "\"prom:9090\""},
    {R"({"mesh": {"peers_prometheus": {"url": "http://p:9090", "jobs": "x"}}})",
     "mesh.peers_prometheus.jobs: unknown field"},
    {R"({"mesh": {"peers_prometheus": {"url": "http://p", "max_answer_bytes": 10}}})",
     "mesh.peers_prometheus.max_answer_bytes: expected a whole number from 1024 to 1073741824, got "
     "10"},
    // peers_prometheus.headers: an object or a list, each header checked where it is written
    {R"({"mesh": {"peers_prometheus": {"url": "http://p", "headers": "X-Scope-OrgID: t"}}})",
     "mesh.peers_prometheus.headers: expected an object {\"NAME\": \"VALUE\"} or a list "
     "[\"NAME: VALUE\"], got a string"},
    {R"({"mesh": {"peers_prometheus": {"url": "http://p", "headers": {"X-Scope-OrgID": 7}}}})",
     "mesh.peers_prometheus.headers.X-Scope-OrgID: expected a string, got a number"},
    {R"({"mesh": {"peers_prometheus": {"url": "http://p", "headers": {"Host": "evil"}}}})",
     "mesh.peers_prometheus.headers.Host: header Host is set by rocehealth itself"},
    {R"({"mesh": {"peers_prometheus": {"url": "http://p", "headers": {"X-A": "a\r\nX-B: b"}}}})",
     "mesh.peers_prometheus.headers.X-A: the value of header X-A holds a control character"},
    {R"({"mesh": {"peers_prometheus": {"url": "http://p", "headers": ["X-Scope-OrgID t1"]}}})",
     "mesh.peers_prometheus.headers[0]: expected NAME: VALUE, e.g. 'X-Scope-OrgID: tenant1', got "
     "\"X-Scope-OrgID t1\""},
    {R"({"mesh": {"peers_prometheus": {"url": "http://p", "headers": ["A: 1", "a: 2"]}}})",
     "mesh.peers_prometheus.headers[1]: header a given twice"},
    {R"({"mesh": {"peers_prometheus": {"url": "http://p", "headers": ["X Y: 1"]}}})",
     "mesh.peers_prometheus.headers[0]: header name 'X Y' holds a character a header name "
     "cannot have"},
    {R"({"mesh": {"peers_dns": "a", "peers_refresh_s": 5}})",
     "mesh.peers_refresh_s: expected a number from 10 to 86400 seconds, got 5"},
    {R"({"mesh": {"peers": ["a"], "peers_refresh_s": 30}})",
     "mesh.peers_refresh_s: applies to mesh.peers_dns and mesh.peers_prometheus only"},
    // lldp: label names as topology's, interface names, not a label written in topology too
    {R"({"lldp": {"labels": {"tor": "ens1f0np0"}}, "topology": {"tor": "r07"}})",
     "lldp.labels.tor: topology.tor is given too: set the label in one of them"},
    {R"({"lldp": {"labels": {"host": "eth0"}}})",
     "lldp.labels.host: \"host\" is a label rocehealth or Prometheus already uses"},
    {R"({"lldp": {"labels": {"tor": "a/b"}}})",
     "lldp.labels.tor: expected a local interface name (1 to 15 characters, no '/' or space)"},
    {R"({"lldp": {"timeout_s": 100}})",
     "lldp.timeout_s: expected a number from 0.1 to 60 seconds, got 100"},
    {R"({"lldp": {"lldpcli": ""}})", "lldp.lldpcli: must not be empty"},
    {R"({"mesh": {"inter_tor_peers": 0}})",
     "mesh.inter_tor_peers: expected a whole number from 1 to 64, got 0"},
    {R"({"mesh": {"intra_tor_cap": 300}})",
     "mesh.intra_tor_cap: expected a whole number from 1 to 256, got 300"},
    {R"({"mesh": {"peers_file": "/nonexistent/fleet.jsonl"}})",
     "mesh.peers_file /nonexistent/fleet.jsonl: No such file or directory"},
    {R"({"incast": {"max_duration_s": 601}})",
     "incast.max_duration_s: expected a number from 0.1 to 600 seconds, got 601"},
    {R"({"incast": {"receiver_address": "h:x"}})",
     "incast.receiver_address: expected HOST or HOST:PORT"},
    {R"({"incast": {"allowed_senders": ["10.0.0.0/33"]}})",
     "incast.allowed_senders[0]: expected a CIDR block such as \"10.0.1.0/24\""},
    {R"({"http": {"action_token_file": 5}})", "http.action_token_file: expected a string"},
    // topology: label names Prometheus accepts and nobody else uses, short non-empty values
    {R"({"topology": {"rack-id": "r1"}})",
     "topology.rack-id: not a Prometheus label name: expected letters, digits and '_'"},
    {R"({"topology": {"2tor": "r1"}})", "topology.2tor: not a Prometheus label name"},
    {R"({"topology": {"__tor": "r1"}})",
     "topology.__tor: label names starting with \"__\" are Prometheus' own"},
    {R"({"topology": {"host": "gpu01"}})",
     "topology.host: \"host\" is a label rocehealth or Prometheus already uses"},
    {R"({"topology": {"instance": "gpu01:9477"}})",
     "topology.instance: \"instance\" is a label rocehealth or Prometheus already uses"},
    {R"({"topology": {"job": "x"}})", "topology.job: \"job\" is a label"},
    {R"({"topology": {"fabric": "a"}})",
     "topology.fabric: \"fabric\" is the scrape config's target label"},
    {R"({"topology": {"priority": "3"}})",
     "topology.priority: \"priority\" is a label of the agent's own series"},
    {R"({"topology": {"device": "x"}})", "topology.device: \"device\" is a label of the agent's"},
    {R"({"topology": {"tor": ""}})", "topology.tor: must not be empty"},
    {R"({"topology": {"rail": 2}})",
     "topology.rail: expected a string, got a number (write it in quotes: \"2\")"},
    {R"({"topology": {"tor": ["r1"]}})", "topology.tor: expected a string, got an array"},
    {R"({"topology": {"tor": "r\n1"}})", "topology.tor: contains a control character"},
    {R"({"topology": "tor=r1"})", "topology: expected an object, got a string (\"tor=r1\")"},
    {R"({"topology": {"a0": "1", "a1": "1", "a2": "1", "a3": "1", "a4": "1", "a5": "1",
         "a6": "1", "a7": "1", "a8": "1", "a9": "1", "b0": "1", "b1": "1", "b2": "1", "b3": "1",
         "b4": "1", "b5": "1", "b6": "1"}})",
     "topology: 17 labels: expected at most 16"},
    // unknown fields
    {R"({"colect_interval_s": 1})", "colect_interval_s: unknown field"},
    {R"({"http": {"listn": "127.0.0.1:1"}})", "http.listn: unknown field"},
    {R"({"responder": {"enable": true}})", "responder.enable: unknown field"},
    // wrong types: the field and the type given
    {R"({"collect_interval_s": "1s"})",
     "collect_interval_s: expected a number, got a string (\"1s\")"},
    {R"({"http": {"protect_read": "yes"}})",
     "http.protect_read: expected true or false, got a string (\"yes\")"},
    {R"({"http": {"max_threads": 1.5}})",
     "http.max_threads: expected a whole number from 1 to 64, got a number (1.5)"},
    {R"({"http": 9477})", "http: expected an object, got a number (9477)"},
    {R"({"host": 7})", "host: expected a string, got a number (7)"},
    // the host name every sample and finding carries: non-empty, a DNS name's length, printable
    {R"({"host": ""})", "host: empty: expected this host's name"},
    {R"({"host": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"})",
     "host: 254 bytes long: at most 253 (a DNS name)"},
    {R"({"host": "gpu 01"})", "host: byte 4 is not a printable character other than a space"},
    {R"({"host": "gpu\u001b01"})", "host: byte 4 is not a printable character"},
    {"[]", "expected a JSON object at the top, got array"},
    // out of range: the value and the range
    {R"({"http": {"max_threads": 0}})",
     "http.max_threads: expected a whole number from 1 to 64, got 0"},
    {R"({"collect_interval_s": 0.01})",
     "collect_interval_s: expected a number from 0.1 to 3600 seconds, got 0.01"},
    {R"({"responder": {"port": 70000}})",
     "responder.port: expected a whole number from 1 to 65535, got 70000"},
    {R"({"responder": {"allow_fault": "yes"}})", "responder.allow_fault: expected true or false"},
    {R"({"responder": {"allow_fault": true}})",
     "responder.allow_fault: true has no effect while responder.enabled is false"},
    {R"({"responder": {"gid_index": 256}})",
     "responder.gid_index: expected a whole number from 0 to 255, got 256"},
    {R"({"http": {"max_request_bytes": -1}})",
     "http.max_request_bytes: expected a whole number from 0 to 1048576, got -1"},
    {R"({"http": {"max_connections_per_address": 0}})",
     "http.max_connections_per_address: expected a whole number from 1 to 1024, got 0"},
    {R"({"http": {"max_connections": 5000}})",
     "http.max_connections: expected a whole number from 1 to 4096, got 5000"},
    {R"({"http": {"request_timeout_s": 0}})",
     "http.request_timeout_s: expected a number from 0.1 to 300 seconds, got 0"},
    {R"({"retention_s": 60, "collect_interval_s": 10})",
     "retention_s: 60 keeps fewer than 10 passes"},
    // listen addresses: an IP and a port
    {R"({"http": {"listen": ""}})",
     "http.listen: expected HOST:PORT with HOST an IP address (\"[::1]:9477\" for IPv6) and PORT "
     "0..65535, got \"\""},
    {R"({"http": {"listen": "localhost:9477"}})", "http.listen: expected HOST:PORT"},
    {R"({"http": {"listen": "127.0.0.1"}})", "http.listen: expected HOST:PORT"},
    {R"({"http": {"listen": "127.0.0.1:"}})", "http.listen: expected HOST:PORT"},
    {R"({"http": {"listen": "127.0.0.1:65536"}})", "http.listen: expected HOST:PORT"},
    {R"({"http": {"listen": "::1:9477"}})", "http.listen: expected HOST:PORT"},
    {R"({"http": {"listen": "127.0.0.1:12a"}})", "http.listen: expected HOST:PORT"},
    {R"({"responder": {"listen": "any"}})",
     "responder.listen: expected an IP address, got \"any\""},
    {R"({"http": {"protect_read": true}})", "http.protect_read: true needs http.token_file"},
    // a key given twice (nlohmann keeps the last silently), a number no double holds
    {R"({"http": {"listen": "127.0.0.1:9477", "listen": "0.0.0.0:9477"}})",
     "duplicate key http.listen"},
    {R"({"mesh": {"peers": ["a"]}, "mesh": {}})", "duplicate key mesh"},
    {"{\"host\": \"a\",\n \"collect_interval_s\": 1e400}",
     "not valid JSON at line 2, column 28 (collect_interval_s): number overflow parsing '1e400'"},
};

}  // namespace

BOOST_DATA_TEST_CASE(each_error_names_the_file_and_the_field,
                     boost::unit_test::data::xrange(std::size(kBadConfigs)), i) {
    const BadConfig& c = kBadConfigs[i];
    BOOST_TEST_CONTEXT(c.text) {
        const std::string m = error_of(c.text);
        BOOST_TEST(contains(m, c.field_and_what), "want \"" << c.field_and_what << "\" in: " << m);
    }
}

/// A peers file (agent/fleet/mesh_peers_file.h) and what its error must say: the line and field.
struct BadPeersFile {
    const char* text;
    const char* line_and_what;
};

const BadPeersFile kBadPeersFiles[] = {
    {"", "no host listed"},
    {"# only a comment\n\n", "no host listed"},
    {"{\"host\": \"a\", \"address\": \"10.0.0.1\", \"tor\": \"r1\"}\n{\"host\": \"b\"",
     "2: not valid JSON"},
    {"[1, 2]", "1: expected an object, got array"},
    {"{\"host\": \"a\", \"address\": \"10.0.0.1\"}", "1: field \"tor\": missing"},
    {"{\"host\": \"a\", \"address\": \"10.0.0.1\", \"tor\": \"\"}",
     "1: field \"tor\": expected a non-empty string, got \"\""},
    {"{\"host\": \"a\", \"address\": \"10.0.0.1\", \"tor\": 7}",
     "1: field \"tor\": expected a non-empty string, got 7"},
    {"{\"host\": \"a\", \"address\": \"10.0.0.1\", \"tor\": \"r1\", \"rack\": \"x\"}",
     "1: field \"rack\": unknown field"},
    {"{\"host\": \"a\", \"address\": \"10.0.0.1:0\", \"tor\": \"r1\"}",
     "1: field \"address\": expected HOST or HOST:PORT"},
    {"{\"host\": \"a\", \"address\": \"10.0.0.1\", \"tor\": \"r1\"}\n"
     "{\"host\": \"a\", \"address\": \"10.0.0.2\", \"tor\": \"r1\"}",
     "2: field \"host\": \"a\" already on line 1"},
    {"{\"host\": \"a\", \"address\": \"10.0.0.1\", \"tor\": \"r1\"}\n"
     "{\"host\": \"b\", \"address\": \"10.0.0.1\", \"tor\": \"r1\"}",
     "2: field \"address\": \"10.0.0.1\" already on line 1"},
    // A key given twice: JSON readers differ on which wins, so neither is taken.
    {"{\"host\": \"a\", \"address\": \"10.0.0.1\", \"tor\": \"r1\", \"tor\": \"r2\"}",
     "1: field \"tor\": given twice on the line"},
    // One responder with and without its default port, or in another case: probed twice.
    {"{\"host\": \"a\", \"address\": \"10.0.0.1\", \"tor\": \"r1\"}\n"
     "{\"host\": \"b\", \"address\": \"10.0.0.1:18520\", \"tor\": \"r1\"}",
     "2: field \"address\": \"10.0.0.1:18520\" already on line 1 (as 10.0.0.1:18520)"},
    {"{\"host\": \"a\", \"address\": \"GPU01:18520\", \"tor\": \"r1\"}\n"
     "{\"host\": \"b\", \"address\": \"gpu01\", \"tor\": \"r1\"}",
     "2: field \"address\": \"gpu01\" already on line 1"},
};

BOOST_DATA_TEST_CASE(each_peers_file_error_names_the_file_line_and_field,
                     boost::unit_test::data::xrange(std::size(kBadPeersFiles)), i) {
    const BadPeersFile& c = kBadPeersFiles[i];
    BOOST_TEST_CONTEXT(c.text) {
        const auto peers = temp_file("fleet.jsonl", c.text, 0644);
        const std::string m = error_of(R"({"mesh": {"peers_file": ")" + peers.string() + R"("}})");
        const std::string want = "mesh.peers_file " + peers.string() + ": ";
        BOOST_TEST(contains(m, want), "want \"" << want << "\" in: " << m);
        BOOST_TEST(contains(m, c.line_and_what), "want \"" << c.line_and_what << "\" in: " << m);
    }
}

// A relative peers_file is the config file's neighbour, wherever the agent starts (systemd
// starts it in /): the rollout copies /etc/rocehealth/agent.json and fleet.jsonl side by side.
BOOST_AUTO_TEST_CASE(a_relative_peers_file_is_read_from_the_config_folder) {
    const auto peers =
        temp_file("fleet-rel.jsonl",
                  "{\"host\": \"gpu01\", \"address\": \"10.0.1.1\", \"tor\": \"r01\"}\n", 0644);
    const auto path =
        temp_file("agent-rel.json", R"({"mesh": {"peers_file": "fleet-rel.jsonl"}})", 0600);
    const auto cwd = std::filesystem::current_path();
    std::filesystem::current_path("/");
    auto r = load_agent_config(path.string());
    std::filesystem::current_path(cwd);
    BOOST_REQUIRE_MESSAGE(r, (r ? "" : r.error().message()));
    BOOST_TEST(r->mesh.peers_file == peers.string());
    BOOST_REQUIRE(r->mesh.fleet.size() == 1u);
    BOOST_TEST(r->mesh.fleet[0].host == "gpu01");
    // Missing beside the config: the error names the resolved path.
    const auto lost =
        temp_file("agent-lost.json", R"({"mesh": {"peers_file": "nope.jsonl"}})", 0600);
    auto e = load_agent_config(lost.string());
    BOOST_REQUIRE(!e);
    BOOST_TEST(contains(e.error().message(),
                        "mesh.peers_file " + (lost.parent_path() / "nope.jsonl").string() + ": "),
               e.error().message());
}

// Every path field resolves as peers_file does: beside the config, not in the working directory
// (a key_file that resolved against / was a new user's find).
BOOST_AUTO_TEST_CASE(every_relative_path_field_is_read_from_the_config_folder) {
    const auto path = temp_file("agent-paths.json", R"({"sysfs_root": "sys", "rules_file": "r.json",
        "http": {"token_file": "t", "action_token_file": "a", "tls_cert_file": "c.pem",
                 "tls_key_file": "k.pem"},
        "responder": {"key_file": "fabric.key", "host_key_file": "keys/host.key",
                      "known_hosts_file": "../kh"},
        "lldp": {"lldpcli": "bin/lldpcli"}})",
                                0600);
    const auto dir = path.parent_path();
    const auto cwd = std::filesystem::current_path();
    std::filesystem::current_path("/");
    auto r = load_agent_config(path.string());
    std::filesystem::current_path(cwd);
    BOOST_REQUIRE_MESSAGE(r, (r ? "" : r.error().message()));
    BOOST_TEST(r->sysfs_root == (dir / "sys").string());
    BOOST_TEST(r->rules_file == (dir / "r.json").string());
    BOOST_TEST(r->http.token_file == (dir / "t").string());
    BOOST_TEST(r->http.action_token_file == (dir / "a").string());
    BOOST_TEST(r->http.tls_cert_file == (dir / "c.pem").string());
    BOOST_TEST(r->http.tls_key_file == (dir / "k.pem").string());
    BOOST_TEST(r->responder.key_file == (dir / "fabric.key").string());
    BOOST_TEST(r->responder.host_key_file == (dir / "keys/host.key").string());
    BOOST_TEST(r->responder.known_hosts_file == (dir / "../kh").string());
    BOOST_TEST(r->lldp.lldpcli == (dir / "bin/lldpcli").string());
    // Absolute paths, empty fields and a bare program name stay as written.
    BOOST_TEST(rh::agent::config_relative("/etc/rocehealth/agent.json", "/k") == "/k");
    BOOST_TEST(rh::agent::config_relative("/etc/rocehealth/agent.json", "") == "");
    BOOST_TEST(rh::agent::config_relative("agent.json", "k") == "k");
    auto d = load_agent_config(temp_file("agent-defaults.json", "{}", 0600).string());
    BOOST_REQUIRE(d);
    BOOST_TEST(d->sysfs_root == "/sys");
    BOOST_TEST(d->lldp.lldpcli == "lldpcli");
    BOOST_TEST(d->responder.key_file == "");
}

// --check-config: a config that parses but that this host cannot serve fails, naming the field.
BOOST_AUTO_TEST_CASE(check_config_on_host_names_unbindable_addresses_and_unknown_devices) {
    const auto sys = temp_file("agent.json", "{}", 0600).parent_path() / "hostcheck_sys";
    std::filesystem::create_directories(sys / "class" / "infiniband" / "mlx5_0");
    AgentConfig c;
    c.source = "agent.json";
    c.sysfs_root = sys.string();
    c.device = "mlx5_0";
    c.http.listen_host = "127.0.0.1";
    BOOST_TEST(static_cast<bool>(rh::agent::check_config_on_host(c)));
    c.http.listen_host = "192.0.2.1";  // TEST-NET-1: no host's own address
    c.device = "mlx5_9";
    c.responder.enabled = true;
    c.responder.listen = "0.0.0.0";
    c.responder.device = "rxe7";
    auto r = rh::agent::check_config_on_host(c);
    BOOST_REQUIRE(!r);
    const std::string m = r.error().message();
    BOOST_TEST(contains(m, "config agent.json: "), m);
    BOOST_TEST(contains(m, "http.listen: cannot bind 192.0.2.1 on this host: "), m);
    BOOST_TEST(!contains(m, "responder.listen"), m);
    BOOST_TEST(contains(m, "device: no RDMA device mlx5_9 under " +
                               (sys / "class/infiniband").string() + " (present: mlx5_0)"),
               m);
    BOOST_TEST(contains(m, "responder.device: no RDMA device rxe7"), m);
    c.http.listen_host = "127.0.0.1";
    c.responder.listen = "198.51.100.7";  // TEST-NET-2
    c.device = c.responder.device = "";
    r = rh::agent::check_config_on_host(c);
    BOOST_REQUIRE(!r);
    BOOST_TEST(contains(r.error().message(), "responder.listen: cannot bind 198.51.100.7"));
    BOOST_TEST(!contains(r.error().message(), "http.listen"), r.error().message());
}

// --check-config's finds (issue 29): an address nothing can connect to, a responder with no port
// to serve, and this host's own fleet line naming another host passed; now each is named.
BOOST_AUTO_TEST_CASE(
    check_config_on_host_refuses_cast_addresses_portless_responders_and_foreign_self) {
    AgentConfig c;
    c.source = "agent.json";
    c.sysfs_root = RH_FIXTURES_DIR "/mlx5_healthy/sys";
    c.host = "me";
    const auto problems = [&c] {
        auto r = rh::agent::check_config_on_host(c);
        return r ? std::string() : r.error().message();
    };
    BOOST_REQUIRE_MESSAGE(problems().empty(), problems());
    c.responder.enabled = true;  // the fixture has an ACTIVE Ethernet port with a RoCE v2 GID
    BOOST_REQUIRE_MESSAGE(problems().empty(), problems());
    for (const char* cast : {"224.0.0.1", "255.255.255.255", "ff02::1"}) {
        c.http.listen_host = c.responder.listen = cast;
        const std::string m = problems();
        for (const std::string field : {"http.listen: ", "responder.listen: "})
            BOOST_TEST(contains(m, field + cast + " is "), m);
        BOOST_TEST(contains(m, "TCP cannot listen there; give one of this host's addresses"), m);
    }
    c.http.listen_host = "127.0.0.1";
    c.responder.listen = "0.0.0.0";
    // No RDMA port: the responder could not start (the agent would run without it).
    const auto empty = temp_file("agent.json", "{}", 0600).parent_path() / "portless_sys";
    std::filesystem::create_directories(empty / "class" / "infiniband");
    c.sysfs_root = empty.string();
    std::string m = problems();
    BOOST_TEST(contains(m, "responder.enabled: true, but this host has no port to serve: "), m);
    c.responder.enabled = false;
    BOOST_TEST(problems().empty());
    // This host's own line in the fleet: an address not its own, then the wrong port.
    c.mesh.peers_file = "fleet.jsonl";
    c.mesh.fleet = {{"peer", "192.0.2.9", "r1"}, {"me", "192.0.2.1", "r1"}};
    c.incast.receiver_address = "198.51.100.7:18520";
    m = problems();
    BOOST_TEST(contains(m,
                        "mesh.peers_file: this host (me) is listed at 192.0.2.1 in fleet.jsonl, "
                        "not an address of this host (192.0.2.1: "),
               m);
    BOOST_TEST(!contains(m, "192.0.2.9"), m);  // other hosts' lines are theirs
    BOOST_TEST(contains(m,
                        "incast.receiver_address: 198.51.100.7:18520 is not an address of this "
                        "host"),
               m);
    // Every problem is one line of the answer, not only the first.
    BOOST_TEST(std::count(m.begin(), m.end(), '\n') == 1, m);
    c.incast.receiver_address.clear();
    c.mesh.fleet[1].address = "127.0.0.1:18600";
    BOOST_TEST(problems().empty(), problems());  // the responder is off: no port to agree with
    c.responder.enabled = true;
    c.sysfs_root = RH_FIXTURES_DIR "/mlx5_healthy/sys";
    BOOST_TEST(contains(problems(),
                        "mesh.peers_file: this host (me) is listed at 127.0.0.1:18600 "
                        "in fleet.jsonl, but responder.port is 18520"),
               problems());
    c.mesh.fleet[1].address = "localhost";
    BOOST_TEST(problems().empty(), problems());
}

BOOST_AUTO_TEST_CASE(a_peers_file_is_read_into_the_fleet) {
    const auto peers =
        temp_file("fleet.jsonl",
                  "# generated\n"
                  "{\"host\": \"gpu01\", \"address\": \"10.0.1.1\", \"tor\": \"r01\"}\n"
                  "\n"
                  "{\"host\": \"gpu02\", \"address\": \"10.0.2.1:18600\", "
                  "\"tor\": \"r02\"}\r\n",
                  0644);
    const auto path = temp_file("agent.json",
                                R"({"mesh": {"peers_file": ")" + peers.string() +
                                    R"(", "inter_tor_peers": 2, "intra_tor_cap": 16}})",
                                0600);
    auto r = load_agent_config(path.string());
    BOOST_REQUIRE_MESSAGE(r, (r ? "" : r.error().message()));
    BOOST_TEST(r->mesh.enabled());
    BOOST_TEST(r->mesh.inter_tor_peers == 2u);
    BOOST_TEST(r->mesh.intra_tor_cap == 16u);
    BOOST_REQUIRE(r->mesh.fleet.size() == 2u);
    BOOST_TEST((r->mesh.fleet[1] == rh::FleetHost{"gpu02", "10.0.2.1:18600", "r02"}));
}

BOOST_AUTO_TEST_CASE(empty_object_gives_the_documented_defaults) {
    auto r = parse_agent_config(json::object(), "agent.json");
    BOOST_REQUIRE(r);
    BOOST_TEST(r->http.listen_host == "127.0.0.1");  // loopback only by default
    BOOST_TEST(r->http.listen_port == 9477);
    BOOST_TEST(r->http.protect_read == false);
    BOOST_TEST(r->http.max_threads == 4u);
    BOOST_TEST(r->http.max_connections == 256u);
    BOOST_TEST(r->http.max_connections_per_address == 8u);
    BOOST_TEST(r->http.request_timeout_s == 5.0);
    BOOST_TEST(r->sysfs_root == "/sys");
    BOOST_TEST(r->collect_interval_s == 1.0);
    BOOST_TEST(r->deprecated.empty());
    BOOST_TEST(r->retention_s == 300.0);
    BOOST_TEST(r->responder.enabled == false);
    BOOST_TEST(r->responder.port == 18520);
    BOOST_TEST(!r->responder.allow_fault);  // taking a link down needs consent
    BOOST_TEST(r->max_points() == 316u);    // 300 s at 1 s plus headroom
    BOOST_TEST(!r->mesh.enabled());         // no peers: no mesh
    BOOST_TEST(r->mesh.peers_file.empty());
    BOOST_TEST(r->mesh.inter_tor_peers == 4u);
    BOOST_TEST(r->mesh.intra_tor_cap == 64u);
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
        "incast": {"receiver_address": "10.0.0.1", "max_duration_s": 10,
                   "allowed_senders": ["10.0.1.0/24", "g7"]},
        "http": {"action_token_file": "/etc/rocehealth/action.token"}})"),
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
    BOOST_TEST((r->incast.allowed_senders == std::vector<std::string>{"10.0.1.0/24", "g7"}));
    BOOST_TEST(r->http.action_token_file == "/etc/rocehealth/action.token");
}

BOOST_AUTO_TEST_CASE(every_field_is_read) {
    auto r = parse_agent_config(json::parse(R"({
        "comment": "test", "host": "gpu07", "sysfs_root": "/srv/sys", "device": "mlx5_1",
        "collect_interval_s": 2.5, "retention_s": 600,
        "rules_file": "/etc/r.json",
        "http": {"listen": "[::1]:9500", "token_file": "/etc/t", "protect_read": true,
                 "max_threads": 2, "max_queued": 8, "max_request_bytes": 0,
                 "max_connections": 64, "max_connections_per_address": 3,
                 "request_timeout_s": 0.5, "read_timeout_s": 1.5, "write_timeout_s": 2},
        "responder": {"enabled": true, "listen": "10.0.0.1", "port": 18600, "device": "mlx5_0",
                      "gid_index": 3, "max_sessions": 4, "allow_fault": true,
                      "key_file": "/etc/rocehealth/fabric-a.key"}})"),
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
    BOOST_TEST(r->http.max_connections == 64u);
    BOOST_TEST(r->http.max_connections_per_address == 3u);
    BOOST_TEST(r->http.request_timeout_s == 0.5);
    BOOST_TEST(r->responder.listen == "10.0.0.1");
    BOOST_TEST(r->responder.port == 18600);
    BOOST_REQUIRE(r->responder.gid_index.has_value());
    BOOST_TEST(*r->responder.gid_index == 3u);
    BOOST_TEST(r->responder.max_sessions == 4u);
    BOOST_TEST(r->responder.allow_fault);
    BOOST_TEST(r->responder.key_file == "/etc/rocehealth/fabric-a.key");
}

BOOST_AUTO_TEST_CASE(rules_interval_s_is_deprecated_and_ignored) {
    // The rules run after every collection pass: the field is accepted (with its old range,
    // so a file valid for older agents stays valid) and named as deprecated.
    auto r = parse_agent_config(json::parse(R"({"rules_interval_s": 10})"), "agent.json");
    BOOST_REQUIRE_MESSAGE(r, (r ? "" : r.error().message()));
    BOOST_REQUIRE_EQUAL(r->deprecated.size(), 1u);
    BOOST_TEST(r->deprecated[0].field == "rules_interval_s");
    BOOST_TEST(r->deprecated[0].text.find("rules_interval_s is deprecated and ignored") == 0u);
    auto bad = parse_agent_config(json::parse(R"({"rules_interval_s": 0})"), "agent.json");
    BOOST_REQUIRE(!bad);
    BOOST_TEST(bad.error().message().find("rules_interval_s") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(topology_labels_are_read_and_optional) {
    auto none = parse_agent_config(json::object(), "agent.json");
    BOOST_REQUIRE(none);
    BOOST_TEST(none->topology.empty());  // no topology: host_info carries host alone
    auto r = parse_agent_config(json::parse(R"({"topology": {"comment": "where gpu07 is",
        "pod": "p1", "tor": "r07", "rail": "2", "Plane_B": "b"}})"),
                                "agent.json");
    BOOST_REQUIRE_MESSAGE(r, (r ? "" : r.error().message()));
    // "comment" is free text as in every object, not a label
    BOOST_TEST(
        (r->topology ==
         rh::agent::Topology{{"Plane_B", "b"}, {"pod", "p1"}, {"rail", "2"}, {"tor", "r07"}}));
    // the bounds themselves are allowed: 64-character name, 128-character value
    const std::string name64 = "t" + std::string(63, 'x'), value128(128, 'v');
    BOOST_TEST(error_of(json{{"topology", {{name64, value128}}}}.dump()) == "");
    BOOST_TEST(contains(error_of(json{{"topology", {{name64 + "x", "v"}}}}.dump()),
                        "label name longer than 64 characters"));
    BOOST_TEST(contains(error_of(json{{"topology", {{"tor", value128 + "v"}}}}.dump()),
                        "topology.tor: 129 characters: expected at most 128"));
}

BOOST_AUTO_TEST_CASE(one_error_is_one_line_naming_file_and_field) {
    const auto path = temp_file("agent.json", "", 0600);
    BOOST_TEST(error_of(R"({"colect_interval_s": 1})") ==
               "config " + path.string() + ": colect_interval_s: unknown field");
}

BOOST_AUTO_TEST_CASE(boundary_values_are_accepted) {
    BOOST_TEST(error_of(R"({"responder": {"gid_index": null}})") == "");
    BOOST_TEST(error_of(R"({"http": {"listen": "0.0.0.0:0"}})") == "");
}

BOOST_AUTO_TEST_CASE(all_errors_are_reported_at_once) {
    const std::string e = error_of(R"({"x": 1, "http": {"max_threads": 99, "y": 2}})");
    BOOST_TEST(contains(e, "x: unknown field"));
    BOOST_TEST(contains(e, "http.max_threads: expected a whole number from 1 to 64, got 99"));
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
    BOOST_TEST(contains(
        w.error().message(),
        "is readable or writable by group or others (mode 0644): chmod 600 " + world.string()));
    // Group-readable too (issue 27: a token is a secret of its owner).
    const auto group = temp_file("group", "0123456789abcdef0123\n", 0640);
    BOOST_TEST(contains(load_token_file(group.string()).error().message(), "(mode 0640)"));
    // A symlink to a good token is refused: whoever can write the link's folder picks the token.
    const auto link = good.parent_path() / "token-link";
    std::filesystem::remove(link);
    std::filesystem::create_symlink(good, link);
    BOOST_TEST(contains(load_token_file(link.string()).error().message(), "symbolic link"),
               load_token_file(link.string()).error().message());
    // A directory (mode 755, readable by all) is named as a directory, not by its mode.
    const auto d = load_token_file("/tmp");
    BOOST_REQUIRE(!d.ok());
    BOOST_TEST(contains(d.error().message(), "is a directory"), d.error().message());
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

BOOST_AUTO_TEST_CASE(dynamic_fleet_sources_and_lldp_labels_are_read) {
    auto r = parse_agent_config(json::parse(R"({
        "mesh": {"peers_prometheus": {"url": "http://prom:9090/p", "job": "rocehealth",
                                      "max_answer_bytes": 2048, "timeout_s": 3},
                 "peers_refresh_s": 30},
        "lldp": {"labels": {"tor": "ens1f0np0"}, "lldpcli": "/usr/sbin/lldpcli"}})"),
                                "t.json");
    BOOST_REQUIRE_MESSAGE(r, (r ? "" : r.error().message()));
    BOOST_TEST(r->mesh.peers_prometheus.url == "http://prom:9090/p");
    BOOST_TEST(r->mesh.peers_prometheus.job == "rocehealth");
    BOOST_TEST(r->mesh.peers_prometheus.max_answer_bytes == 2048u);
    BOOST_TEST(r->mesh.peers_prometheus.timeout_s == 3);
    BOOST_TEST(r->mesh.peers_prometheus.headers.empty());
    BOOST_TEST(r->mesh.peers_refresh_s == 30);
    BOOST_TEST(r->mesh.enabled());
    BOOST_TEST(r->mesh.dynamic());
    BOOST_TEST(r->mesh.source() == "prometheus");
    BOOST_TEST(r->lldp.labels.at("tor") == "ens1f0np0");
    BOOST_TEST(r->lldp.lldpcli == "/usr/sbin/lldpcli");
    // Headers (Mimir's tenant) as an object or as a list, both the same headers.
    for (const char* headers : {R"({"X-Scope-OrgID": "tenant1", "X-Team": "a b"})",
                                R"(["X-Scope-OrgID: tenant1", "X-Team:  a b  "])"}) {
        auto h = parse_agent_config(
            json::parse(
                std::string(
                    R"({"mesh": {"peers_prometheus": {"url": "http://m/prometheus", "headers": )") +
                headers + "}}}"),
            "t.json");
        BOOST_REQUIRE_MESSAGE(h, (h ? "" : h.error().message()));
        const std::vector<rh::fabric::HttpHeader> want{{"X-Scope-OrgID", "tenant1"},
                                                       {"X-Team", "a b"}};
        BOOST_TEST((h->mesh.peers_prometheus.headers == want), headers);
    }
    auto d = parse_agent_config(json::parse(R"({"mesh": {"peers_dns": "gpus.fab.example"}})"), "t");
    BOOST_REQUIRE(d);
    BOOST_TEST(d->mesh.source() == "dns");
    BOOST_TEST(d->mesh.peers_refresh_s == 60);
    BOOST_TEST(AgentConfig{}.mesh.source() == "");
    BOOST_TEST(!AgentConfig{}.mesh.enabled());
}

BOOST_AUTO_TEST_SUITE_END()  // test_agent_config

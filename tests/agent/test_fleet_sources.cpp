// The mesh's dynamic fleet sources (agent/fleet/fleet_*.h): Prometheus' targets answer decoded
// from recorded answers (tests/fixtures/prometheus/targets_*.json, Prometheus 2.42 scraping
// tests/fixtures/prometheus/targets_prometheus.yml), fetched from a real HTTP server, turned into
// a fleet with topology and planned; a DNS fleet; and the `lldp` labels from lldpcli's output.
#include <sys/stat.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <httplib.h>

#include "agent/daemon/topology_lldp.h"
#include "agent/fabric/prom_targets.h"
#include "agent/fleet/fleet_fetch.h"
#include "agent/fleet/fleet_plan.h"
#include "agent/fleet/fleet_targets.h"

BOOST_AUTO_TEST_SUITE(test_agent_fleet_sources)

using rh::FleetHost;
using rh::agent::SelfIdentity;

namespace {

std::string read_text(const std::string& path) {
    std::ifstream in(path);
    std::stringstream b;
    b << in.rdbuf();
    return b.str();
}

std::string fixture(const std::string& name) {
    return read_text(std::string(RH_FIXTURES_DIR) + "/" + name);
}

bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

std::vector<rh::fabric::PromTarget> recorded_targets() {
    auto t = rh::fabric::decode_targets(fixture("prometheus/targets_active.json"), 1000);
    BOOST_REQUIRE_MESSAGE(static_cast<bool>(t), (t ? std::string() : t.error().message()));
    return *t;
}

/// A Prometheus stand-in: cpp-httplib serving `body` with `status` at PREFIX/api/v1/targets,
/// remembering the query's `state` parameter.
struct FakePrometheus {
    httplib::Server server;
    std::thread thread;
    int port = 0;
    std::string state_param;
    FakePrometheus(const std::string& prefix, std::string body, int status) {
        server.Get(prefix + "/api/v1/targets",
                   [this, body = std::move(body), status](const httplib::Request& req,
                                                          httplib::Response& res) {
                       state_param = req.get_param_value("state");
                       res.status = status;
                       res.set_content(body, "application/json");
                   });
        port = server.bind_to_any_port("127.0.0.1");
        thread = std::thread([this] { server.listen_after_bind(); });
        // bind_to_any_port already listens: connections wait in the backlog until the thread runs.
    }
    ~FakePrometheus() {
        server.stop();
        thread.join();
    }
    std::string url(const std::string& prefix = "") const {
        return "http://127.0.0.1:" + std::to_string(port) + prefix;
    }
};

rh::agent::MeshConfig prometheus_mesh(const std::string& url, const std::string& job) {
    rh::agent::MeshConfig m;
    m.peers_prometheus.url = url;
    m.peers_prometheus.job = job;
    m.peers_prometheus.timeout_s = 5;
    return m;
}

}  // namespace

BOOST_AUTO_TEST_CASE(recorded_targets_decode_with_labels_health_and_host) {
    const auto t = recorded_targets();
    BOOST_REQUIRE(t.size() ==
                  8u);  // 6 rocehealth targets + 2 node ones; the dropped one is not read
    std::map<std::string, const rh::fabric::PromTarget*> by_url;
    for (const auto& x : t) by_url[x.scrape_url] = &x;
    const auto* v6 = by_url.at("http://[::1]:19477/metrics");
    BOOST_TEST(v6->host == "::1");
    BOOST_TEST(v6->address == "[::1]:19477");
    BOOST_TEST(v6->health == "up");
    BOOST_TEST(v6->labels.at("tor") == "r09");
    BOOST_TEST(v6->labels.at("rail") == "1");
    BOOST_TEST(v6->scrape_pool == "rocehealth");
    BOOST_TEST(by_url.at("http://127.0.0.4:19478/metrics")->health == "down");
    BOOST_TEST(by_url.at("http://localhost:19477/metrics")->host == "localhost");
    // The answer with droppedTargets decodes to the same active targets.
    auto all = rh::fabric::decode_targets(fixture("prometheus/targets_all.json"), 1000);
    BOOST_REQUIRE(all);
    BOOST_TEST(all->size() == 8u);
}

BOOST_AUTO_TEST_CASE(a_bad_targets_answer_names_the_field_or_the_servers_error) {
    auto err = [](const std::string& body, std::size_t max = 100) {
        auto r = rh::fabric::decode_targets(body, max);
        return r ? std::string() : r.error().message();
    };
    BOOST_TEST(
        err(R"({"status":"success","data":{"activeTargets":[{"labels":{},"health":1,"scrapeUrl":"http://a:1/m"}]}})") ==
        "decode Prometheus targets: data.activeTargets[0].health: expected a string");
    BOOST_TEST(
        err(R"({"status":"success","data":{"activeTargets":[{"labels":{"tor":7},"health":"up"}]}})") ==
        "decode Prometheus targets: data.activeTargets[0].labels.tor: expected a string");
    BOOST_TEST(
        err(R"({"status":"success","data":{"activeTargets":[{"labels":{},"health":"up"}]}})") ==
        "decode Prometheus targets: data.activeTargets[0]: no address: neither scrapeUrl "
        "nor discoveredLabels.__address__ names a host");
    BOOST_TEST(err(R"({"status":"success","data":{}})") ==
               "decode Prometheus targets: data.activeTargets: expected an array");
    BOOST_TEST(err(R"({"status":"error","errorType":"bad_data","error":"invalid state"})") ==
               "query Prometheus: Prometheus error bad_data: invalid state");
    BOOST_TEST(err("404 page not found\n") == "decode Prometheus targets: not JSON");
    BOOST_TEST(contains(err(fixture("prometheus/targets_active.json"), 3),
                        "8 active targets: more than 3"));
}

BOOST_AUTO_TEST_CASE(up_targets_of_the_job_are_the_fleet_with_their_tor) {
    auto f = rh::agent::fleet_from_targets(recorded_targets(), "rocehealth", 18520, "u");
    BOOST_REQUIRE_MESSAGE(static_cast<bool>(f), (f ? std::string() : f.error().message()));
    // 127.0.0.4 is down; the node job's targets are another job.
    const std::vector<FleetHost> want = {
        {"127.0.0.1", "127.0.0.1:18520", "r07"}, {"127.0.0.2", "127.0.0.2:18520", "r07"},
        {"127.0.0.3", "127.0.0.3:18520", "r08"}, {"127.0.0.5", "127.0.0.5:18520", "unknown"},
        {"::1", "[::1]:18520", "r09"},           {"localhost", "localhost:18520", "r08"}};
    BOOST_TEST((*f == want));
    auto none = rh::agent::fleet_from_targets(recorded_targets(), "gpu", 18520, "URL");
    BOOST_REQUIRE(!none);
    BOOST_TEST(none.error().message() ==
               "mesh.peers_prometheus URL: no target is up in job \"gpu\" (8 active targets)");
}

BOOST_AUTO_TEST_CASE(this_host_is_found_by_name_or_address_once) {
    auto f = rh::agent::fleet_from_targets(recorded_targets(), "rocehealth", 18520, "u");
    BOOST_REQUIRE(f);
    auto by_name = rh::agent::place_self(*f, SelfIdentity{"127.0.0.2", {}}, "u");
    BOOST_REQUIRE(by_name);
    BOOST_TEST(by_name->self == "127.0.0.2");
    BOOST_TEST(by_name->fleet.size() == 6u);
    BOOST_TEST(by_name->without_tor == 1u);
    // A dual-stack host listed by both addresses is one host: the other entry is dropped.
    auto by_addr = rh::agent::place_self(*f, SelfIdentity{"gpu07", {"127.0.0.1", "::1"}}, "u");
    BOOST_REQUIRE(by_addr);
    BOOST_TEST(by_addr->self == "127.0.0.1");
    BOOST_TEST(by_addr->fleet.size() == 5u);
    // A name match wins: the other entries are then peers, whatever addresses they hold.
    auto name_first =
        rh::agent::place_self(*f, SelfIdentity{"127.0.0.2", {"127.0.0.1", "::1"}}, "u");
    BOOST_REQUIRE(name_first);
    BOOST_TEST(name_first->self == "127.0.0.2");
    BOOST_TEST(name_first->fleet.size() == 6u);
    BOOST_TEST(rh::agent::is_self("gpu07.fab.example", SelfIdentity{"gpu07", {}}));
    BOOST_TEST(rh::agent::is_self("GPU07", SelfIdentity{"gpu07.fab.example", {}}));
    BOOST_TEST(!rh::agent::is_self("gpu070", SelfIdentity{"gpu07", {}}));
    auto missing = rh::agent::place_self(*f, SelfIdentity{"gpu07", {"10.9.9.9"}}, "SRC");
    BOOST_REQUIRE(!missing);
    BOOST_TEST(missing.error().message() ==
               "mesh fleet SRC: this host (gpu07; 10.9.9.9) is not among its 6 hosts");
}

BOOST_AUTO_TEST_CASE(the_planner_gets_the_fleet_fetched_from_a_real_http_server) {
    FakePrometheus prom("/prom", fixture("prometheus/targets_active.json"), 200);
    const auto mesh = prometheus_mesh(prom.url("/prom"), "rocehealth");
    auto got = rh::agent::fetch_fleet(mesh, 18520, SelfIdentity{"127.0.0.3", {}});
    BOOST_REQUIRE_MESSAGE(static_cast<bool>(got), (got ? std::string() : got.error().message()));
    BOOST_TEST(prom.state_param == "active");
    rh::agent::AgentConfig cfg;
    cfg.mesh = mesh;
    cfg.mesh.inter_tor_peers = 1;
    auto plan =
        rh::agent::plan_fleet(cfg.mesh, cfg.topology, cfg.source, got->fleet, got->self, "src");
    BOOST_REQUIRE_MESSAGE(static_cast<bool>(plan), (plan ? std::string() : plan.error().message()));
    const rh::MeshPlan& p = **plan;
    BOOST_TEST(p.own_tor() == "r08");
    BOOST_TEST(p.tor_count() == 4u);  // r07, r08, r09 and the target without a tor label
    BOOST_TEST(p.cover_rounds() == 3u);
    // Round 0: the other host of r08 (localhost), then one host of the next ToR.
    const auto round0 = p.peers(0);
    BOOST_REQUIRE(round0.size() == 2u);
    BOOST_TEST(p.fleet()[round0[0]].host == "localhost");
    BOOST_TEST(p.fleet()[round0[0]].address == "localhost:18520");
    BOOST_TEST(p.fleet()[round0[1]].tor != "r08");
    // topology.tor must agree with the target's label.
    cfg.topology["tor"] = "r07";
    auto clash =
        rh::agent::plan_fleet(cfg.mesh, cfg.topology, cfg.source, got->fleet, got->self, "src");
    BOOST_REQUIRE(!clash);
    BOOST_TEST(contains(clash.error().message(),
                        "topology.tor: \"r07\" but src puts host 127.0.0.3 in tor \"r08\""));
}

BOOST_AUTO_TEST_CASE(http_failures_name_the_url) {
    FakePrometheus notfound("", "404 page not found\n", 404);
    auto r = rh::agent::fetch_fleet(prometheus_mesh(notfound.url(), ""), 18520, {"h", {}});
    BOOST_REQUIRE(!r);
    BOOST_TEST(r.error().message() ==
               "query " + notfound.url() +
                   "/api/v1/targets: HTTP status 404, answer '404 page not found'");

    FakePrometheus big("", fixture("prometheus/targets_active.json"), 200);
    auto mesh = prometheus_mesh(big.url(), "");
    mesh.peers_prometheus.max_answer_bytes = 1024;
    r = rh::agent::fetch_fleet(mesh, 18520, {"h", {}});
    BOOST_REQUIRE(!r);
    BOOST_TEST(r.error().message() == "query " + big.url() +
                                          "/api/v1/targets: the answer is over 1024 bytes "
                                          "(mesh.peers_prometheus.max_answer_bytes)");

    const std::string bad_answer =
        R"({"status":"success","data":{"activeTargets":[{"labels":{},"health":"up","scrapeUrl":5}]}})";
    FakePrometheus bad("", bad_answer, 200);
    r = rh::agent::fetch_fleet(prometheus_mesh(bad.url(), ""), 18520, {"h", {}});
    BOOST_REQUIRE(!r);
    // The start of the answer follows the path: what the server said, for a wrong URL too.
    BOOST_TEST(r.error().message() ==
               "decode " + bad.url() +
                   "/api/v1/targets: data.activeTargets[0].scrapeUrl: expected a string, answer '" +
                   bad_answer + "'");

    r = rh::agent::fetch_fleet(prometheus_mesh("http://127.0.0.1:1", ""), 18520, {"h", {}});
    BOOST_REQUIRE(!r);
    BOOST_TEST(
        contains(r.error().message(), "connect http://127.0.0.1:1/api/v1/targets: no HTTP answer"));
}

BOOST_AUTO_TEST_CASE(a_dns_fleet_finds_this_host_by_its_addresses) {
    rh::agent::MeshConfig mesh;
    mesh.peers_dns = "localhost";
    auto r = rh::agent::fetch_fleet(mesh, 18600, rh::agent::local_identity("not-this-name"));
    BOOST_REQUIRE_MESSAGE(static_cast<bool>(r), (r ? std::string() : r.error().message()));
    BOOST_TEST(r->fleet.size() == 1u);  // 127.0.0.1 (and ::1, the same host, dropped)
    BOOST_TEST(r->fleet[0].tor == rh::kUnknownTor);
    BOOST_TEST(r->fleet[0].address == r->fleet[0].host + ":18600");
    mesh.peers_dns = "nonexistent.invalid";
    r = rh::agent::fetch_fleet(mesh, 18600, {"h", {}});
    BOOST_REQUIRE(!r);
    BOOST_TEST(contains(r.error().message(), "mesh.peers_dns nonexistent.invalid: "));
}

BOOST_AUTO_TEST_CASE(lldp_labels_are_the_chassis_names_of_their_interfaces) {
    auto n = rh::parse_lldp_neighbors(fixture("lldp/several_interfaces.json"));
    BOOST_REQUIRE(n);
    auto t = rh::agent::topology_from_neighbors({{"tor", "ens1f0np0"}, {"rail_tor", "ens2f0np0"}},
                                                *n, "agent.json");
    BOOST_REQUIRE_MESSAGE(static_cast<bool>(t), (t ? std::string() : t.error().message()));
    BOOST_TEST((*t == rh::agent::Topology{{"rail_tor", "r07-rail1"}, {"tor", "r07-tor1"}}));
    auto unnamed = rh::agent::topology_from_neighbors({{"tor", "eno1"}}, *n, "agent.json");
    BOOST_REQUIRE(!unnamed);
    BOOST_TEST(unnamed.error().message() ==
               "config agent.json: lldp.labels.tor: the LLDP neighbour on eno1 sends no chassis "
               "name (chassis id mac b4:96:91:00:aa:01): set topology.tor instead");
    auto absent = rh::agent::topology_from_neighbors({{"tor", "ens9"}}, *n, "agent.json");
    BOOST_REQUIRE(!absent);
    BOOST_TEST(contains(absent.error().message(),
                        "lldp.labels.tor: no LLDP neighbour on ens9 (lldpd has neighbours on "
                        "eno1, ens1f0np0, ens2f0np0;"));
}

BOOST_AUTO_TEST_CASE(lldpcli_is_run_and_its_failures_are_named) {
    const auto dir =
        std::filesystem::temp_directory_path() / ("rh_fleet_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    auto script = [&](const std::string& name, const std::string& body) {
        const auto p = dir / name;
        std::ofstream(p) << "#!/bin/sh\n" << body << "\n";
        chmod(p.c_str(), 0755);
        return p.string();
    };
    rh::agent::LldpConfig l;
    l.labels = {{"tor", "ens1f0np0"}};
    l.lldpcli = script("lldpcli", "[ \"$*\" = \"-f json show neighbors\" ] || exit 3\ncat '" +
                                      std::string(RH_FIXTURES_DIR) + "/lldp/one_neighbor.json'");
    auto t = rh::agent::lldp_topology(l, "agent.json");
    BOOST_REQUIRE_MESSAGE(static_cast<bool>(t), (t ? std::string() : t.error().message()));
    BOOST_TEST(t->at("tor") == "r07-tor1.fab.example");

    l.lldpcli = (dir / "no-such-lldpcli").string();
    t = rh::agent::lldp_topology(l, "agent.json");
    BOOST_REQUIRE(!t);
    BOOST_TEST(contains(t.error().message(), "lldp.labels.tor: run " + l.lldpcli +
                                                 ": No such file or directory: not found "
                                                 "(install lldpd"));
    l.lldpcli = script("down", "echo 'unable to connect to lldpd daemon' >&2; exit 1");
    t = rh::agent::lldp_topology(l, "agent.json");
    BOOST_REQUIRE(!t);
    BOOST_TEST(contains(t.error().message(), "exit status 1: unable to connect to lldpd daemon"));
    l.lldpcli = script("slow", "sleep 5");
    l.timeout_s = 0.2;
    t = rh::agent::lldp_topology(l, "agent.json");
    BOOST_REQUIRE(!t);
    BOOST_TEST(contains(t.error().message(), "no answer within 0.2 s (killed)"));
    std::filesystem::remove_all(dir);
}

BOOST_AUTO_TEST_SUITE_END()  // test_agent_fleet_sources
